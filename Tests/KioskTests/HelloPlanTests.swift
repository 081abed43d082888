import Testing
import PunktfunkSession
import PunktfunkWire
@testable import Kiosk

/// The hello a box sends, from what it can do and what the user allows. Expected bits and bytes
/// are control-plane.md's: §3.6's capability table, §3.2's tag 2 rule and the §9 golden's
/// `02 02 01 00` (ChaCha, AES) beside video_caps 0x40.
@Suite struct HelloPlanTests {
    typealias Fact = BoxAbilities.Fact
    static let panel = HDRMetadata(green: .init(x: 13250, y: 34500), blue: .init(x: 7500, y: 3000),
                                   red: .init(x: 34000, y: 16000), whitePoint: .init(x: 15635, y: 16450),
                                   maxMasteringLuminance: 8_000_000, minMasteringLuminance: 500, maxCLL: 800, maxFALL: 400)

    static func box(main10: Bool = true, panel: BoxAbilities.Panel = .hdr10(panel, why: "EDID PQ"),
                    channels: UInt8? = 6, aes: Bool = true, host: String = "den-box") -> BoxAbilities {
        BoxAbilities(main10: Fact(main10, main10 ? "decodes Main10" : "Main only"), multiSlice: Fact(true, "slices"),
                     panel: panel, soundChannels: channels.map { Fact($0, "ELD: 5.1") }, aesInHardware: Fact(aes, "cpuinfo"),
                     hostName: host)
    }

    func plan(_ box: BoxAbilities, _ settings: HelloSettings = HelloSettings()) -> HelloPlan {
        HelloPlan(base: ClientSession.defaultHello, facts: box, settings: settings)
    }

    func value(_ p: HelloPlan, _ key: String) -> String? { p.decisions.first { $0.key == key }?.value }

    @Test func anHDRBoxAsksForEverythingItCanHonour() throws {
        let p = plan(Self.box())
        let caps = p.hello.features.videoCaps.rawValue
        // §3.6: 10BIT 0x01, HDR 0x02, HOST_TIMING 0x08, PROBE_SEQ 0x10, STREAMED_AU 0x20, MULTI_SLICE 0x80.
        #expect(caps == 0x01 | 0x02 | 0x08 | 0x10 | 0x20 | 0x80)
        // CLIENT_CAP_AUDIO_RED 0x04, CLIENT_CAP_EXT 0x40 ("every client sets it").
        #expect(p.hello.features.clientCaps.rawValue == 0x04 | 0x40)
        #expect(p.hello.audioChannels == 6)
        #expect(p.hello.displayHDR == Self.panel)
        #expect(p.hello.name == "den-box")
        // The hello survives its own wire form: tag 13 is the 28-byte body (§3.2).
        let again = try ClientHello(body: p.hello.body)
        #expect(again.displayHDR == Self.panel)
        #expect(again.features == p.hello.features)
        #expect(again.audioChannels == 6)
        #expect(again.name == "den-box")
    }

    @Test func suitesFollowTheChaChaBitAsANativeClientSendsThem() throws {
        // §3.2 tag 2: `[1,0]` if VIDEO_CAP_CHACHA20 is set, else `[0]`.
        let aes = plan(Self.box(aes: true))
        #expect(!aes.hello.features.videoCaps.contains(.chaCha20))
        #expect(aes.hello.body.prefix(3).elementsEqual([0x02, 0x01, 0x00]))
        let chacha = plan(Self.box(aes: false))
        #expect(chacha.hello.features.videoCaps.contains(.chaCha20))
        // The §9 golden's tag 2 beside video_caps 0x40.
        #expect(chacha.hello.body.prefix(4).elementsEqual([0x02, 0x02, 0x01, 0x00]))
        #expect(value(chacha, "cipher") == "ChaCha20-Poly1305")
    }

    @Test func hdrNeedsTenBitTheSettingAndAnHDRPanel() {
        let sdrPanel = plan(Self.box(panel: .sdr(why: "the TV's EDID lists no PQ")))
        #expect(sdrPanel.hello.features.videoCaps.contains(.tenBit))
        #expect(!sdrPanel.hello.features.videoCaps.contains(.hdr))
        #expect(sdrPanel.hello.displayHDR == nil)
        #expect(sdrPanel.decisions.first { $0.key == "hdr" }?.why == "the TV's EDID lists no PQ")

        let noMain10 = plan(Self.box(main10: false))
        #expect(noMain10.hello.features.videoCaps.isDisjoint(with: [.tenBit, .hdr]))
        #expect(noMain10.hello.displayHDR == nil)
        #expect(noMain10.decisions.first { $0.key == "hdr" }?.why == "HDR needs 10-bit video, which is off")

        var off = HelloSettings()
        off.hdr = false
        let hdrOff = plan(Self.box(), off)
        #expect(hdrOff.hello.features.videoCaps.contains(.tenBit) && !hdrOff.hello.features.videoCaps.contains(.hdr))
        #expect(hdrOff.hello.displayHDR == nil)
        off.tenBit = false
        #expect(plan(Self.box(), off).hello.features.videoCaps.isDisjoint(with: [.tenBit, .hdr]))

        let headless = plan(Self.box(panel: .headless))
        #expect(!headless.hello.features.videoCaps.contains(.hdr))
    }

