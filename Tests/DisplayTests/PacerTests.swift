import Testing
@testable import Display
import PunktfunkWire

/// Scenario tests of `FlipPacer` driven by hand-built event sequences (times in ns).
@Suite struct PacerTests {
    static let t0: UInt64 = 1_000_000_000
    static let hz60: UInt64 = 16_666_667
    static let hz120: UInt64 = 8_333_333

    /// A pacer whose grid was learned from four flips (no frames) at `t0 + k · refresh`.
    static func learned(refresh: UInt64, stream: UInt64, flips: UInt64 = 4) -> FlipPacer {
        var pacer = FlipPacer(.init(streamIntervalNs: stream))
        for k in 0..<flips {
            pacer.flipCompleted(timestampNs: t0 + k * refresh, sequence: UInt32(100 + k), nowNs: t0 + k * refresh + 50_000)
        }
        return pacer
    }

    /// `next` at `now`; after a hold, `next` again at its deadline. Returns the action and the
    /// time it was taken.
    static func commitEventually(_ pacer: inout FlipPacer, nowNs: UInt64) -> (PacerAction, UInt64) {
        let action = pacer.next(nowNs: nowNs)
        guard case .wait(let until?) = action else { return (action, nowNs) }
        return (pacer.next(nowNs: until), until)
    }

    static func drained(_ pacer: inout FlipPacer) -> [UInt64] {
        var ids: [UInt64] = []
        pacer.drainReleasable(into: &ids)
        return ids
    }

    @Test func newestWinsUnderBurst() {
        var pacer = FlipPacer(.init(streamIntervalNs: Self.hz60))
        for id in UInt64(1)...5 { pacer.frameReady(PacedFrame(id: id, readyNs: Self.t0 + id * 100_000)) }
        #expect(pacer.next(nowNs: Self.t0 + 600_000) == .commit(PacedFrame(id: 5, readyNs: Self.t0 + 500_000)))
        #expect(pacer.stats.dropped == 4)
        #expect(Self.drained(&pacer) == [1, 2, 3, 4])
        #expect(Self.drained(&pacer).isEmpty)
    }

    @Test func neverTwoCommitsInFlightAndReleaseAfterNextFlip() {
        var pacer = FlipPacer(.init(streamIntervalNs: Self.hz60))
        let a = PacedFrame(id: 1, readyNs: Self.t0)
        pacer.frameReady(a)
        #expect(pacer.next(nowNs: Self.t0) == .commit(a))
        // Handed out but not yet confirmed: still no second commit.
        let b = PacedFrame(id: 2, readyNs: Self.t0 + 1_000_000)
        pacer.frameReady(b)
        #expect(pacer.next(nowNs: Self.t0 + 1_000_000) == .wait(untilNs: nil))
        pacer.committed(a, nowNs: Self.t0 + 1_000_000)
        #expect(pacer.next(nowNs: Self.t0 + 2_000_000) == .wait(untilNs: nil))
        pacer.flipCompleted(timestampNs: Self.t0 + 5_000_000, sequence: 7, nowNs: Self.t0 + 5_100_000)
        #expect(pacer.onScreen == 1)
        #expect(Self.drained(&pacer).isEmpty)  // a is on screen
        #expect(pacer.next(nowNs: Self.t0 + 5_100_000) == .commit(b))
        pacer.committed(b, nowNs: Self.t0 + 5_100_000)
        #expect(Self.drained(&pacer).isEmpty)  // a still scanned out until b's flip completes
        pacer.flipCompleted(timestampNs: Self.t0 + 5_000_000 + Self.hz60, sequence: 8, nowNs: Self.t0 + 22_000_000)
        #expect(pacer.onScreen == 2)
        #expect(Self.drained(&pacer) == [1])
        #expect(pacer.stats == PacerStats(committed: 2, dropped: 0, repeats: 0, latchMisses: 0, flips: 2))
    }

