import Testing
@testable import PunktfunkWire

/// Mid-stream re-sync admission (control-plane.md §4.2), mirroring the §9 `clock.rs` guard cases.
@Suite struct ClockResyncTests {
    func e(_ offset: Int64, _ rtt: UInt64) -> ClockEstimate { ClockEstimate(offset: offset, rtt: rtt) }

    @Test func acceptanceBand() {
        // 10 ms floor: up to 1.5× inclusive.
        #expect(ClockResync.accepts(rtt: 14_000_000, floor: 10_000_000))
        #expect(ClockResync.accepts(rtt: 15_000_000, floor: 10_000_000))
        #expect(!ClockResync.accepts(rtt: 15_000_001, floor: 10_000_000))
        #expect(!ClockResync.accepts(rtt: 16_000_000, floor: 10_000_000))
        // 200 µs floor: the 2 ms minimum governs, inclusive.
        #expect(ClockResync.accepts(rtt: 1_900_000, floor: 200_000))
        #expect(!ClockResync.accepts(rtt: 2_100_000, floor: 200_000))
        #expect(ClockResync.accepts(rtt: 2_000_000, floor: 0))
        #expect(!ClockResync.accepts(rtt: 2_000_001, floor: 0))
        // 1.5 × floor saturates instead of wrapping.
        #expect(ClockResync.accepts(rtt: .max, floor: .max))
        #expect(ClockResync.accepts(rtt: .max, floor: .max / 3 * 2 + 3))
    }

    @Test func floorTrackingAndBoundedStreak() {
        var g = ClockResync(connectRTT: 400_000)
        #expect(g.admit(e(10, 1_500_000)) == .fresh(e(10, 1_500_000)))
        #expect(g.admit(e(11, 300_000)) == .fresh(e(11, 300_000)))
        #expect(g.floorRTT == 300_000)
        // 4–6 ms all exceed max(2 ms, 1.5 × 300 µs).
        #expect(g.admit(e(100, 6_000_000)) == .rejected(streak: 1))
        #expect(g.admit(e(200, 4_000_000)) == .rejected(streak: 2))
        #expect(g.rejectedStreak == 2)
        // The third applies the streak's lowest-RTT batch, not the last one.
        let third = g.admit(e(300, 5_000_000))
        #expect(third == .bestOfStreak(e(200, 4_000_000)))
        #expect(third.estimateToApply == e(200, 4_000_000))
        #expect(g.rejectedStreak == 0)
        // A new streak starts from scratch.
        #expect(g.admit(e(400, 5_000_000)) == .rejected(streak: 1))
        #expect(g.admit(e(400, 5_000_000)).estimateToApply == nil)
        #expect(g.admit(e(500, 350_000)) == .fresh(e(500, 350_000)))
        #expect(g.rejectedStreak == 0)
    }

    @Test func comparedAgainstThePreBatchFloor() {
        // A batch that is itself the new floor is still judged against the old one: Fresh.
        var g = ClockResync(connectRTT: 10_000_000)
        #expect(g.admit(e(1, 8_000_000)) == .fresh(e(1, 8_000_000)))
        #expect(g.floorRTT == 8_000_000)
    }

    @Test func rejectedBatchesLowerTheFloorToo() {
        var g = ClockResync(connectRTT: 100_000_000)
        #expect(g.admit(e(1, 200_000_000)) == .rejected(streak: 1))
        #expect(g.floorRTT == 100_000_000)
        var h = ClockResync(connectRTT: 1_000_000)
        #expect(h.admit(e(1, 9_000_000)) == .rejected(streak: 1))
        #expect(h.admit(e(2, 0)) == .fresh(e(2, 0)))
        #expect(h.floorRTT == 0)
    }

    @Test func streakTieKeepsTheEarlierBatch() {
        var g = ClockResync(connectRTT: 0)
        _ = g.admit(e(1, 9_000_000))
        _ = g.admit(e(2, 9_000_000))
        #expect(g.admit(e(3, 9_000_000)) == .bestOfStreak(e(1, 9_000_000)))
    }
}
