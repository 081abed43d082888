import Testing
@testable import Display

@Suite struct DRMEventParserTests {
    func flip(user: UInt64, sec: UInt32, usec: UInt32, seq: UInt32, crtc: UInt32) -> [UInt8] {
        var b: [UInt8] = []
        func u32(_ v: UInt32) { for i in 0..<4 { b.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) } }
        u32(2); u32(32)
        for i in 0..<8 { b.append(UInt8(truncatingIfNeeded: user >> (8 * UInt64(i)))) }
        u32(sec); u32(usec); u32(seq); u32(crtc)
        return b
    }

    @Test func parsesFlipCompletionsAndSkipsOtherEvents() {
        var bytes = flip(user: 7, sec: 12, usec: 345_678, seq: 0, crtc: 35)
        bytes += [1, 0, 0, 0, 16, 0, 0, 0] + [UInt8](repeating: 0xAA, count: 8)  // a vblank event (type 1), skipped
        bytes += flip(user: 8, sec: 13, usec: 1, seq: 99, crtc: 33)
        var events: [FlipEvent] = []
        bytes.withUnsafeBytes { DRMEventParser.parse($0, into: &events) }
        #expect(events == [FlipEvent(sequence: 0, timestampNs: 12_345_678_000, crtc: 35, userData: 7),
                           FlipEvent(sequence: 99, timestampNs: 13_000_001_000, crtc: 33, userData: 8)])
    }

    @Test func truncatedOrZeroLengthRecordsStopTheParse() {
        let one = flip(user: 1, sec: 1, usec: 0, seq: 1, crtc: 1)
        var events: [FlipEvent] = []
        (one + Array(one.prefix(20))).withUnsafeBytes { DRMEventParser.parse($0, into: &events) }
        #expect(events.count == 1)
        events.removeAll()
        ([2, 0, 0, 0, 0, 0, 0, 0] + one).withUnsafeBytes { DRMEventParser.parse($0, into: &events) }
        #expect(events.isEmpty)
    }
}
