import Testing
import PunktfunkWire

/// The stall ledger against issue 41's text: a stall is a frozen picture, a loss burst or a
/// one-way-delay step over 50 ms; its cause is the nearest event within ±1 s or none seen; a
/// period is named when ≥ 3 stalls fall within ±2 s of one spacing; a named Wi-Fi cause is an
/// outage for the rate loop. The streams here are 60 fps (16.67 ms frames) with a 5 ms base delay;
/// a frame's capture time (pts) is its arrival minus its delay.
@Suite struct StallLedgerTests {
    let ms: UInt64 = 1_000_000
    let interval: UInt64 = 16_666_667

    /// The frame captured at `t` (the stream numbers a frame per interval).
    func number(_ t: UInt64) -> UInt32 { UInt32(t / interval) }

    /// Frames every interval from `from` to `to` (exclusive) at the base delay.
    func stream(_ l: inout StallLedger, from: UInt64, to: UInt64, owd: Int64 = 5_000_000) {
        var t = from
        while t < to {
            l.frameArrived(frame: number(t), ptsNs: Int64(t) - owd, now: t)
            t += interval
        }
    }

    func news(_ l: inout StallLedger) -> Bool { l.takeOutageNews() }
    func settle(_ l: inout StallLedger, _ now: UInt64) -> Int { l.settle(now: now) }

    /// A frozen picture: no frame for `gap`, then the held frames arrive late (their delay risen).
    func freeze(_ l: inout StallLedger, at: UInt64, gap: UInt64) {
        l.frameArrived(frame: number(at), ptsNs: Int64(at) - 5_000_000, now: at + gap)
    }

    @Test func aCleanStreamHasNoStall() {
        var l = StallLedger()
        stream(&l, from: 0, to: 10_000 * ms)
        l.settle(now: 12_000 * ms)
        #expect(l.total == 0)
        #expect(l.summary == "no stalls")
        #expect(!news(&l))
    }

    @Test func anIdleDesktopsSparseFramesAreNoFreeze() {
        // Frames only on change: 700 ms apart in capture time and in arrival.
        var l = StallLedger()
        for k in 0..<20 { l.frameArrived(frame: UInt32(k), ptsNs: Int64(k) * 700_000_000 - 5_000_000, now: UInt64(k) * 700 * ms) }
        l.settle(now: 20_000 * ms)
        #expect(l.total == 0)
    }

    @Test func framesThatNeverCameAreAFreeze() {
        // A reconnect: 4 s without a frame; the frames captured meanwhile were lost, the first
        // after it is on time (its delay the base one) but 240 numbers on.
        var l = StallLedger()
        stream(&l, from: 0, to: 1_000 * ms)
        stream(&l, from: 5_000 * ms, to: 7_000 * ms)
        l.settle(now: 7_000 * ms)
        #expect(l.total == 1)
        #expect(l.last?.symptoms == .frozen)
        #expect(l.last.map { $0.lengthMs >= 3_960 && $0.lengthMs <= 4_000 } == true, "\(String(describing: l.last))")
    }

    @Test func anEpochsNewNumberingIsNoFreeze() {
        var l = StallLedger()
        stream(&l, from: 0, to: 1_000 * ms)
        // the next epoch numbers from 0, on time
        l.frameArrived(frame: 0, ptsNs: Int64(1_000 * ms) + Int64(interval) - 5_000_000, now: 1_000 * ms + interval)
        l.frameArrived(frame: 1, ptsNs: Int64(1_000 * ms) + 2 * Int64(interval) - 5_000_000, now: 1_000 * ms + 2 * interval)
        l.settle(now: 5_000 * ms)
        #expect(l.total == 0)
    }

