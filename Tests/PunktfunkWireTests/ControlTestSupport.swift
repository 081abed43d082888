import Foundation
@testable import PunktfunkWire

extension SplitMix64 {
    /// A string of at most `maxBytes` UTF-8 bytes, mixing 1-, 2-, 3- and 4-byte scalars, with no
    /// surrounding whitespace and no control characters (so every sanitiser leaves it as is).
    mutating func text(maxBytes: Int, nonEmpty: Bool = false) -> String {
        let alphabet = ["a", "Z", "0", ":", "-", "é", "ß", "漢", "🎮", "x y"]
        var s = nonEmpty ? "q" : ""
        let target = int(in: 0...maxBytes)
        while true {
            let c = pick(alphabet)
            guard s.utf8.count + c.utf8.count <= min(target, maxBytes) else { break }
            s += c
        }
        return s.isEmpty && nonEmpty ? "q" : s
    }

    mutating func mode() -> Mode { Mode(width: int(), height: int(), refreshHz: int()) }

    mutating func hdr() -> HDRMetadata {
        func c(_ r: inout SplitMix64) -> HDRMetadata.Chromaticity { .init(x: r.int(), y: r.int()) }
        return HDRMetadata(green: c(&self), blue: c(&self), red: c(&self), whitePoint: c(&self),
                           maxMasteringLuminance: int(), minMasteringLuminance: int(),
                           maxCLL: int(), maxFALL: int())
    }

    mutating func features() -> FeatureSet { FeatureSet(low: int(), high: bool() ? int() : 0) }
    mutating func sessionID() -> SessionID { SessionID(bytes: bytes(16))! }
    mutating func color() -> ColorInfo { ColorInfo(primaries: int(), transfer: int(), matrix: int(), fullRange: bool()) }
}

/// Random, canonical instances of every control message: values a decoder reads back
/// unchanged (folded fields hold values the fold keeps).
enum ControlSamples {
    static func make(_ type: ControlMessageType, _ r: inout SplitMix64) -> any ControlMessageCodable {
        switch type {
        case .clientHello: return clientHello(&r)
        case .serverHello: return serverHello(&r)
        case .ready: return Ready()
        case .pending: return Pending()
        case .redirect:
            return Redirect(addr: r.text(maxBytes: 253), port: UInt16(r.int(in: 1...65535)),
                            profile: r.text(maxBytes: 64), seatNumber: r.int(), seatName: r.text(maxBytes: 64),
                            occupant: r.text(maxBytes: 64),
                            pin: r.bool() ? "" : String((0..<64).map { _ in r.pick(Array("0123456789abcdefABCDEF")) }))
        case .refused: return Refused(code: r.int(), reason: r.text(maxBytes: 256))
        case .pairRequest:
            return PairRequest(name: r.text(maxBytes: 64), spakeA: r.bytes(33), deviceKey: r.bytes(r.int(in: 0...120)))
        case .pairChallenge: return PairChallenge(spakeB: r.bytes(33), confirm: r.bytes(32))
        case .pairProof: return PairProof(confirm: r.bytes(32))
        case .pairResult: return PairResult(ok: r.bool())
        case .authChallenge: return AuthChallenge(nonce: r.bytes(32))
        case .authResponse: return AuthResponse(deviceKey: r.bytes(r.int(in: 0...120)), signature: r.bytes(r.int(in: 0...72)))
        case .reconfigure: return Reconfigure(mode: r.mode())
        case .reconfigured: return Reconfigured(accepted: r.bool(), mode: r.mode())
        case .streamConfig:
            return StreamConfig(epoch: r.int(), mode: r.mode(), codec: VideoCodecs(rawValue: r.int()), bitDepth: r.int(),
                                color: r.color(), chromaFormat: r.int(), hostInterfaceKind: InterfaceKind(rawValue: r.int()),
                                hostLinkMbps: r.int(), hostSendBufferKB: r.int(), hostForcedShape: r.int())
        case .audioConfig:
            return AudioConfig(stream: r.int(), epoch: r.int(), codec: AudioCodec(rawValue: r.int()), rateHz: r.int(),
                               bits: r.int(), channels: r.int(), layout: AudioLayout(rawValue: r.int()), frameUs: r.int(),
                               redundant: r.bool())
        case .setBitrate: return SetBitrate(kbps: r.int())
        case .bitrateChanged: return BitrateChanged(kbps: r.int(), reason: r.maybe { $0.pick(BitrateChangeReason.allCases) })
        case .pipelineGap: return PipelineGap(gapMs: r.int())
        case .probeRequest:
            return ProbeRequest(targetKbps: r.int(), durationMs: r.int(), burstHz: r.int(), groupBytes: r.int(),
                                groupRateKbps: r.int())
        case .probeResult:
            return ProbeResult(bytesSent: r.int(), packetsSent: r.int(), durationMs: r.int(), wirePacketsSent: r.int(),
                               sendDropped: r.int())
        case .cursorShape:
            let w = UInt16(r.int(in: 1...24)), h = UInt16(r.int(in: 1...24))
            return CursorShape(serial: r.int(), width: w, height: h, hotX: r.int(), hotY: r.int(),
                               rgba: r.bytes(Int(w) * Int(h) * 4))
        case .cursorRenderMode: return CursorRenderMode(clientDraws: r.bool())
        case .accessUpdate: return AccessUpdate(grants: AccessGrants(rawValue: r.int()), remainingSecs: r.int())
        case .audioState: return AudioState(muted: r.bool())
        case .launchOutcome:
            return LaunchOutcome(kind: r.pick(LaunchOutcomeKind.allCases), message: r.text(maxBytes: 200))
        case .padSlots: return PadSlots(slots: r.int())
        case .shardPayloadChanged: return ShardPayloadChanged(shardPayload: r.int())
        case .shardPayloadAck: return ShardPayloadAck(shardPayload: r.int())
        case .clockProbe: return ClockProbe(t1Ns: r.int())
        case .clockEcho: return ClockEcho(t1Ns: r.int(), t2Ns: r.int(), t3Ns: r.int())
        case .clipControl: return ClipControl(enabled: r.bool(), flags: r.int())
        case .clipState: return ClipState(enabled: r.bool(), policy: r.int(), reason: r.int())
        case .clipOffer:
            let kinds = (0..<r.int(in: 0...16)).map { _ in ClipKind(mime: r.text(maxBytes: 128), sizeHint: r.int()) }
            return ClipOffer(seq: r.int(), kinds: kinds)
        case .clipFetch: return ClipFetch(seq: r.int(), fileIndex: r.int(), mime: r.text(maxBytes: 128))
        case .clipFetchHeader: return ClipFetchHeader(status: r.int(), totalSize: r.int())
        case .inputEvent: return InputEdge(event: [0xC8] + r.bytes(17))!
        case .padIdentity:
            let pairs = (0..<r.int(in: 0...4)).map { _ in (request: r.bytes(r.int(in: 0...64)), reply: r.bytes(r.int(in: 0...64))) }
            return PadIdentity(pad: r.int(), serial: r.text(maxBytes: 32), replies: PadIdentity.pack(pairs),
                               slot: UInt8(r.int(in: 0...3)))
        case .padFeature: return PadFeature(pad: r.int(), data: r.bytes(r.int(in: 1...64)))
        }
    }