    @Test func noFrameCommittedTwice() {
        var pacer = Self.learned(refresh: Self.hz60, stream: Self.hz60)
        let f = PacedFrame(id: 1, readyNs: Self.t0 + 3 * Self.hz60 + 2_000_000)
        pacer.frameReady(f)
        #expect(pacer.next(nowNs: f.readyNs) == .commit(f))
        pacer.committed(f, nowNs: f.readyNs)
        pacer.flipCompleted(timestampNs: Self.t0 + 4 * Self.hz60, sequence: 104, nowNs: Self.t0 + 4 * Self.hz60 + 50_000)
        // Further flips (another client's commit, a modeset) and deadlines: nothing new, no commit.
        for k in UInt64(5)...8 {
            pacer.flipCompleted(timestampNs: Self.t0 + k * Self.hz60, sequence: UInt32(100 + k), nowNs: Self.t0 + k * Self.hz60 + 50_000)
            #expect(pacer.next(nowNs: Self.t0 + k * Self.hz60 + 60_000) == .wait(untilNs: nil))
        }
        // A repeated id is ignored, not committed again.
        pacer.frameReady(f)
        #expect(pacer.next(nowNs: Self.t0 + 9 * Self.hz60) == .wait(untilNs: nil))
        #expect(pacer.stats.committed == 1)
    }

    @Test(arguments: [(PacerTests.hz60, UInt64(60)), (PacerTests.hz120, UInt64(120))])
    func refreshLearnedWithinFewFlips(refresh: UInt64, hz: UInt64) throws {
        // Flips at irregular multiples of the refresh (frames skip vblanks), timestamps jittered
        // by up to ±40 µs, sequence advancing with the vblanks.
        var rng = SplitMix64(seed: hz)
        var pacer = FlipPacer(.init(streamIntervalNs: refresh))
        var vblank: UInt64 = 500
        var learnedAfter: Int?
        for flip in 1...8 {
            vblank += 1 + rng.next() % 2
            let jitter = rng.next() % 80_000
            let ts = Self.t0 + vblank * refresh + jitter - 40_000
            pacer.flipCompleted(timestampNs: ts, sequence: UInt32(vblank), nowNs: ts + 100_000)
            if learnedAfter == nil, pacer.refreshIntervalNs != nil { learnedAfter = flip }
        }
        #expect(pacer.hasRealVblank)
        #expect((learnedAfter ?? 99) <= 4)
        // Each sample is off by at most 80 µs / step; the median of the recent ones much less.
        let learned = try #require(pacer.refreshIntervalNs)
        #expect(learned > refresh - 80_000 && learned < refresh + 80_000)
    }

    @Test func vblankClockMedianIgnoresOutlier() {
        var clock = VblankClock()
        let spacings: [UInt64] = [16_666_000, 16_667_000, 16_666_500, 16_700_000, 16_666_800]
        var ts = Self.t0
        var seq: UInt32 = 1
        _ = clock.observe(timestampNs: ts, sequence: seq)
        for s in spacings {
            ts += s
            seq += 1
            #expect(clock.observe(timestampNs: ts, sequence: seq) == 1)
        }
        // median of [16_666_000, 16_667_000, 16_666_500, 16_700_000, 16_666_800]
        #expect(clock.periodNs == 16_666_800)
        // A flip 2 vblanks later is one sample of half its spacing; a reset sequence is ignored.
        ts += 2 * 16_666_700
        #expect(clock.observe(timestampNs: ts, sequence: seq + 2) == 2)
        #expect(clock.observe(timestampNs: ts + 1_000, sequence: 5) == nil)
    }

