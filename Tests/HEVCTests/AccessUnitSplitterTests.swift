import Foundation
import Testing
import HEVC

/// The one Annex-B splitter (H.265 7.4.2.4.4 boundaries, Table 7-1 IRAP types), in both of its
/// renderings: canonical 4-byte start codes (the decoder's input) and the stream's own bytes (what
/// a host sends of a file).
@Suite struct AccessUnitSplitterTests {
    /// A NAL unit of `type` behind `startCode`: header byte 2 is 0x80 for a first slice segment.
    static func nal(_ type: UInt8, first: Bool = true, startCode: [UInt8] = [0, 0, 0, 1]) -> [UInt8] {
        startCode + [type << 1, 1, first ? 0x80 : 0x00, 0xAA]
    }

    @Test func splitterGroupsAccessUnits() {
        // VPS, SPS, PPS, slice(first), slice(not first), AUD, slice(first), slice(first)
        let nal: ([UInt8]) -> [UInt8] = { [0, 0, 0, 1] + $0 }
        let stream = nal([0x40, 0x01, 0xAA]) + nal([0x42, 0x01, 0xAA]) + nal([0x44, 0x01, 0xAA])
            + nal([0x26, 0x01, 0x80]) + nal([0x02, 0x01, 0x00]) + nal([0x46, 0x01, 0x50])
            + nal([0x02, 0x01, 0x80]) + nal([0x02, 0x01, 0x80])
        let groups = AccessUnitSplitter.nalUnitGroups(stream)
        #expect(groups.map(\.count) == [5, 2, 1])
        #expect(AccessUnitSplitter.split([]).isEmpty)
        #expect(AccessUnitSplitter.split([0, 0, 1]).isEmpty)
    }

    @Test func annexBSplitsAtAccessUnitBoundaries() {
        // VPS SPS PPS IDR(first slice) | TRAIL(first slice) | AUD TRAIL(first)
        let nal = { (type: UInt8, first: Bool) in Self.nal(type, first: first) }
        let au0 = nal(32, true) + nal(33, true) + nal(34, true) + nal(19, true) + nal(19, false)
        let au1 = nal(1, true)
        let au2 = nal(35, true) + nal(1, true)
        #expect(AccessUnitSplitter.splitPreservingBytes(au0 + au1 + au2) == [au0, au1, au2])
        #expect(AccessUnitSplitter.split(au0 + au1 + au2) == [au0, au1, au2])
    }

    /// 3-byte start codes and trailing zero bytes stay as they are in the stream; the canonical
    /// rendering writes 4-byte start codes and drops the trailing zeros.
    @Test func preservingBytesKeepsStartCodesAndTrailingZeros() {
        let three: [UInt8] = [0, 0, 1]
        let au0 = Self.nal(32) + Self.nal(19, startCode: three) + [0, 0]  // trailing_zero_8bits
        let au1 = Self.nal(1)  // 00 00 00 01 after zeros: the 4-byte form (B.2)
        let au2 = Self.nal(1, startCode: three)
        let stream = [0xFF, 0xEE] + au0 + au1 + au2  // bytes before the first start code are dropped
        #expect(AccessUnitSplitter.splitPreservingBytes(stream) == [au0, au1, au2])
        #expect(AccessUnitSplitter.split(stream) == [Self.nal(32) + Self.nal(19), Self.nal(1), Self.nal(1)])
        #expect(AccessUnitSplitter.splitPreservingBytes([]).isEmpty)
        #expect(AccessUnitSplitter.splitPreservingBytes([0, 0, 1]).isEmpty)
    }

    /// IRAP is nal_unit_type 16…23 (BLA, IDR, CRA and the reserved IRAP types 22, 23).
    @Test func keyframesAreTheIRAPAccessUnits() {
        let aus = [Self.nal(32) + Self.nal(19), Self.nal(1), Self.nal(21), Self.nal(15), Self.nal(16), Self.nal(23),
                   Self.nal(24), Self.nal(39) + Self.nal(22)]
        #expect(AccessUnitSplitter.keyframeIndices(aus) == [0, 2, 4, 5, 7])
        #expect((0...63).filter { NALUnitHeader.isIRAP(nalUnitType: $0) } == Array(16...23))
        #expect(!AccessUnitSplitter.containsIRAP([]))
    }

    /// The committed fixture: 4 access units, an IDR first, and the preserved access units put
    /// back together are the file.
    @Test func committedFixture() throws {
        let bytes = [UInt8](try Data(contentsOf: CommittedFixtureTests.directory.appendingPathComponent("lowdelay-p-64x64.hevc")))
        let aus = AccessUnitSplitter.splitPreservingBytes(bytes)
        #expect(aus.count == 4)
        #expect(AccessUnitSplitter.split(bytes).count == 4)
        #expect(AccessUnitSplitter.keyframeIndices(aus) == [0])
        #expect(Array(aus.joined()) == bytes)
    }
}