    @Test func aDelayOf49msIsNoStallAnd50msIs() {
        var l = StallLedger()
        stream(&l, from: 0, to: 1_000 * ms)
        l.frameArrived(frame: number(1_000 * ms), ptsNs: Int64(1_000 * ms) - 5_000_000 - 49_000_000, now: 1_000 * ms)
        stream(&l, from: 1_017 * ms, to: 3_000 * ms)
        l.settle(now: 3_000 * ms)
        #expect(l.total == 0)
        l.frameArrived(frame: number(3_000 * ms), ptsNs: Int64(3_000 * ms) - 5_000_000 - 50_000_000, now: 3_000 * ms)
        stream(&l, from: 3_017 * ms, to: 5_000 * ms)
        l.settle(now: 5_000 * ms)
        #expect(l.total == 1)
        #expect(l.last?.symptoms == .delayStep)
        #expect(l.last?.worstMs == 50)
    }

    @Test func aStallDuringAScanIsTheScansAndAnOutage() {
        var l = StallLedger()
        stream(&l, from: 0, to: 2_000 * ms)
        l.scanStarted(at: 2_000 * ms)
        #expect(!news(&l), "a scan alone is no stall")
        freeze(&l, at: 2_100 * ms, gap: 120 * ms)
        #expect(news(&l), "told at once: the scan was open")
        l.scanEnded(at: 2_400 * ms)
        stream(&l, from: 2_237 * ms, to: 4_000 * ms)
        #expect(settle(&l, 4_000 * ms) == 1)
        #expect(l.last?.cause == .scan)
        #expect(l.last?.symptoms == [.frozen, .delayStep])
        #expect(!news(&l), "told once per stall")
        #expect(l.counts[StallLedger.Cause.scan.rawValue] == 1)
    }

    @Test func aScanReportedAfterTheStallStillNamesIt() {
        // The scan's events come late (the results after the dwells); within 1 s it is the cause.
        var l = StallLedger()
        stream(&l, from: 0, to: 1_000 * ms)
        freeze(&l, at: 1_000 * ms, gap: 100 * ms)
        #expect(!news(&l))
        l.scanEnded(at: 1_900 * ms)   // no trigger seen: a scan of unknown start ending here
        #expect(news(&l))
        stream(&l, from: 1_117 * ms, to: 3_000 * ms)
        l.settle(now: 3_000 * ms)
        #expect(l.last?.cause == .scan)
    }

    @Test func anEventOverOneSecondAwayIsNotTheCause() {
        var l = StallLedger()
        stream(&l, from: 0, to: 1_000 * ms)
        l.event(.roam, at: 1_000 * ms)
        stream(&l, from: 1_000 * ms, to: 2_200 * ms)
        freeze(&l, at: 2_200 * ms, gap: 100 * ms)   // the stall starts 1.217 s after the roam
        stream(&l, from: 2_317 * ms, to: 3_500 * ms)
        l.event(.beaconLoss, at: 3_500 * ms)          // and ends 1.1 s before this
        stream(&l, from: 3_500 * ms, to: 5_000 * ms)
        l.settle(now: 5_000 * ms)
        #expect(l.total == 1)
        #expect(l.last?.cause == StallLedger.Cause.none)
        #expect(!news(&l), "a stall with no event near it is no outage")
        #expect(l.summary == "stalls 1: none seen 1")
    }

    @Test func theNearestOfTwoEventsWins() {
        var l = StallLedger()
        stream(&l, from: 0, to: 1_000 * ms)
        l.event(.beaconLoss, at: 1_100 * ms)
        l.event(.roam, at: 1_800 * ms)
        stream(&l, from: 1_000 * ms, to: 1_900 * ms)
        freeze(&l, at: 1_900 * ms, gap: 200 * ms)
        stream(&l, from: 2_117 * ms, to: 4_000 * ms)
        l.settle(now: 4_000 * ms)
        #expect(l.last?.cause == .roam)
        let offset = try! #require(l.last?.causeOffsetNs)
        #expect(offset <= -99 * Int64(ms) && offset >= -101 * Int64(ms), "the roam 100 ms before the stall: \(offset)")
    }