    @Test func immediateFlipDeviceFollowsStreamWithoutSpinning() {
        var pacer = FlipPacer(.init(streamIntervalNs: Self.hz60, nominalRefreshNs: Self.hz60))
        var now = Self.t0
        var lastCommit: UInt64 = 0
        for id in UInt64(1)...3 {
            let f = PacedFrame(id: id, readyNs: now)
            pacer.frameReady(f)
            #expect(pacer.next(nowNs: now) == .commit(f))
            pacer.committed(f, nowNs: now)
            lastCommit = now
            // bochs: the flip completes 0.3 ms later with sequence 0.
            pacer.flipCompleted(timestampNs: now + 300_000, sequence: 0, nowNs: now + 300_000)
            #expect(pacer.next(nowNs: now + 300_000) == .wait(untilNs: nil))
            now += Self.hz60
        }
        #expect(!pacer.hasRealVblank)
        #expect(pacer.refreshIntervalNs == nil)
        // Two frames right behind the last commit (a burst): held to half a stream interval after
        // it, and only the newest is committed.
        now = lastCommit + 1_000_000
        pacer.frameReady(PacedFrame(id: 4, readyNs: now))
        let earliest = lastCommit + Self.hz60 / 2
        #expect(pacer.next(nowNs: now) == .wait(untilNs: earliest))
        pacer.frameReady(PacedFrame(id: 5, readyNs: now + 200_000))
        #expect(pacer.next(nowNs: now + 200_000) == .wait(untilNs: earliest))
        #expect(pacer.next(nowNs: earliest) == .commit(PacedFrame(id: 5, readyNs: now + 200_000)))
        #expect(pacer.stats.dropped == 1)
        #expect(pacer.stats.repeats == 0 && pacer.stats.latchMisses == 0)
    }

    @Test func missedVblankCountedAsLatchMissAndRepeat() {
        let refresh: UInt64 = 16_665_000  // vkms
        var pacer = Self.learned(refresh: refresh, stream: refresh)
        #expect(pacer.refreshIntervalNs == refresh)
        let a = PacedFrame(id: 1, readyNs: Self.t0 + 3 * refresh + 2_000_000)
        pacer.frameReady(a)
        #expect(pacer.next(nowNs: a.readyNs + 50_000) == .commit(a))
        pacer.committed(a, nowNs: a.readyNs + 50_000)
        pacer.flipCompleted(timestampNs: Self.t0 + 4 * refresh, sequence: 104, nowNs: Self.t0 + 4 * refresh + 50_000)
        #expect(pacer.stats.latchMisses == 0)
        let b = PacedFrame(id: 2, readyNs: Self.t0 + 4 * refresh + 2_000_000)
        pacer.frameReady(b)
        #expect(pacer.next(nowNs: b.readyNs + 50_000) == .commit(b))
        pacer.committed(b, nowNs: b.readyNs + 50_000)
        // Committed 13.6 ms before vblank 105, but the flip completes at 106 (33.3 ms after 104).
        pacer.flipCompleted(timestampNs: Self.t0 + 6 * refresh, sequence: 106, nowNs: Self.t0 + 6 * refresh + 50_000)
        #expect(pacer.stats == PacerStats(committed: 2, dropped: 0, repeats: 1, latchMisses: 1, flips: 6))
        #expect(pacer.refreshIntervalNs == refresh)
        #expect(Self.drained(&pacer) == [1])
    }

    @Test func holdsAFrameWhenANewerOneIsDueBeforeTheLatchPoint() throws {
        // 60 fps on 60 Hz, frames arriving 2.5 ms before each vblank; then one frame decodes late,
        // just after the latch point of vblank 104, with its successor due 2.5 ms before 105.
        var pacer = Self.learned(refresh: Self.hz60, stream: Self.hz60)
        var now: UInt64 = 0
        for (id, k) in zip(UInt64(1)...3, UInt64(4)...6) {
            now = Self.t0 + k * Self.hz60 - 2_500_000
            let f = PacedFrame(id: id, readyNs: now)
            pacer.frameReady(f)
            #expect(pacer.next(nowNs: now) == .commit(f))  // next one due after the latch point
            pacer.committed(f, nowNs: now)
            pacer.flipCompleted(timestampNs: Self.t0 + k * Self.hz60, sequence: UInt32(100 + k), nowNs: Self.t0 + k * Self.hz60 + 50_000)
        }
        let late = PacedFrame(id: 4, readyNs: Self.t0 + 7 * Self.hz60 - 500_000)  // after the 1 ms latch point
        pacer.frameReady(late)
        let action = pacer.next(nowNs: late.readyNs + 50_000)
        guard case .wait(let until?) = action else {
            Issue.record("expected a hold, got \(action)")
            return
        }
        // Held until the latch point of vblank 108 less the wake guard (2 ms until learned).
        let latch108 = Self.t0 + 8 * Self.hz60 - 1_000_000
        #expect(until == latch108 - pacer.holdGuardNs)
        #expect(pacer.holdGuardNs == 2_000_000)
        let newer = PacedFrame(id: 5, readyNs: Self.t0 + 8 * Self.hz60 - 4_000_000)
        pacer.frameReady(newer)
        #expect(pacer.next(nowNs: newer.readyNs + 50_000) == .commit(newer))
        #expect(pacer.stats.dropped == 1)
        #expect(Self.drained(&pacer).contains(4))
    }