    @Test func soundFollowsTheDeviceUnlessTheUserFixesIt() {
        #expect(plan(Self.box(channels: 2)).hello.audioChannels == 2)
        #expect(plan(Self.box(channels: 8)).hello.audioChannels == 8)
        var s = HelloSettings()
        s.audioChannels = .fixed(8)
        let fixed = plan(Self.box(channels: 2), s)
        #expect(fixed.hello.audioChannels == 8)
        #expect(fixed.decisions.first { $0.key == "audio_channels" }?.why.contains("downmixed") == true)
        s.audioRedundancy = false
        #expect(!plan(Self.box(), s).hello.features.clientCaps.contains(.audioRed))
        // No sound: stereo asked (the host encodes something), no redundancy.
        let silent = plan(Self.box(channels: nil))
        #expect(silent.hello.audioChannels == 2 && !silent.hello.features.clientCaps.contains(.audioRed))
    }

    @Test func streamedFramesCanBeTurnedOffAndTheNameIsALabel() {
        var s = HelloSettings()
        s.streamedFrames = false
        #expect(!plan(Self.box(), s).hello.features.videoCaps.contains(.streamedAU))
        s.deviceName = "  Living room\u{7}  "
        #expect(plan(Self.box(), s).hello.name == "Living room")
        #expect(plan(Self.box(host: "localhost")).hello.name == "punktfunk kiosk")
        let long = String(repeating: "ä", count: 40)   // 80 bytes: cut on a character boundary at ≤ 64
        let name = plan(Self.box(host: long)).hello.name!
        #expect(name.utf8.count == 64 && name.allSatisfy { $0 == "ä" })
    }

    @Test func aScreenThatDrawsThePointerAsksForCLIENT_CAP_CURSOR() {
        var drawing = Self.box()
        drawing.drawsPointer = Fact(true, "the cursor plane")
        // §3.6: CLIENT_CAP_CURSOR 0x01 beside AUDIO_RED 0x04 and EXT 0x40.
        #expect(plan(drawing).hello.features.clientCaps.rawValue == 0x01 | 0x04 | 0x40)
        #expect(value(plan(drawing), "draws_pointer") == "yes")
        #expect(!plan(Self.box()).hello.features.clientCaps.contains(.cursor))
        #expect(value(plan(Self.box()), "draws_pointer") == "no")
    }

    @Test func thePlanPrintsEveryDecisionWithItsReason() {
        let p = plan(Self.box(panel: .sdr(why: "the connector has no HDR_OUTPUT_METADATA")))
        for key in ["10bit", "hdr", "multi_slice", "streamed_frames", "host_timing", "cipher", "audio_channels", "audio_redundancy",
                    "draws_pointer", "name"] {
            #expect(p.decisions.contains { $0.key == key }, "\(key) missing")
            #expect(p.json.contains("\"\(key)\":{\"value\""), "\(key) missing from the JSON")
        }
        #expect(p.summary.contains("HDR10 no (the connector has no HDR_OUTPUT_METADATA)"))
        #expect(p.json.contains("\"display_hdr\":null"))
    }

    @Test func theConfigKeysSetTheHelloSettings() {
        let c = KioskConfig(text: "hdr = off\nten-bit = on\naudio-channels = 5.1\naudio-redundancy = no\nstreamed-frames = off\ndevice-name = Den\n")
        #expect(c.problems.isEmpty, "\(c.problems)")
        let s = c.helloSettings
        #expect(!s.hdr && s.tenBit && s.audioChannels == .fixed(6) && !s.audioRedundancy && !s.streamedFrames && s.deviceName == "Den")
        #expect(KioskConfig(text: c.text) == c)
        let bad = KioskConfig(text: "audio-channels = 4\nhdr = maybe\n")
        #expect(bad.problems.count == 2)
    }

    @Test func theShellSettingsReadAndWriteTheSameKeys() {
        let config = KioskConfig(text: "hdr = off\naudio-channels = 8\n")
        var shell = ShellSettings(config: config, modes: [], audioDevices: [])
        #expect(!shell.hdr && shell.audioChannels == .fixed(8) && shell.audioRedundancy)
        #expect(shell.choice(.audioChannels)?.options == ["Automatic (the device's)", "Stereo", "5.1", "7.1"])
        shell.audioRedundancy = false
        let stored = shell.stored(in: config)
        #expect(stored.hdr == false && stored.audioChannels == .fixed(8) && stored.audioRedundancy == false)
        // Defaults stay unwritten.
        let untouched = ShellSettings(config: KioskConfig(), modes: [], audioDevices: []).stored(in: KioskConfig())
        #expect(untouched.hdr == nil && untouched.audioChannels == nil && untouched.audioRedundancy == nil)
        var runner = RunnerConfiguration(display: .headless)
        ShellServices.apply(shell, to: &runner)
        #expect(!runner.hello.hdr && runner.hello.audioChannels == .fixed(8) && !runner.hello.audioRedundancy)
    }
}
