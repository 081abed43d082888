import Testing
@testable import PunktfunkWire

/// Decoders given hostile bytes throw or decode — never trap — and enforce the §2.1 field rules:
/// repeated single tags, integer widths, fixed lengths and string bounds.
@Suite struct ControlRobustnessTests {
    /// Every truncation and many random mutations of valid encodings, plus random bodies, for
    /// every frame type (a trap would crash the test run).
    @Test(arguments: ControlMessageType.allCases)
    func hostileBodiesNeverTrap(type: ControlMessageType) {
        var r = SplitMix64(seed: 0xBAD_0000 + type.rawValue)
        for _ in 0..<40 {
            let body = ControlSamples.make(type, &r).body
            for cut in 0..<body.count {
                _ = try? ControlMessage(frame: ControlFrame(type: type.rawValue, body: Array(body.prefix(cut))))
            }
            for _ in 0..<20 where !body.isEmpty {
                var bent = body
                for _ in 0..<r.int(in: 1...4) { bent[r.int(in: 0...(bent.count - 1))] = r.int() }
                _ = try? ControlMessage(frame: ControlFrame(type: type.rawValue, body: bent))
            }
            _ = try? ControlMessage(frame: ControlFrame(type: type.rawValue, body: r.bytes(r.int(in: 0...96))))
        }
    }

    /// A whole frame cut anywhere is "need more bytes" to the reader, never a bogus frame.
    @Test func truncatedFramesNeverYieldAFrame() throws {
        var r = SplitMix64(seed: 0x7A11)
        for type in ControlMessageType.allCases {
            let bytes = ControlSamples.make(type, &r).encoded
            for cut in 0..<bytes.count {
                var reader = FrameReader()
                reader.append(bytes.prefix(cut))
                #expect(try reader.next() == nil)
            }
        }
    }