    @Test func heldFrameCommittedAtDeadlineWhenNothingNewArrives() {
        // 120 fps stream on a 60 Hz display: a frame just past vblank 104's latch point expects a
        // successor 8.3 ms later, before vblank 105's latch point, and is held; none comes.
        var pacer = Self.learned(refresh: Self.hz60, stream: Self.hz120)
        let late = PacedFrame(id: 1, readyNs: Self.t0 + 4 * Self.hz60 - 500_000)
        pacer.frameReady(late)
        let action = pacer.next(nowNs: late.readyNs)
        guard case .wait(let until?) = action else {
            Issue.record("expected a hold, got \(action)")
            return
        }
        #expect(until == Self.t0 + 5 * Self.hz60 - 1_000_000 - pacer.holdGuardNs)
        #expect(pacer.next(nowNs: until - 1) == .wait(untilNs: until))
        #expect(pacer.next(nowNs: until) == .commit(late))
        pacer.committed(late, nowNs: until)
        pacer.flipCompleted(timestampNs: Self.t0 + 5 * Self.hz60, sequence: 105, nowNs: Self.t0 + 5 * Self.hz60 + 50_000)
        #expect(pacer.stats.latchMisses == 0 && pacer.onScreen == 1)
    }

    @Test func commitsAtOnceWhenNoNewerFrameIsDue() {
        // 30 fps stream on a 60 Hz display: the next frame is 33 ms away.
        var pacer = Self.learned(refresh: Self.hz60, stream: 2 * Self.hz60)
        for (id, k) in zip(UInt64(1)...4, stride(from: UInt64(4), to: 12, by: 2)) {
            let f = PacedFrame(id: id, readyNs: Self.t0 + k * Self.hz60 - 500_000)
            pacer.frameReady(f)
            #expect(pacer.next(nowNs: f.readyNs + 50_000) == .commit(f))
            pacer.committed(f, nowNs: f.readyNs + 50_000)
            pacer.flipCompleted(timestampNs: Self.t0 + (k + 1) * Self.hz60, sequence: UInt32(101 + k), nowNs: Self.t0 + (k + 1) * Self.hz60 + 50_000)
        }
        // Each frame is shown for two refreshes while the stream runs: 3 repeats between 4 flips.
        #expect(pacer.stats == PacerStats(committed: 4, dropped: 0, repeats: 3, latchMisses: 0, flips: 8))
    }

    @Test func repeatsNotCountedWhileTheStreamPauses() {
        var pacer = Self.learned(refresh: Self.hz60, stream: Self.hz60)
        let a = PacedFrame(id: 1, readyNs: Self.t0 + 4 * Self.hz60 - 5_000_000)
        pacer.frameReady(a)
        #expect(pacer.next(nowNs: a.readyNs) == .commit(a))
        pacer.committed(a, nowNs: a.readyNs)
        pacer.flipCompleted(timestampNs: Self.t0 + 4 * Self.hz60, sequence: 104, nowNs: Self.t0 + 4 * Self.hz60 + 50_000)
        // Static content: nothing for 60 refreshes, then b.
        // The first frame after a gap may head a backlog: it may be held, but only up to its
        // vblank's deadline.
        let b = PacedFrame(id: 2, readyNs: Self.t0 + 64 * Self.hz60 - 5_000_000)
        pacer.frameReady(b)
        let (action, at) = Self.commitEventually(&pacer, nowNs: b.readyNs)
        #expect(action == .commit(b))
        pacer.committed(b, nowNs: at)
        pacer.flipCompleted(timestampNs: Self.t0 + 64 * Self.hz60, sequence: 164, nowNs: Self.t0 + 64 * Self.hz60 + 50_000)
        // Active until a.ready + 2 intervals = vblank 4 + 1.7 refreshes: vblank 105 only.
        #expect(pacer.stats.repeats == 1)
    }

