import Testing
@testable import PunktfunkWire

/// The golden frames of control-plane.md §9 (upstream `v2/hello.rs` @72d084e test
/// `start_extensions_and_session_fields_ride_along`, `v2/msg.rs` @867f3f4 test `golden_frames`).
@Suite struct ControlGoldenTests {
    static let clientHelloHex =
        "01408301100303030303030303030303030303030302020100030c80070000380400003c000000040100"
        + "05010006040000000007044465636b090540400000010a01020b01020c01000e0280050f0480bb0000"
        + "100110110100120100130c616e64726f696420302e3433140101150902703105436f756368160501c4"
        + "09000018010119027800"

    /// The value §9 says the 134-byte frame decodes to.
    static var clientHelloValue: ClientHello {
        var h = ClientHello(mode: Mode(width: 1920, height: 1080, refreshHz: 60))
        h.resume = SessionID(bytes: [UInt8](repeating: 3, count: 16))
        h.suites = [.chaCha20Poly1305, .aes128GCM]
        h.name = "Deck"
        h.features = FeatureSet(videoCaps: .chaCha20, clientCaps: .ext, bits: [FeatureBit.streamConfig])
        h.audioChannels = 2
        h.videoCodecs = .hevc
        h.maxShardPayload = 1408
        h.audioRateHz = 48_000
        h.audioBits = 16
        h.clientLabel = "android 0.43"
        h.abrFeatures = .ackReason
        h.preset = SessionPreset(id: "p1", name: "Couch")
        h.link = LinkFacts(kind: .ethernet, mbps: 2_500)
        h.probeOnly = true
        h.pyroWaveBppX100 = 120
        return h
    }

    @Test func clientHelloGoldenDecodesToTheSpecValues() throws {
        let bytes = hex(Self.clientHelloHex)
        #expect(bytes.count == 134)
        let frame = try ControlFrame.decode(bytes)
        #expect(frame.type == 0x01 && frame.body.count == 131)
        let h = try ClientHello(frame: frame)
        #expect(h.resume?.bytes == [UInt8](repeating: 3, count: 16))
        #expect(h.suites == [.chaCha20Poly1305, .aes128GCM])
        #expect(h.mode == Mode(width: 1920, height: 1080, refreshHz: 60))
        #expect(h.compositor == .auto && h.gamepad == .auto && h.bitrateKbps == 0)
        #expect(h.name == "Deck" && h.launch == nil)
        #expect(h.features.videoCaps == .chaCha20 && h.features.clientCaps == .ext)
        #expect(h.features.contains(FeatureBit.streamConfig) && h.features.native == FeatureSet(bits: [32]))
        #expect(h.audioChannels == 2 && h.videoCodecs == .hevc && h.preferredCodec == [])
        #expect(h.displayHDR == nil)
        #expect(h.maxShardPayload == 1408 && h.audioRateHz == 48_000 && h.audioBits == 16)
        #expect(h.audioLayout == .legacy && h.videoFit == 0)
        #expect(h.clientLabel == "android 0.43" && h.abrFeatures == .ackReason)
        #expect(h.preset?.id == "p1" && h.preset?.name == "Couch")
        #expect(h.link == LinkFacts(kind: .ethernet, mbps: 2_500))
        #expect(h.probeOnly && h.pyroWaveBppX100 == 120)
        #expect(h.profile == nil && !h.accessOnly)
        #expect(h == Self.clientHelloValue)
    }

    @Test func clientHelloGoldenReEncodesByteForByte() throws {
        let bytes = hex(Self.clientHelloHex)
        #expect(Self.clientHelloValue.encoded == bytes)
        #expect(try ClientHello(frame: ControlFrame.decode(bytes)).encoded == bytes)
        #expect(try ControlMessage(decoding: bytes) == .clientHello(Self.clientHelloValue))
    }

    /// The older copy (@6cc1a5b0) pins the same hello without tag 25: `01 40 7f`, 127-byte body.
    @Test func clientHelloWithoutPyroWaveIsTheOlderGolden() {
        var h = Self.clientHelloValue
        h.pyroWaveBppX100 = 0
        let bytes = h.encoded
        #expect(Array(bytes.prefix(3)) == [0x01, 0x40, 0x7F] && bytes.count == 130)
    }

    static let goldens: [(any ControlMessageCodable, String)] = [
        (SetBitrate(kbps: 80_000), "24 06 01 04 80 38 01 00"),
        (BitrateChanged(kbps: 1, reason: .cadence), "25 09 01 04 01 00 00 00 02 01 02"),
        (PairResult(ok: true), "13 03 01 01 01"),
        (Redirect(addr: "", port: 9778, profile: "ab", seatNumber: 2),
         "05 13 01 00 02 02 32 26 03 02 61 62 04 01 02 05 00 06 00 07 00"),
        (Ready(), "03 00"),
        (Pending(), "04 00"),
        (InputEdge(event: [0xC8] + [UInt8](repeating: 0, count: 17))!, "40 50 12 c8" + String(repeating: "00", count: 17)),
    ]

    @Test(arguments: goldens)
    func messageGoldens(message: any ControlMessageCodable, hexText: String) throws {
        let bytes = hex(hexText)
        #expect(message.encoded == bytes)
        let decoded = try ControlMessage(decoding: bytes)
        #expect(controlSame(message, decoded.message))
        #expect(decoded.encoded == bytes)
    }
}
