import Testing
@testable import PunktfunkWire

/// Property tests: every message survives encode → frame → `ControlMessage` → typed value, and
/// the hellos settle after one trip from arbitrary field values (upstream
/// `hellos_settle_after_one_trip`).
@Suite struct ControlRoundTripTests {
    static let iterations = 200

    @Test(arguments: ControlMessageType.allCases)
    func everyMessageRoundTrips(type: ControlMessageType) throws {
        var rng = SplitMix64(seed: 0x5EED_0000 + type.rawValue)
        for _ in 0..<Self.iterations {
            let m = ControlSamples.make(type, &rng)
            #expect(Swift.type(of: m).messageType == type)
            let bytes = m.encoded
            #expect(bytes.count - m.body.count <= 4)
            #expect(m.body.count <= type.bodyLimit)
            let decoded = try ControlMessage(decoding: bytes)
            #expect(decoded.type == type.rawValue)
            #expect(controlSame(m, decoded.message), "\(m)")
            #expect(decoded.encoded == bytes)
        }
    }

    /// Random values in every ClientHello/ServerHello tag (any width-correct integer, any bytes
    /// where the spec folds) decode to a value that a second trip leaves unchanged.
    @Test func hellosSettleAfterOneTrip() throws {
        var r = SplitMix64(seed: 0x4E110)
        for _ in 0..<Self.iterations {
            var c = FieldWriter()
            c.mode(3, r.mode())
            for tag: UInt64 in [4, 5, 10, 11, 12, 16, 17, 18, 20, 24, 26] { c.uint(tag, r.int(UInt8.self)) }
            c.uint(6, r.int(UInt32.self))
            c.bytes(7, r.bytes(r.int(in: 0...70)))
            c.bytes(9, r.bytes(r.int(in: 0...20)))
            c.bytes(13, r.bytes(r.pick([27, 28, 29])))
            c.uint(14, r.int(UInt16.self))
            c.uint(15, r.pick([0, 44_100, r.int(UInt32.self)]))
            c.bytes(19, r.bytes(r.int(in: 0...100)))
            c.bytes(21, r.bytes(r.int(in: 0...12)))
            c.bytes(22, r.bytes(r.int(in: 0...7)))
            c.bytes(25, r.bytes(r.int(in: 0...3)))
            c.bytes(23, r.bytes(r.int(in: 0...66)))
            let once = try ClientHello(body: c.bytes)
            #expect(try ClientHello(body: once.body) == once)

            var s = FieldWriter()
            s.bytes(1, r.bytes(16))
            s.uint(2, r.int(UInt64.self))
            s.uint(3, UInt8(r.int(in: 0...1)))
            s.bytes(4, r.bytes(r.int(in: 0...20)))
            for tag: UInt64 in [6, 7, 11, 12, 14, 16, 17, 18, 22, 24, 26] { s.uint(tag, r.int(UInt8.self)) }
            for tag: UInt64 in [8, 9, 19, 25] { s.uint(tag, r.int(UInt16.self)) }
            for tag: UInt64 in [10, 13, 20, 21] { s.uint(tag, r.int(UInt32.self)) }
            s.uint(23, r.pick([96_000, r.int(UInt32.self)]))
            s.bytes(15, r.bytes(4))
            let sOnce = try ServerHello(body: s.bytes)
            #expect(try ServerHello(body: sOnce.body) == sOnce)
        }
    }

    @Test func clientHelloFoldsWhatItCannotHonour() throws {
        var w = FieldWriter()
        w.uint(4, UInt8(99))       // compositor → auto
        w.uint(5, UInt8(200))      // gamepad → auto
        w.string(7, String(repeating: "n", count: 65))  // name too long → nil
        w.uint(10, UInt8(5))       // channels → 2
        w.uint(15, UInt32(0))      // rate 0 → 48000
        w.uint(16, UInt8(20))      // bits → 16
        w.bytes(13, [UInt8](repeating: 1, count: 27))  // HDR of another length → nil
        w.bytes(19, Array("  deck\n".utf8))           // label trimmed
        w.bytes(20, [])                                // empty ABR byte → none
        w.bytes(21, [9, 0x78])                         // torn preset → nil
        w.bytes(22, [2, 0x10])                         // short link facts zero-fill
        w.bytes(24, [])                                // probe_only: any value counts
        w.bytes(25, [7])                               // short PyroWave value → 0
        w.uint(26, UInt8(0))                           // access_only needs 1
        w.bytes(23, Array(String(repeating: "9", count: 65).utf8))  // profile too long → nil
        let h = try ClientHello(body: w.bytes)
        #expect(h.compositor == .auto && h.gamepad == .auto && h.name == nil)
        #expect(h.audioChannels == 2 && h.audioRateHz == 48_000 && h.audioBits == 16 && h.displayHDR == nil)
        #expect(h.clientLabel == "deck" && h.abrFeatures == [] && h.preset == nil)
        #expect(h.link == LinkFacts(kind: .wifi, mbps: 0x10))
        #expect(h.probeOnly && h.pyroWaveBppX100 == 0 && !h.accessOnly && h.profile == nil)
        // Name: empty and invalid UTF-8 read as none too.
        for bad: [UInt8] in [[], [0xFF, 0xFE]] {
            var n = FieldWriter()
            n.bytes(7, bad)
            #expect(try ClientHello(body: n.bytes).name == nil)
        }
    }