    @Test func failedCommitReturnsToPendingAndBacksOff() {
        var pacer = FlipPacer(.init(streamIntervalNs: Self.hz60))
        let a = PacedFrame(id: 1, readyNs: Self.t0)
        pacer.frameReady(a)
        #expect(pacer.next(nowNs: Self.t0) == .commit(a))
        pacer.commitFailed(a, nowNs: Self.t0 + 10_000)
        #expect(pacer.next(nowNs: Self.t0 + 20_000) == .wait(untilNs: Self.t0 + 1_010_000))
        #expect(pacer.next(nowNs: Self.t0 + 1_010_000) == .commit(a))
        // Refused again while a newer frame waits: the refused one is dropped and released.
        let b = PacedFrame(id: 2, readyNs: Self.t0 + 1_100_000)
        pacer.frameReady(b)
        pacer.commitFailed(a, nowNs: Self.t0 + 1_200_000)
        #expect(pacer.stats.dropped == 1)
        #expect(Self.drained(&pacer) == [1])
        #expect(pacer.next(nowNs: Self.t0 + 2_200_000) == .commit(b))
    }

    @Test func outOfOrderFrameIsDroppedAndReleased() {
        var pacer = FlipPacer(.init(streamIntervalNs: Self.hz60))
        pacer.frameReady(PacedFrame(id: 7, readyNs: Self.t0))
        pacer.frameReady(PacedFrame(id: 6, readyNs: Self.t0 + 1_000))
        #expect(pacer.pendingFrame == 7)
        #expect(pacer.stats.dropped == 1)
        #expect(Self.drained(&pacer) == [6])
    }

    @Test func dropAndRepeatCountersExactOnConstructedTrace() {
        // 60 Hz display, 60 fps stream. Per vblank k (104…109) the frames that arrive before its
        // latch point: 104: f1; 105: f2, f3 (burst: f2 dropped); 106: none (repeat);
        // 107: f4; 108: f5; 109: f6.
        var pacer = Self.learned(refresh: Self.hz60, stream: Self.hz60)
        func vblank(_ k: UInt64) -> UInt64 { Self.t0 + k * Self.hz60 }
        func show(_ frames: [PacedFrame], at k: UInt64) {
            for f in frames { pacer.frameReady(f) }
            // A burst or a frame after a gap may be held for a backlog, up to the deadline.
            let (action, now) = Self.commitEventually(&pacer, nowNs: frames.last!.readyNs + 20_000)
            #expect(action == .commit(frames.last!))
            #expect(now < vblank(k) - 1_000_000)
            pacer.committed(frames.last!, nowNs: now)
            pacer.flipCompleted(timestampNs: vblank(k), sequence: UInt32(100 + k), nowNs: vblank(k) + 50_000)
        }
        show([PacedFrame(id: 1, readyNs: vblank(4) - 6_000_000)], at: 4)
        show([PacedFrame(id: 2, readyNs: vblank(5) - 6_100_000), PacedFrame(id: 3, readyNs: vblank(5) - 6_000_000)], at: 5)
        show([PacedFrame(id: 4, readyNs: vblank(7) - 6_000_000)], at: 7)
        show([PacedFrame(id: 5, readyNs: vblank(8) - 6_000_000)], at: 8)
        show([PacedFrame(id: 6, readyNs: vblank(9) - 6_000_000)], at: 9)
        #expect(pacer.stats == PacerStats(committed: 5, dropped: 1, repeats: 1, latchMisses: 0, flips: 9))
    }

