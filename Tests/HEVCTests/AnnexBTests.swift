import Testing
@testable import HEVC

@Suite struct AnnexBTests {
    @Test func threeAndFourByteStartCodes() {
        let stream: [UInt8] = [0xAA, 0x00, 0x00, 0x00, 0x01, 0x40, 0x01, 0x0C,  // garbage, 4-byte SC, VPS
                               0x00, 0x00, 0x01, 0x42, 0x01, 0x99, 0x00, 0x00,  // 3-byte SC, SPS, trailing zeros
                               0x00, 0x00, 0x01, 0x26, 0x01, 0xAF]              // IDR
        #expect(AnnexB.nalUnits(in: stream) == [[0x40, 0x01, 0x0C], [0x42, 0x01, 0x99], [0x26, 0x01, 0xAF]])
    }

    @Test func degenerateInputs() {
        #expect(AnnexB.nalUnits(in: []).isEmpty)
        #expect(AnnexB.nalUnits(in: [0, 0, 1]).isEmpty)
        #expect(AnnexB.nalUnits(in: [0, 0, 1, 0, 0, 1, 0x40]) == [[0x40]])
        #expect(AnnexB.nalUnits(in: [1, 2, 3]).isEmpty)
        #expect(AnnexB.nalUnits(in: [0, 0, 0, 0, 0]).isEmpty)
    }

    /// The splitter (memchr-driven) against the rule written out byte by byte (B.2): on random
    /// streams dense in zero bytes, start codes and 00 00 00 runs, every range is the same.
    @Test func splitterMatchesTheByteByByteRule() {
        func reference(_ s: [UInt8]) -> [Range<Int>] {
            var out: [Range<Int>] = [], start: Int?, i = 0
            func close(_ end: Int) {
                guard let b = start else { return }
                var e = end
                while e > b, s[e - 1] == 0 { e -= 1 }
                if e > b { out.append(b..<e) }
                start = nil
            }
            while i + 2 < s.count {
                if s[i] == 0, s[i + 1] == 0, s[i + 2] <= 1 {
                    close(i)
                    if s[i + 2] == 1 { start = i + 3; i += 3 } else { i += 1 }
                } else {
                    i += 1
                }
            }
            close(s.count)
            return out
        }
        var state: UInt64 = 0x5EED_A11B
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 33 }
        for round in 0..<400 {
            let length = Int(next() % 600)
            var s: [UInt8] = []
            while s.count < length {
                switch next() % 8 {
                case 0: s += [0, 0, 1]
                case 1: s += [0, 0, 0, 1]
                case 2: s += [0, 0, 0]
                case 3: s += [0, 0]
                case 4: s += [0]
                default: s.append(UInt8(truncatingIfNeeded: next()))
                }
            }
            #expect(AnnexB.nalUnitRanges(in: s) == reference(s), "round \(round): \(s.prefix(40))")
        }
    }

    @Test func emulationPreventionRemoval() {
        let r = RBSP(escaped: [0x40, 0x01, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x03, 0x00, 0x03, 0xFF, 0x00, 0x00, 0x03])
        #expect(r.bytes == [0x40, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03, 0xFF, 0x00, 0x00])
        #expect(r.removedPositions == [4, 7, 12])
        #expect(r.emulationPreventionBytes(before: 5) == 1)
        #expect(r.emulationPreventionBytes(before: 12) == 2)
    }

    @Test func nalHeader() throws {
        let h = try NALUnitHeader([0x42, 0x01])  // SPS, layer 0, tid+1 = 1
        #expect(h.nalUnitType == 33 && h.type == .sps && h.nuhLayerId == 0 && h.nuhTemporalIdPlus1 == 1)
        let idr = try NALUnitHeader([0x26, 0x01])
        #expect(idr.type == .idrWRADL && idr.isIRAP && idr.isVCL)
        #expect(throws: HEVCError.forbiddenZeroBitSet) { try NALUnitHeader([0xC2, 0x01]) }
        #expect(throws: HEVCError.nalUnitTooShort(length: 1)) { try NALUnitHeader([0x42]) }
        #expect(throws: HEVCError.outOfRange(element: "nuh_temporal_id_plus1", value: 0, allowed: 1...7)) {
            try NALUnitHeader([0x42, 0x00])
        }
    }
}