    @Test func ofOverlappingEventsTheOneThatBeganTheStallWins() {
        // A reconnect: the disconnect begins a 4 s outage, wpa_supplicant scans 0.4 s into it.
        var l = StallLedger()
        stream(&l, from: 0, to: 1_000 * ms)
        l.event(.roam, at: 1_010 * ms)
        l.scanStarted(at: 1_400 * ms)
        l.scanEnded(at: 4_800 * ms)
        l.event(.roam, at: 4_900 * ms)
        stream(&l, from: 5_000 * ms, to: 7_000 * ms)
        l.settle(now: 7_000 * ms)
        #expect(l.last?.cause == .roam)
        let offset = try! #require(l.last?.causeOffsetNs)
        #expect(offset.magnitude < 20 * ms, "the disconnect, not the connect: \(offset)")
    }

    @Test func lossWithinHalfASecondIsOneStall() {
        var l = StallLedger()
        stream(&l, from: 0, to: 1_000 * ms)
        l.frameLost(now: 1_000 * ms)
        l.frameLost(now: 1_300 * ms)
        l.frameLost(now: 1_700 * ms)
        l.frameLost(now: 2_300 * ms)   // 600 ms after the last: a stall of its own
        stream(&l, from: 1_000 * ms, to: 4_000 * ms)
        l.settle(now: 4_000 * ms)
        #expect(l.total == 2)
        #expect(l.settled.map(\.symptoms) == [.lossBurst, .lossBurst])
        #expect(l.settled.first?.lengthMs == 700)
    }

