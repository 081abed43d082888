import PunktfunkWire
import Screen
import VideoDecode
import VideoFrames

extension KioskRunner {
    typealias Fact = BoxAbilities.Fact

    /// The hello for a session on this box now: the decoder the ladder would use, the screen's
    /// HDR ability (the panel may have changed since the last stream), the sound device's channels.
    func helloPlan(base: ClientHello, audio: SessionAudio?, rungs: [DecoderRungKind], settings: HelloSettings) -> HelloPlan {
        let decoder = BoxAbilities.decoder(rungs: rungs)
        let abilities = BoxAbilities(main10: decoder.main10, multiSlice: decoder.multiSlice,
                                     panel: BoxAbilities.panel(screen),
                                     soundChannels: audio.flatMap { $0.plays ? Fact($0.deviceChannels.channels, $0.deviceChannels.reason) : nil },
                                     aesInHardware: BoxAbilities.aesInHardware(), hostName: BoxAbilities.hostName(),
                                     drawsPointer: BoxAbilities.pointer(screen))
        return HelloPlan(base: base, facts: abilities, settings: settings)
    }
}

extension BoxAbilities {
    /// Whether `screen` draws the host's pointer (nil: headless).
    public static func pointer(_ screen: (any Screen)?) -> Fact<Bool> {
        guard let screen else { return Fact(false, "headless: nothing is drawn") }
        return screen.canDrawPointer
            ? Fact(true, "the screen draws it over the stream (\(screen.pointerRoute)): the local mouse moves it at once")
            : Fact(false, "this screen cannot draw it (\(screen.pointerRoute)): the host draws it into the pictures")
    }

    /// What `screen` can signal (nil: headless).
    public static func panel(_ screen: (any Screen)?) -> Panel {
        guard let screen else { return .headless }
        switch screen.hdrCapability {
        case .hdr10(let panel): return .hdr10(HDRMetadata(panel: panel), why: "the TV's EDID lists SMPTE ST 2084 (PQ) and the connector takes HDR_OUTPUT_METADATA")
        case .none(let reason): return .sdr(why: reason)
        }
    }
}

extension HDRMetadata {
    /// The panel's facts (`ScreenHDRCapability.hdr10`: primaries in 1/50000, peak in cd/m², black
    /// in 0.0001 cd/m²) as the 28-byte body of tag 13 (mastering luminance in 0.0001 cd/m²).
    public init(panel m: HDRStaticMetadata) {
        self.init(green: .init(x: m.green.x, y: m.green.y), blue: .init(x: m.blue.x, y: m.blue.y),
                  red: .init(x: m.red.x, y: m.red.y), whitePoint: .init(x: m.whitePoint.x, y: m.whitePoint.y),
                  maxMasteringLuminance: UInt32(m.maxMasteringLuminance) * 10_000,
                  minMasteringLuminance: UInt32(m.minMasteringLuminance), maxCLL: m.maxCLL, maxFALL: m.maxFALL)
    }
}
