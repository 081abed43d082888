import Testing
@testable import HEVC

@Suite struct BitReaderTests {
    @Test func fixedWidthReads() throws {
        var r = BitReader([0b1010_1100, 0xFF, 0x00, 0x12, 0x34, 0x56, 0x78])
        #expect(try r.readBits(1, "a") == 1)
        #expect(try r.readBits(3, "b") == 0b010)
        #expect(try r.readFlag("c"))
        #expect(try r.readBits(7, "d") == 0b100_1111)
        #expect(r.bitPosition == 12)
        #expect(!r.isByteAligned)
        _ = try r.readBits(12, "e")
        #expect(try r.readBits(32, "f") == 0x1234_5678)
        #expect(r.bitsRemaining == 0)
    }

    /// Table 9-2 / 9-3: codeNum 0…8 and their se(v) mappings.
    @Test func expGolomb() throws {
        // 1 010 011 00100 00101 00110 00111 0001000 0001001 → codeNums 0…8
        let bits = "1" + "010" + "011" + "00100" + "00101" + "00110" + "00111" + "0001000" + "0001001"
        var r = BitReader(Self.pack(bits))
        for k in 0...8 { #expect(try r.readUE("x", in: 0...100) == UInt32(k)) }
        var s = BitReader(Self.pack(bits))
        for expected: Int32 in [0, 1, -1, 2, -2, 3, -3, 4, -4] { #expect(try s.readSE("y", in: -10...10) == expected) }
    }

    @Test func largestExpGolomb() throws {
        // 31 zeros, 1, 31 ones → 2^32 − 2.
        var r = BitReader(Self.pack(String(repeating: "0", count: 31) + "1" + String(repeating: "1", count: 31)))
        #expect(try r.readUE("big", in: 0...UInt32.max) == UInt32.max - 1)
        var s = BitReader(Self.pack(String(repeating: "0", count: 32) + "1"))
        #expect(throws: HEVCError.expGolombTooLong(element: "huge", bitPosition: 0)) { try s.readUE("huge", in: 0...UInt32.max) }
    }

    @Test func truncationIsTyped() {
        var r = BitReader([0xAB])
        #expect(throws: HEVCError.truncated(element: "width", bitPosition: 0, bitsNeeded: 9, bitsAvailable: 8)) {
            try r.readBits(9, "width")
        }
        var z = BitReader([0x00])  // leading zeros run off the end
        #expect(throws: HEVCError.self) { try z.readUE("id", in: 0...15) }
    }

    @Test func outOfRangeIsTyped() {
        var r = BitReader(Self.pack("00110"))  // codeNum 5
        #expect(throws: HEVCError.outOfRange(element: "chroma_format_idc", value: 5, allowed: 0...3)) {
            try r.readUE("chroma_format_idc", in: 0...3)
        }
        var s = BitReader(Self.pack("00100"))  // codeNum 3: se = +2
        #expect(throws: HEVCError.outOfRange(element: "pps_cb_qp_offset", value: 2, allowed: -1...1)) {
            try s.readSE("pps_cb_qp_offset", in: -1...1)
        }
    }

    @Test func moreRBSPDataAndTrailingBits() throws {
        var r = BitReader([0b1010_0000, 0x00])  // flag 1, flag 0, then stop bit, cabac zero word
        #expect(r.moreRBSPData)
        _ = try r.readFlag("a")
        _ = try r.readFlag("b")
        #expect(!r.moreRBSPData)
        try r.readRBSPTrailingBits()
        #expect(r.isByteAligned && r.bitPosition == 8)
        var bad = BitReader([0b0100_0000])
        #expect(throws: HEVCError.self) { try bad.readRBSPTrailingBits() }
    }

    @Test func tracingRecordsNamePositionValue() throws {
        var r = BitReader(Self.pack("1" + "011"), tracing: true)
        _ = try r.readFlag("f")
        _ = try r.readSE("s", in: -5...5)
        #expect(r.trace == [SyntaxElement(name: "f", bitPosition: 0, value: 1),
                            SyntaxElement(name: "s", bitPosition: 1, value: -1)])
    }

    /// Packs a string of 0/1 characters into bytes, zero-padded.
    static func pack(_ bits: String) -> [UInt8] {
        var out: [UInt8] = []
        for (i, c) in bits.enumerated() {
            if i % 8 == 0 { out.append(0) }
            if c == "1" { out[out.count - 1] |= 0x80 >> UInt8(i % 8) }
        }
        return out
    }
}