    /// Repeating a message's first field is `.duplicateField` for every tagged message.
    @Test(arguments: ControlMessageType.allCases.filter { ![.ready, .pending, .inputEvent].contains($0) })
    func repeatedFirstTagIsRejected(type: ControlMessageType) throws {
        var r = SplitMix64(seed: 0xD0_0000 + type.rawValue)
        let body = ControlSamples.make(type, &r).body
        let first = try #require(try TaggedFields(body).fields.first)
        var again = FieldWriter()
        again.bytes(first.tag, first.value)
        #expect(throws: WireError.duplicateField(tag: first.tag)) {
            try ControlMessage(frame: ControlFrame(type: type.rawValue, body: body + again.bytes))
        }
    }

    @Test func unknownTagsAreSkipped() throws {
        var w = FieldWriter()
        w.string(99, "from a newer peer")
        w.uint(1, UInt32(80_000))
        w.bytes(0x3FFF, [1, 2, 3])
        #expect(try SetBitrate(body: w.bytes) == SetBitrate(kbps: 80_000))
        #expect(try Ready(body: w.bytes) == Ready())
    }

    @Test func integerWidthsOneToEightAreAcceptedAndRangeChecked() throws {
        // u32 as 1 byte and as 8 bytes.
        #expect(try SetBitrate(body: [0x01, 0x01, 0x05]).kbps == 5)
        #expect(try SetBitrate(body: [0x01, 0x08, 0x80, 0x38, 0x01, 0, 0, 0, 0, 0]).kbps == 80_000)
        // u8 as 2 bytes with a value < 256.
        #expect(try ClientHello(body: [0x04, 0x02, 0x01, 0x00]).compositor == .kwin)
        // Too big for the target type.
        #expect(throws: WireError.valueOutOfRange(tag: 1, value: 1 << 32)) {
            try SetBitrate(body: [0x01, 0x08, 0, 0, 0, 0, 1, 0, 0, 0])
        }
        #expect(throws: WireError.valueOutOfRange(tag: 4, value: 256)) {
            try ClientHello(body: [0x04, 0x02, 0x00, 0x01])
        }
    }

    @Test(arguments: [0, 9])
    func wrongIntegerWidthsAreRejected(width: Int) {
        let field: [UInt8] = [UInt8(width)] + [UInt8](repeating: 1, count: width)
        #expect(throws: WireError.integerWidth(tag: 1, width: width)) { try SetBitrate(body: [0x01] + field) }
        #expect(throws: WireError.integerWidth(tag: 1, width: width)) { try PairResult(body: [0x01] + field) }
        #expect(throws: WireError.integerWidth(tag: 6, width: width)) { try ClientHello(body: [0x06] + field) }
        #expect(throws: WireError.integerWidth(tag: 2, width: width)) {
            try ServerHello(body: [0x01, 0x10] + [UInt8](repeating: 0, count: 16) + [0x02] + field)
        }
        #expect(throws: WireError.integerWidth(tag: 2, width: width)) { try ClockEcho(body: [0x02] + field) }
    }

    @Test func fixedLengthsAreEnforced() {
        func w(_ tag: UInt64, _ n: Int) -> [UInt8] {
            var f = FieldWriter()
            f.bytes(tag, [UInt8](repeating: 0x41, count: n))
            return f.bytes
        }
        for n in [32, 34] {
            #expect(throws: WireError.self) { try PairRequest(body: w(2, n)) }
            #expect(throws: WireError.self) { try PairChallenge(body: w(1, n) + w(2, 32)) }
        }
        for n in [31, 33] {
            #expect(throws: WireError.self) { try PairProof(body: w(1, n)) }
            #expect(throws: WireError.self) { try PairChallenge(body: w(1, 33) + w(2, n)) }
            #expect(throws: WireError.self) { try AuthChallenge(body: w(1, n)) }
        }
        #expect(throws: WireError.missingField(tag: 1)) { try PairProof(body: []) }
        #expect(throws: WireError.missingField(tag: 2)) { try PairRequest(body: []) }
        #expect(throws: WireError.self) { try ClientHello(body: w(1, 15)) }   // resume
        #expect(throws: WireError.self) { try ClientHello(body: w(3, 11)) }   // mode
        #expect(throws: WireError.self) { try Reconfigure(body: w(1, 13)) }
        #expect(throws: WireError.self) { try StreamConfig(body: w(5, 3)) }   // colour
        #expect(throws: WireError.wrongTag(expected: 0xC8, found: 0xC9)) {
            try InputEdge(body: [0xC9] + [UInt8](repeating: 0, count: 17))
        }
        #expect(throws: WireError.self) { try InputEdge(body: [0xC8]) }
    }

    @Test func stringBoundsAreEnforced() {
        func s(_ tag: UInt64, _ n: Int) -> [UInt8] {
            var f = FieldWriter()
            f.string(tag, String(repeating: "x", count: n))
            return f.bytes
        }
        let port: [UInt8] = [0x02, 0x02, 0x32, 0x26]
        #expect(throws: WireError.invalidString(tag: 1)) { try Redirect(body: s(1, 254) + port) }
        #expect(throws: WireError.invalidString(tag: 3)) { try Redirect(body: s(3, 65) + port) }
        #expect(throws: WireError.invalidString(tag: 2)) { try Refused(body: s(2, 257)) }
        #expect(throws: WireError.invalidString(tag: 1)) { try PairRequest(body: s(1, 65)) }
        #expect(throws: WireError.invalidString(tag: 2)) { try LaunchOutcome(body: s(2, 201)) }
        #expect(throws: WireError.invalidString(tag: 3)) { try ClipFetch(body: s(3, 129)) }
        #expect(throws: WireError.invalidString(tag: 2)) { try PadIdentity(body: s(2, 33)) }
        #expect(throws: WireError.invalidString(tag: 2)) { try Refused(body: [0x02, 0x02, 0xC3, 0x28]) }
        #expect((try? Refused(body: s(2, 256)))?.reason.count == 256)
    }

    @Test func redirectChecks() {
        #expect(throws: WireError.valueOutOfRange(tag: 2, value: 0)) { try Redirect(body: Redirect(port: 0).body) }
        for pin in [String(repeating: "ab", count: 31), String(repeating: "zz", count: 32), String(repeating: "ab", count: 33)] {
            #expect(throws: WireError.self) { try Redirect(body: Redirect(port: 9778, pin: pin).body) }
        }
        #expect((try? Redirect(body: Redirect(port: 9778, pin: String(repeating: "aB", count: 32)).body)) != nil)
    }

    @Test func messageBoundsAreEnforced() {
        let tooWide = CursorShape(serial: 1, width: 121, height: 1, hotX: 0, hotY: 0, rgba: [UInt8](repeating: 0, count: 484))
        #expect(throws: WireError.valueOutOfRange(tag: 2, value: 121)) { try CursorShape(body: tooWide.body) }
        let short = CursorShape(serial: 1, width: 1, height: 1, hotX: 0, hotY: 0, rgba: [0, 0, 0])
        #expect(throws: WireError.wrongLength(what: "cursor rgba", expected: 4, found: 3)) { try CursorShape(body: short.body) }

        var many = FieldWriter()
        for _ in 0...ClipboardLimits.maxKinds { many.bytes(2, [UInt8](repeating: 0, count: 8)) }
        #expect(throws: WireError.self) { try ClipOffer(body: many.bytes) }
        var torn = FieldWriter()
        torn.bytes(2, [1, 2, 3])
        #expect(throws: WireError.self) { try ClipOffer(body: torn.bytes) }

        #expect(throws: WireError.valueOutOfRange(tag: 4, value: 4)) { try PadIdentity(body: PadIdentity(pad: 0, serial: "", slot: 4).body) }
        #expect(throws: WireError.self) { try PadIdentity(body: PadIdentity(pad: 0, serial: "", replies: [4, 1, 2]).body) }
        #expect(throws: WireError.self) { try PadFeature(body: PadFeature(pad: 1, data: []).body) }
        #expect(throws: WireError.self) { try PadFeature(body: PadFeature(pad: 1, data: [UInt8](repeating: 0, count: 65)).body) }
    }

    @Test func aFieldRunningPastTheBodyRejectsTheMessage() {
        #expect(throws: WireError.fieldOverrun(tag: 1, length: 4, remaining: 3)) { try SetBitrate(body: [0x01, 0x04, 1, 2, 3]) }
        #expect(throws: WireError.self) { try Ready(body: [0x01]) }
    }

    @Test func typedDecodeRefusesAnotherFrameType() {
        #expect(throws: WireError.self) { try SetBitrate(frame: PipelineGap(gapMs: 1).frame) }
    }
}
