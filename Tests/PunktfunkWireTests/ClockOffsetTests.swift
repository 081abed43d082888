import Testing
@testable import PunktfunkWire

/// Per-sample RTT/offset and the min-RTT pick (control-plane.md §4.1), with the §9 `clock.rs`
/// cases.
@Suite struct ClockOffsetTests {
    static let off: Int64 = 1_000_000   // host +1 ms

    /// t2 = t1 + oneWayOut + OFF; t3 = t2 + processing; t4 = t3 − OFF + oneWayBack.
    static func sample(t1: UInt64, out: Int64, back: Int64, processing: UInt64 = 50_000) -> ClockSample {
        let t2 = UInt64(Int64(t1) + out + off)
        let t3 = t2 + processing
        return ClockSample(t1: t1, t2: t2, t3: t3, t4: UInt64(Int64(t3) - off + back))
    }

    @Test func symmetricPathRecoversTheOffset() {
        let s = Self.sample(t1: 0, out: 200_000, back: 200_000)
        #expect(s.offset == 1_000_000)
        #expect(s.rtt == 400_000)
        #expect(s.estimate == ClockEstimate(offset: 1_000_000, rtt: 400_000))
    }

    @Test func minRTTSampleWins() throws {
        let fat = Self.sample(t1: 1_000_000, out: 200_000, back: 5_000_000)   // 5 ms return
        let good = Self.sample(t1: 0, out: 200_000, back: 200_000)
        let best = try #require(ClockSync.best(of: [fat, good]))
        #expect(best == good)
        #expect(best.offset == 1_000_000 && best.rtt == 400_000)
        #expect(ClockSync.best(of: []) == nil)
        // Ties keep the first.
        let twin = Self.sample(t1: 9_000_000, out: 200_000, back: 200_000)
        #expect(ClockSync.best(of: [good, twin]) == good)
        #expect(ClockSync.rounds == 8)
    }

    @Test func rttClampsAtZero() {
        // Host claims more processing time than the round took.
        let s = ClockSample(t1: 1_000, t2: 0, t3: 10_000, t4: 2_000)
        #expect(s.rtt == 0)
    }

    @Test func offsetSignAndTruncationTowardZero() {
        #expect(ClockSample(t1: 10, t2: 5, t3: 5, t4: 10).offset == -5)
        #expect(ClockSample(t1: 0, t2: 1, t3: 1, t4: 1).offset == 0)      // (1 + 0) / 2 truncates
        #expect(ClockSample(t1: 1, t2: 0, t3: 0, t4: 0).offset == 0)      // (−1 + 0) / 2 truncates toward zero
        #expect(ClockSample(t1: 3, t2: 0, t3: 0, t4: 0).offset == -1)     // −3 / 2 = −1
    }

    @Test func extremeStampsDoNotTrap() {
        let s = ClockSample(t1: 0, t2: .max, t3: .max, t4: 0)
        #expect(s.offset == Int64(truncatingIfNeeded: Int128(UInt64.max)))   // 128-bit, truncated to 64
        #expect(s.rtt == 0)
        let r = ClockSample(t1: 0, t2: .max, t3: 0, t4: .max)
        #expect(r.rtt == UInt64(truncatingIfNeeded: Int128(UInt64.max) * 2))
        #expect(r.offset == 0)
        var g = SplitMix64(seed: 0xC10C)
        for _ in 0..<10_000 {
            let x = ClockSample(t1: g.int(), t2: g.int(), t3: g.int(), t4: g.int())
            _ = (x.rtt, x.offset)
        }
    }
}