    @Test func scansEverySixSecondsAreAPeriodWithAdvice() {
        var l = StallLedger()
        var t: UInt64 = 0
        for k in 0..<4 {
            let scan = UInt64(2_000 + 6_000 * k + [0, 0, 400, 200][k]) * ms   // 6.0, 6.4, 5.8 s apart: within ±2 s
            stream(&l, from: t, to: scan)
            l.scanStarted(at: scan)
            freeze(&l, at: scan + 50 * ms, gap: 90 * ms)
            l.scanEnded(at: scan + 400 * ms)
            t = scan + 157 * ms
            if k < 2 { l.settle(now: scan + 1_500 * ms); #expect(l.period == nil, "two stalls are no period") }
        }
        stream(&l, from: t, to: t + 2_000 * ms)
        l.settle(now: t + 2_000 * ms)
        #expect(l.total == 4)
        let p = try! #require(l.period)
        #expect(p.cause == .scan)
        #expect(p.stalls == 4)
        #expect(p.spacingNs >= 6_000 * ms && p.spacingNs <= 6_150 * ms, "18.2 s over three spacings: \(p.spacingNs)")
        #expect(p.advice.hasPrefix("stalls every 6.1 s follow background scans."))
        #expect(l.summary == "stalls 4: scan 4, every 6.1 s")
        #expect(l.json.contains("\"period_s\":6.1,\"period_cause\":\"scan\",\"period_stalls\":4"))
    }

    @Test func fiveMinuteScansNameNetworkManager() {
        var l = StallLedger()
        var t: UInt64 = 0
        for k in 0..<3 {
            let scan = UInt64(10 + 300 * k) * 1_000 * ms
            stream(&l, from: t, to: scan)
            l.scanStarted(at: scan)
            freeze(&l, at: scan, gap: 100 * ms)
            l.scanEnded(at: scan + 200 * ms)
            t = scan + 117 * ms
        }
        stream(&l, from: t, to: t + 2_000 * ms)
        l.settle(now: t + 2_000 * ms)
        #expect(l.total == 3)
        let p = try! #require(l.period)
        #expect(p.advice.contains("NetworkManager scans every 5 min when it sees two access points"))
        #expect(p.advice.hasPrefix("stalls every 300 s follow background scans"))
    }

    /// A stream with an 80 ms freeze at each of `times` (ms), settled 2 s after the last.
    func freezes(at times: [UInt64]) -> StallLedger {
        var l = StallLedger()
        var t: UInt64 = 0
        for at in times {
            stream(&l, from: t, to: at * ms)
            freeze(&l, at: at * ms, gap: 80 * ms)
            t = at * ms + 97 * ms
        }
        stream(&l, from: t, to: t + 2_000 * ms)
        l.settle(now: t + 2_000 * ms)
        return l
    }

    @Test func stallsCloserThanFourSecondsAreNoPeriod() {
        // One scan's dwells a second apart are a burst, not a schedule.
        let l = freezes(at: [1_000, 2_000, 3_000, 4_000, 5_000, 6_000])
        #expect(l.total == 6)
        #expect(l.period == nil)
    }

    @Test func irregularStallsAreNoPeriod() {
        let l = freezes(at: [2_000, 9_000, 21_000, 26_000])   // spacings 7, 12, 5 s
        #expect(l.total == 4)
        #expect(l.period == nil)
    }

    @Test func aPeriodWithoutEventsSaysSo() {
        let l = freezes(at: [2_000, 10_000, 18_000])
        let p = try! #require(l.period)
        #expect(p.cause == StallLedger.Cause.none)
        #expect(p.advice.hasPrefix("stalls every 8.0 s with no Wi-Fi event near them"))
    }

    @Test func stallsOfDifferentCausesInStepAreNoPeriod() {
        // none, scan, none 8 s apart (what a short stream with one scan can show): no schedule.
        var l = StallLedger()
        var t: UInt64 = 0
        for (k, at) in ([2_000, 10_000, 18_000] as [UInt64]).enumerated() {
            stream(&l, from: t, to: at * ms)
            if k == 1 { l.scanStarted(at: at * ms - 100 * ms) }
            freeze(&l, at: at * ms, gap: 80 * ms)
            if k == 1 { l.scanEnded(at: at * ms + 300 * ms) }
            t = at * ms + 97 * ms
        }
        stream(&l, from: t, to: t + 2_000 * ms)
        l.settle(now: t + 2_000 * ms)
        #expect(l.settled.map(\.cause) == [StallLedger.Cause.none, .scan, StallLedger.Cause.none])
        #expect(l.period == nil)
    }

    @Test func aWakingReceiverIsNamedButIsNoOutage() {
        var l = StallLedger()
        stream(&l, from: 0, to: 1_000 * ms)
        l.event(.wakingReceiver, at: 1_000 * ms)
        l.frameLost(now: 1_050 * ms)
        stream(&l, from: 1_000 * ms, to: 3_000 * ms)
        l.settle(now: 3_000 * ms)
        #expect(l.last?.cause == .wakingReceiver)
        #expect(!news(&l))
    }

    @Test func theDelayFloorRollsSoAnOldMinimumIsForgotten() {
        // The path's base delay rises 60 ms for good at 3 s: one step, then no stall once the
        // floor has rolled (after at most two 5 s buckets).
        var l = StallLedger()
        stream(&l, from: 0, to: 3_000 * ms)
        stream(&l, from: 3_000 * ms, to: 30_000 * ms, owd: 65_000_000)
        l.settle(now: 30_000 * ms)
        #expect(l.total >= 1)
        let last = try! #require(l.settled.last)
        #expect(last.endNs < 15_100 * ms, "the raised floor is the new minimum within two buckets")
    }

    @Test func theStreamsEndSettlesWhatIsPending() {
        var l = StallLedger()
        stream(&l, from: 0, to: 1_000 * ms)
        l.event(.roam, at: 1_000 * ms)
        freeze(&l, at: 1_000 * ms, gap: 300 * ms)
        #expect(l.settle(now: 1_400 * ms) == 0, "its second has not passed")
        #expect(l.settle(now: .max) == 1)
        #expect(l.last?.cause == .roam)
    }

    @Test func storageIsBounded() {
        var l = StallLedger()
        for k in 0..<100 {
            l.frameLost(now: UInt64(k) * 2_000 * ms)
            l.event(.roam, at: UInt64(k) * 2_000 * ms + 10 * ms)
            l.settle(now: UInt64(k) * 2_000 * ms + 1_500 * ms)
        }
        #expect(l.total == 100)
        #expect(l.settled.count == StallLedger.capacity)
        #expect(l.counts[StallLedger.Cause.roam.rawValue] == 100)
    }
}
