import Testing
@testable import PunktfunkWire

/// The 8-round probe/echo batch (control-plane.md §4.1–§4.2): rounds matched by t1, stale and
/// duplicate echoes ignored, probes stamped at send time.
@Suite struct ClockBatchTests {
    static let off: Int64 = 1_000_000

    /// Host +1 ms, `oneWay` each way, 10 µs processing.
    func echo(_ t1: UInt64, oneWay: Int64) -> (t2: UInt64, t3: UInt64, t4: UInt64) {
        let t2 = UInt64(Int64(t1) + oneWay + Self.off)
        let t3 = t2 + 10_000
        return (t2, t3, UInt64(Int64(t3) - Self.off + oneWay))
    }

    @Test func collectsRoundsAndIgnoresStaleEchoes() {
        var b = ClockBatch()
        var x = echo(42, oneWay: 100_000)
        #expect(b.handleEcho(t1: 42, t2: x.t2, t3: x.t3, now: x.t4) == .ignored)   // nothing in flight
        var t1 = b.begin(now: 1_000_000)
        #expect(b.handleEcho(t1: 42, t2: x.t2, t3: x.t3, now: x.t4) == .ignored)   // abandoned probe
        for round in 0..<ClockSync.rounds {
            let oneWay: Int64 = round == 3 ? 5_000_000 : 100_000                    // one congested round
            x = echo(t1, oneWay: oneWay)
            let step = b.handleEcho(t1: t1, t2: x.t2, t3: x.t3, now: x.t4)
            if round < ClockSync.rounds - 1 {
                #expect(step == .moreRounds)
                #expect(b.handleEcho(t1: t1, t2: x.t2, t3: x.t3, now: x.t4) == .ignored)   // duplicate
                t1 = b.nextProbe(now: x.t4 + 7_000_000)
            } else {
                guard case .done(let best) = step else { Issue.record("batch did not finish"); return }
                #expect(best.offset == Self.off)
                #expect(best.rtt == 200_000)   // 2 × 100 µs; host processing excluded
            }
        }
        #expect(b.handleEcho(t1: t1, t2: 0, t3: 0, now: t1 + 300_000) == .ignored)  // replay after done
        // begin() mid-batch: the older probe's echo is stale.
        let old = b.begin(now: 2_000_000)
        let fresh = b.begin(now: 3_000_000)
        #expect(b.handleEcho(t1: old, t2: 0, t3: 0, now: 2_300_000) == .ignored)
        #expect(b.handleEcho(t1: fresh, t2: 0, t3: 0, now: 3_300_000) == .moreRounds)
        #expect(b.samples.count == 1)
    }
}