    @Test func clientHelloWriterTruncatesNameButNeverProfile() throws {
        var h = ClientHello()
        h.name = String(repeating: "é", count: 40)     // 80 bytes → 32 scalars (64 bytes)
        h.profile = String(repeating: "9", count: 65)  // over 64: not sent
        let back = try ClientHello(body: h.body)
        #expect(back.name == String(repeating: "é", count: 32))
        #expect(back.profile == nil)
        #expect(try !TaggedFields(h.body).contains(23))
    }

    @Test func serverHelloDefaultsAndFolds() throws {
        var w = FieldWriter()
        w.bytes(1, [UInt8](repeating: 9, count: 16))
        let d = try ServerHello(body: w.bytes)
        #expect(d == ServerHello(sessionID: SessionID(bytes: [UInt8](repeating: 9, count: 16))!))
        #expect(d.color == .sdrBT709 && d.grants == .all && d.codec == .hevc && d.audioRateHz == 48_000)
        #expect(d.suite == nil && d.managementPort == 47_990 && d.fecScheme == .gf16)

        w.uint(6, UInt8(7))
        w.uint(16, UInt8(2))
        w.uint(18, UInt8(0x06))
        w.uint(23, UInt32(192_000))
        w.uint(25, UInt16(200))
        let f = try ServerHello(body: w.bytes)
        #expect(f.fecScheme == .gf8 && f.chromaFormat == .yuv420 && f.codec == .hevc)
        #expect(f.audioRateHz == 48_000 && f.audioFrameUs == 1_000)
    }

    @Test func serverHelloRefusesWhatItCannotOpen() {
        var noID = FieldWriter()
        noID.uint(2, UInt64(1))
        #expect(throws: WireError.missingField(tag: 1)) { try ServerHello(body: noID.bytes) }
        var shortID = FieldWriter()
        shortID.bytes(1, [0, 1, 2])
        #expect(throws: WireError.wrongLength(what: "session id", expected: 16, found: 3)) {
            try ServerHello(body: shortID.bytes)
        }
        var badSuite = FieldWriter()
        badSuite.bytes(1, [UInt8](repeating: 0, count: 16))
        badSuite.uint(3, UInt8(9))
        #expect(throws: WireError.valueOutOfRange(tag: 3, value: 9)) { try ServerHello(body: badSuite.bytes) }
        var badColor = FieldWriter()
        badColor.bytes(1, [UInt8](repeating: 0, count: 16))
        badColor.bytes(15, [1, 1, 1])
        #expect(throws: WireError.self) { try ServerHello(body: badColor.bytes) }
    }

    @Test func bitrateChangedUnknownReasonReadsAsNone() throws {
        var w = FieldWriter()
        w.uint(1, UInt32(9))
        w.string(77, "from a newer peer")
        w.uint(2, UInt8(200))
        #expect(try BitrateChanged(body: w.bytes) == BitrateChanged(kbps: 9, reason: nil))
    }

    @Test func launchOutcomeIsBoundedAndPlain() throws {
        let long = LaunchOutcome(kind: .failed, message: String(repeating: "é", count: 400))
        #expect(long.message.utf8.count <= LaunchOutcome.messageMaxBytes)
        #expect(try LaunchOutcome(body: long.body) == long)
        #expect(LaunchOutcome(kind: .refused, message: "  a\u{7}b\n  ").message == "ab")
        var unknownKind = FieldWriter()
        unknownKind.uint(1, UInt8(42))
        #expect(try LaunchOutcome(body: unknownKind.bytes).kind == .spawned)
        #expect(LaunchOutcome(kind: .failed, message: "Gone.").notice == "Gone.")
        #expect(LaunchOutcome(kind: .spawned, message: "Hi.").notice == nil)
    }

    @Test func shardPayloadAckRule() {
        #expect(ShardPayloadAck.accepts(1200, maxShardPayload: 1408))
        #expect(!ShardPayloadAck.accepts(1201, maxShardPayload: 1408))
        #expect(!ShardPayloadAck.accepts(510, maxShardPayload: 1408))
        #expect(!ShardPayloadAck.accepts(1410, maxShardPayload: 1408))
    }

    @Test func padIdentityPackingRoundTrips() {
        let pairs: [(request: [UInt8], reply: [UInt8])] = [([0x01, 0x83, 0x00], [0x01, 0x83, 0x1E]), ([], [7])]
        let packed = PadIdentity.pack(pairs)
        #expect(packed == [3, 1, 0x83, 0, 3, 1, 0x83, 0x1E, 0, 1, 7])
        #expect(PadIdentity.unpack(packed)?.map(\.reply) == [[0x01, 0x83, 0x1E], [7]])
        #expect(PadIdentity.unpack([4, 1, 2]) == nil)
        #expect(PadIdentity.unpack([1, 9]) == nil)
    }
}