    static func clientHello(_ r: inout SplitMix64) -> ClientHello {
        var h = ClientHello(mode: r.mode())
        h.resume = r.maybe { $0.sessionID() }
        h.suites = (0..<r.int(in: 0...3)).map { _ in r.pick(MediaSuite.allCases) }
        h.compositor = r.pick(Compositor.allCases)
        h.gamepad = r.pick(GamepadKind.allCases)
        h.bitrateKbps = r.int()
        h.name = r.maybe { $0.text(maxBytes: 64, nonEmpty: true) }
        h.launch = r.maybe { $0.text(maxBytes: 128, nonEmpty: true) }
        h.features = r.features()
        h.audioChannels = r.pick([2, 6, 8])
        h.videoCodecs = VideoCodecs(rawValue: r.int())
        h.preferredCodec = VideoCodecs(rawValue: r.int())
        h.displayHDR = r.maybe { $0.hdr() }
        h.maxShardPayload = r.int()
        h.audioRateHz = UInt32(r.int(in: 1...Int(UInt32.max)))
        h.audioBits = r.pick([16, 24])
        h.audioLayout = AudioLayout(rawValue: r.int())
        h.videoFit = r.int()
        h.clientLabel = r.maybe { $0.text(maxBytes: 96, nonEmpty: true) }
        h.abrFeatures = ABRFeatures(rawValue: r.int())
        h.preset = r.maybe { r in
            SessionPreset(id: String((0..<r.int(in: 1...32)).map { _ in Character(Unicode.Scalar(UInt8(r.int(in: 0x21...0x7E)))) }),
                          name: r.text(maxBytes: 64))
        } ?? nil
        h.link = LinkFacts(kind: InterfaceKind(rawValue: r.int()), mbps: r.int())
        h.probeOnly = r.bool()
        h.pyroWaveBppX100 = r.int()
        h.profile = r.maybe { $0.text(maxBytes: 64, nonEmpty: true) }
        h.accessOnly = r.bool()
        return h
    }

    static func serverHello(_ r: inout SplitMix64) -> ServerHello {
        var s = ServerHello(sessionID: r.sessionID())
        s.clockOriginNs = r.int()
        s.suite = r.maybe { $0.pick(MediaSuite.allCases) }
        s.features = r.features()
        s.mode = r.mode()
        s.fecScheme = r.pick(FECScheme.allCases)
        s.fecPercent = r.int()
        s.maxDataPerBlock = r.int()
        s.shardPayload = r.int()
        s.frames = r.int()
        s.compositor = r.pick(Compositor.allCases)
        s.gamepad = r.pick(GamepadKind.allCases)
        s.bitrateKbps = r.int()
        s.bitDepth = r.int()
        s.color = r.color()
        s.chromaFormat = r.pick(ChromaFormat.allCases)
        s.audioChannels = r.pick([2, 6, 8])
        s.codec = r.pick([.h264, .hevc, .av1, .pyroWave])
        s.mgmtPort = r.int()
        s.grants = AccessGrants(rawValue: r.int())
        s.expiresInSecs = r.int()
        s.audioCodec = AudioCodec(rawValue: r.int())
        s.audioRateHz = r.pick(Array(ServerHello.supportedAudioRates))
        s.audioBits = r.pick([16, 24])
        s.audioFrameUs = r.bool() ? 0 : UInt16(r.int(in: 1000...65535))
        s.audioLayout = AudioLayout(rawValue: r.int())
        s.profile = r.maybe { $0.text(maxBytes: 64, nonEmpty: true) }
        return s
    }
}

/// `a` equals `b` when both are the same message type (opens the existential for `==`).
func controlSame(_ a: any ControlMessageCodable, _ b: (any ControlMessageCodable)?) -> Bool {
    func open<M: ControlMessageCodable>(_ a: M) -> Bool { (b as? M) == a }
    return open(a)
}