    @Test func wakeGuardLearnsFromLateWakeUps() {
        var latency = WakeLatency(maximumNs: 2_000_000)
        for _ in 0..<(WakeLatency.minimumSamples - 1) { latency.observe(latenessNs: 100_000) }
        #expect(latency.guardNs == 2_000_000)  // too few samples: the maximum
        latency.observe(latenessNs: 100_000)
        #expect(latency.guardNs == 100_000 + 12_500 + 50_000)
        latency.observe(latenessNs: 400_000)  // one slower wake-up widens it at once
        #expect(latency.guardNs == 400_000 + 50_000 + 50_000)
        latency.observe(latenessNs: 3_000_000)  // a stall beyond any allowed guard: counted, not learned
        #expect(latency.guardNs == 500_000)
        #expect(latency.stalls == 1)
        // The slow sample is remembered for a whole window of holds, then forgotten.
        for _ in 0..<(WakeLatency.window - 2 * WakeLatency.bucketSamples) { latency.observe(latenessNs: 20_000) }
        #expect(latency.guardNs == 500_000)
        for _ in 0..<(2 * WakeLatency.bucketSamples) { latency.observe(latenessNs: 20_000) }
        #expect(latency.guardNs == WakeLatency.minimumNs)
    }

    static func latch(_ k: UInt64) -> UInt64 { t0 + k * hz60 - 1_000_000 }

    /// 60 fps on 60 Hz, frame n ready 0.3 ms before vblank 103+n's latch point and committed at
    /// once. Frame 2's flip misses vblank 105 and lands at 106, so frame 3, ready for 106, waits
    /// behind it: once 106 has flipped, frame 3 is late already.
    static func lateFrameBehindAMissedFlip() -> (FlipPacer, late: PacedFrame) {
        var pacer = Self.learned(refresh: Self.hz60, stream: Self.hz60)
        for (id, k) in [(UInt64(1), UInt64(4)), (2, 5)] {
            let f = PacedFrame(id: id, readyNs: latch(k) - 300_000)
            pacer.frameReady(f)
            #expect(pacer.next(nowNs: f.readyNs) == .commit(f))
            pacer.committed(f, nowNs: f.readyNs)
            if id == 1 { pacer.flipCompleted(timestampNs: t0 + 4 * hz60, sequence: 104, nowNs: t0 + 4 * hz60 + 50_000) }
        }
        let late = PacedFrame(id: 3, readyNs: latch(6) - 300_000)
        pacer.frameReady(late)
        #expect(pacer.next(nowNs: late.readyNs) == .wait(untilNs: nil))  // frame 2 still in flight
        pacer.flipCompleted(timestampNs: t0 + 6 * hz60, sequence: 106, nowNs: t0 + 6 * hz60 + 50_000)
        #expect(pacer.stats.latchMisses == 1)
        return (pacer, late)
    }

    @Test func lateFrameGivesItsVblankToANewerFrameDueBeforeTheLatchPoint() {
        var (pacer, late) = Self.lateFrameBehindAMissedFlip()
        // Committing frame 3 now would take vblank 107 from frame 4, due before its latch point,
        // and frame 4 would be late in turn (and every frame after it while the rhythm holds).
        #expect(pacer.next(nowNs: Self.t0 + 6 * Self.hz60 + 60_000) == .wait(untilNs: Self.latch(7)))
        let newer = PacedFrame(id: 4, readyNs: Self.latch(7) - 300_000)
        pacer.frameReady(newer)
        #expect(pacer.next(nowNs: newer.readyNs) == .commit(newer))  // on time for vblank 107
        #expect(Self.drained(&pacer) == [1, late.id])
    }

    @Test func lateFrameIsShownWhenItsSuccessorIsOverdue() {
        var (pacer, late) = Self.lateFrameBehindAMissedFlip()
        #expect(pacer.next(nowNs: Self.t0 + 6 * Self.hz60 + 60_000) == .wait(untilNs: Self.latch(7)))
        // Nothing arrives: at vblank 107's latch point frame 4 is late but not yet overdue, so
        // frame 3 waits for vblank 108's; by then frame 4 is overdue by more than half an
        // interval (a pause) and frame 3 is committed.
        #expect(pacer.next(nowNs: Self.latch(7) + 20_000) == .wait(untilNs: Self.latch(8)))
        #expect(pacer.next(nowNs: Self.latch(8) + 20_000) == .commit(late))
    }
}
