import XCTest
@testable import PunktfunkWire

/// The rate loop's rules, with expected values from control-plane.md §5.1–5.3 and the loop's
/// documented rules (RateLoop's doc comment), never read back from the code.
final class RateLoopTests: XCTestCase {
    private let ms: UInt64 = 1_000_000
    private let t0: UInt64 = 5_000_000_000

    private func loop(start: UInt32 = 30_000, ceiling: UInt32? = nil, mode: RateLoop.Configuration.Mode = .automatic) -> RateLoop {
        RateLoop(configuration: .init(startKbps: start, ceilingKbps: ceiling, mode: mode))
    }

    /// Frames at 60 fps from `from` for `count` frames; `owdMs(i)` is frame i's delay, bytes at `kbps`.
    @discardableResult
    private func feed(_ l: inout RateLoop, from: UInt64, count: Int, kbps: UInt32, owdMs: (Int) -> Double) -> UInt64 {
        var now = from
        for i in 0..<count {
            now = from + UInt64(i) * 16_666_667
            let bytes = UInt32(UInt64(kbps) * 1000 / 8 / 60)
            l.frameArrived(firstShardOWDNs: Int64(owdMs(i) * 1e6) + 123_456_789, wireBytes: bytes, now: now)
        }
        return now
    }

    private func window(kbps: UInt32, loss: UInt32 = 0, lost: UInt32 = 0) -> RateWindow {
        RateWindow(lossPPM: loss, unrecoverableFrames: lost, wireBytes: UInt64(kbps) * 750 / 8,
                   durationNs: RateLoop.windowNs)
    }

    // MARK: Wire budget

    func testWireBudgetFollowsBudgetFormula() {
        // (20000 − 128) · 1200/1264 = 18865 (floor); · 100/110 = 17150.
        XCTAssertEqual(WireBudget.videoKbps(wireKbps: 20_000, audioKbps: 128, shardPayload: 1200, fecPercent: 10), 17_150)
        XCTAssertEqual(WireBudget.videoKbps(wireKbps: 100, audioKbps: 128, shardPayload: 1200, fecPercent: 10), 0)
        let wire = WireBudget.wireKbps(videoKbps: 17_150, audioKbps: 128, shardPayload: 1200, fecPercent: 10)
        XCTAssertGreaterThanOrEqual(WireBudget.videoKbps(wireKbps: wire, audioKbps: 128, shardPayload: 1200, fecPercent: 10), 17_150)
        XCTAssertLessThanOrEqual(wire, 20_002)
    }

    // MARK: Ramp

    func testRampDoublesFrom5MbpsAndStartsAt70PercentOfTheWall() {
        var r = RampProbe()
        XCTAssertEqual(r.next(), .probe(ProbeRequest(targetKbps: 5_000, durationMs: 25)))
        XCTAssertEqual(r.delivered(kbps: 5_000), .probe(ProbeRequest(targetKbps: 10_000, durationMs: 25)))
        XCTAssertEqual(r.delivered(kbps: 9_500), .probe(ProbeRequest(targetKbps: 20_000, durationMs: 25)))
        XCTAssertEqual(r.delivered(kbps: 18_000), .probe(ProbeRequest(targetKbps: 40_000, durationMs: 25)))
        // 31 000 < 90 % of 40 000: the wall; start 70 % of it.
        XCTAssertEqual(r.delivered(kbps: 31_000), .done(.wall(wallKbps: 31_000, startKbps: 21_700)))
        var l = loop()
        l.applyRamp(.wall(wallKbps: 31_000, startKbps: 21_700), now: t0)
        XCTAssertEqual(l.takeAsk(now: t0), 21_700)
        XCTAssertEqual(l.linkKbps, 31_000)
        XCTAssertEqual(l.lastDecision?.kind, .ramp)
    }

    func testRampWithoutEvidenceOrWallStartsAtTheConfiguredRate() {
        var r = RampProbe()
        _ = r.next()
        XCTAssertEqual(r.delivered(kbps: 0), .done(.noWall))
        var r2 = RampProbe(maxKbps: 20_000)
        _ = r2.next()
        _ = r2.delivered(kbps: 5_000)
        _ = r2.delivered(kbps: 10_000)
        XCTAssertEqual(r2.delivered(kbps: 20_000), .done(.noWall))
        var l = loop(start: 25_000)
        l.applyRamp(.noWall, now: t0)
        XCTAssertEqual(l.askedKbps, 25_000)
        XCTAssertNil(l.takeAsk(now: t0))
    }

    // MARK: Per-frame delay

    func testDelayRiseCutsWithinFramesOnWhatTheLinkDelivered() {
        var l = loop()
        var now = feed(&l, from: t0, count: 120, kbps: 30_000) { _ in 10 }
        // A 3:1 drop: the queue grows 33 ms a frame, arrivals now spaced by the 10 Mbit/s drain.
        var cutAfter: Int?
        for i in 1...12 {
            now += 50 * ms
            let bytes = UInt32(10_000 * 50 / 8)  // 50 ms at 10 Mbit/s
            l.frameArrived(firstShardOWDNs: Int64(min(10 + 33 * i, 110)) * 1_000_000, wireBytes: bytes, now: now)
            if l.cuts > 0 { cutAfter = i; break }
        }
        XCTAssertNotNil(cutAfter)
        XCTAssertLessThanOrEqual(cutAfter ?? 99, 5)
        // 85 % of 10 Mbit/s, below half the 30 Mbit/s in flight.
        XCTAssertEqual(Double(l.askedKbps), 8_500, accuracy: 300)
        XCTAssertEqual(l.lastDecision?.kind, .cut)
        XCTAssertEqual(l.wallKbps.map(Double.init) ?? 0, 10_000, accuracy: 300)
        XCTAssertTrue(l.lastDecision?.reason.text.hasPrefix("delay rose") ?? false)
        XCTAssertEqual(l.takeAsk(now: now), l.askedKbps)
    }

    func testSpikesAndKeyframeDrainsAreNoVerdict() {
        var l = loop()
        var now = feed(&l, from: t0, count: 120, kbps: 30_000) { _ in 10 }
        // One 80 ms spike; a keyframe drain falling 80 → 20.
        for owd in [90.0, 10, 10, 90, 70, 50, 30, 10, 10] {
            now += 16_666_667
            l.frameArrived(firstShardOWDNs: Int64(owd * 1e6), wireBytes: 62_500, now: now)
        }
        XCTAssertEqual(l.cuts, 0)
    }

    func testSlowSustainedRiseCutsOnceRising() {
        var l = loop()
        let start = feed(&l, from: t0, count: 120, kbps: 30_000) { _ in 10 }
        // +1 ms a frame (a 6 % overshoot): 25 ms over the minimum after 15 frames, then 8 more rising.
        feed(&l, from: start + 16_666_667, count: 40, kbps: 28_000) { i in 10 + Double(i + 1) }
        XCTAssertEqual(l.cuts, 1)
    }

    // MARK: Windows

    func testSevereLossCutsAtOnce() {
        var l = loop()
        feed(&l, from: t0, count: 45, kbps: 30_000) { _ in 10 }
        l.windowClosed(window(kbps: 30_000, loss: 71_000), now: t0 + 750 * ms)
        XCTAssertEqual(l.askedKbps, 21_000)  // ×0.7: the link carried the rate
        XCTAssertEqual(l.lastDecision?.reason.text, "loss 7.1 %")
    }

    func testLinkShortSevereLossCutsOnDelivered() {
        var l = loop()
        l.windowClosed(window(kbps: 20_000, loss: 80_000), now: t0 + 750 * ms)
        XCTAssertEqual(l.askedKbps, 17_000)  // 85 % of the 20 000 delivered
    }

    func testRepairedLossAloneNeverCuts() {
        var l = loop()
        var now = t0
        for _ in 0..<40 {
            now += 750 * ms
            l.windowClosed(window(kbps: l.askedKbps, loss: 45_000), now: now)
        }
        XCTAssertEqual(l.cuts, 0)
    }

    func testLossWithLostFramesCutsOnTheSecondWindowInARow() {
        var l = loop()
        l.windowClosed(window(kbps: 30_000, loss: 25_000, lost: 2), now: t0 + 750 * ms)
        XCTAssertEqual(l.cuts, 0)
        l.windowClosed(window(kbps: 30_000, loss: 25_000, lost: 1), now: t0 + 1500 * ms)
        XCTAssertEqual(l.cuts, 1)
        XCTAssertEqual(l.askedKbps, 21_000)
    }

    func testHeadSignatureAsksShapeAndNeverCuts() {
        var l = loop()
        var w = window(kbps: 30_000, loss: 70_000)
        w.head = 12
        w.mid = 1
        w.tail = 2
        l.windowClosed(w, now: t0 + 750 * ms)
        XCTAssertEqual(l.shape, 1)
        XCTAssertEqual(l.cuts, 0)
        XCTAssertEqual(l.lastDecision?.reason.text, "head loss: waking receiver")
        // Socket drops, or as much loss in the middle, are not the signature.
        XCTAssertFalse(RateWindow(head: 12, socketDrops: 1).isHeadSignature)
        XCTAssertFalse(RateWindow(head: 12, mid: 3, tail: 2).isHeadSignature)
        XCTAssertFalse(RateWindow(head: 3).isHeadSignature)
        XCTAssertTrue(RateWindow(head: 4).isHeadSignature)
    }

    func testPipelineGapDiscardsTheWindowInFlight() {
        var l = loop()
        l.pipelineGap(now: t0)
        l.windowClosed(window(kbps: 5_000, loss: 300_000, lost: 10), now: t0 + 750 * ms)
        XCTAssertEqual(l.cuts, 0)
        XCTAssertEqual(l.windowsDiscarded, 1)
        l.windowClosed(window(kbps: 20_000, loss: 300_000, lost: 10), now: t0 + 1500 * ms)
        XCTAssertEqual(l.cuts, 1)
    }

    func testOutageWindowIsNoCapacityVerdict() {
        var l = loop()
        var w = window(kbps: 12_000, loss: 90_000, lost: 9)
        w.longestArrivalGapNs = 150 * ms
        l.windowClosed(w, now: t0 + 750 * ms)
        XCTAssertEqual(l.cuts, 0)
        XCTAssertEqual(l.lastDecision?.reason, .outage)
    }

    func testNamedOutageUndoesItsCut() {
        var l = loop()
        l.windowClosed(window(kbps: 20_000, loss: 80_000), now: t0 + 750 * ms)
        XCTAssertEqual(l.askedKbps, 17_000)
        l.outageNamed(now: t0 + 1_500 * ms)
        XCTAssertEqual(l.askedKbps, 30_000)
        XCTAssertEqual(l.cutsUndone, 1)
    }

    func testCleanWindowsClimbAndCeilingBinds() {
        var l = loop(start: 20_000, ceiling: 28_000)
        var now = t0
        for _ in 0..<20 {
            now += 750 * ms
            l.windowClosed(window(kbps: l.askedKbps), now: now)
        }
        XCTAssertEqual(l.askedKbps, 28_000)
        XCTAssertEqual(l.climbs, 2)  // 20 000 → 25 000 → 28 000
    }

    func testNoClimbWhenTheRateIsNotUsed() {
        var l = loop(start: 20_000)
        var now = t0
        for _ in 0..<10 {
            now += 750 * ms
            l.windowClosed(window(kbps: 14_000), now: now)  // under ¾ of 20 000
        }
        XCTAssertEqual(l.climbs, 0)
        XCTAssertEqual(l.lastDecision?.reason, .appLimited)
    }

    // MARK: Acks

    func testAskLimitsAndSilence() {
        var l = loop()
        l.windowClosed(window(kbps: 20_000, loss: 80_000), now: t0)
        XCTAssertEqual(l.takeAsk(now: t0), 17_000)
        XCTAssertNil(l.takeAsk(now: t0 + 1 * ms))  // one ask per change
        // Unanswered: a copy after 3 s, at most 3 out.
        XCTAssertEqual(l.takeAsk(now: t0 + 3_000 * ms), 17_000)
        XCTAssertEqual(l.takeAsk(now: t0 + 6_000 * ms), 17_000)
        XCTAssertEqual(l.asksUnanswered, 3)
        XCTAssertNil(l.takeAsk(now: t0 + 9_000 * ms))
        // 10 s without an answer: silent.
        XCTAssertNil(l.takeAsk(now: t0 + 10_000 * ms))
        XCTAssertTrue(l.silent)
        l.windowClosed(window(kbps: 5_000, loss: 80_000), now: t0 + 10_500 * ms)
        XCTAssertEqual(l.cuts, 1)
        // A late answer revives it.
        l.acknowledged(kbps: 17_000, reason: .granted, now: t0 + 11_000 * ms)
        XCTAssertFalse(l.silent)
        XCTAssertEqual(l.asksUnanswered, 0)
        XCTAssertEqual(l.grantedKbps, 17_000)
    }

    func testEncoderLimitIsACeiling() {
        var l = loop(start: 20_000)
        l.acknowledged(kbps: 18_000, reason: .encoderLimit, now: t0)
        XCTAssertEqual(l.askedKbps, 18_000)
        XCTAssertEqual(l.ceilingKbps, 18_000)
        var now = t0
        for _ in 0..<10 { now += 750 * ms; l.windowClosed(window(kbps: 18_000), now: now) }
        XCTAssertEqual(l.askedKbps, 18_000)
        XCTAssertNil(l.takeAsk(now: now))
    }

    func testCadenceHoldsClimbsAndASecondCuts() {
        var l = loop(start: 20_000)
        l.acknowledged(kbps: 20_000, reason: .cadence, now: t0)
        var now = t0
        for _ in 0..<6 { now += 750 * ms; l.windowClosed(window(kbps: 20_000), now: now) }
        XCTAssertEqual(l.askedKbps, 20_000)
        XCTAssertEqual(l.lastDecision?.reason, .cadence)
        l.acknowledged(kbps: 20_000, reason: .cadence, now: now)
        XCTAssertEqual(l.askedKbps, 17_500)  // 7/8
        XCTAssertEqual(l.cuts, 1)
    }

    func testGovernorShareIsACeilingUntilReleased() {
        var l = loop(start: 30_000)
        l.acknowledged(kbps: 12_000, reason: .governor, now: t0)
        XCTAssertEqual(l.askedKbps, 12_000)
        XCTAssertNil(l.takeAsk(now: t0))  // the host already applied it
        XCTAssertEqual(l.ceilingKbps, 12_000)
        l.acknowledged(kbps: 0, reason: .governor, now: t0 + 5_000 * ms)
        XCTAssertEqual(l.ceilingKbps, RateLoop.automaticMaxKbps)
    }

    func testPinnedStopsAsking() {
        var l = loop()
        l.acknowledged(kbps: 25_000, reason: .pinned, now: t0)
        l.windowClosed(window(kbps: 10_000, loss: 90_000), now: t0 + 750 * ms)
        XCTAssertEqual(l.cuts, 0)
        XCTAssertNil(l.takeAsk(now: t0 + 750 * ms))
    }

    func testFixedModeNeverAsks() {
        var l = loop(mode: .fixed)
        l.windowClosed(window(kbps: 5_000, loss: 90_000, lost: 5), now: t0)
        feed(&l, from: t0, count: 60, kbps: 5_000) { i in 10 + Double(i) * 5 }
        XCTAssertNil(l.takeAsk(now: t0 + 2_000 * ms))
        XCTAssertEqual(l.linkKbps, 0)
        XCTAssertEqual(l.cuts, 0)
    }

    func testLogLineIsOneJSONObject() throws {
        var l = loop()
        l.windowClosed(window(kbps: 20_000, loss: 80_000), now: t0)
        let line = l.logLine(now: t0)
        let obj = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        for key in ["t_ms", "asked", "granted", "delivered_kbps", "owd_rise_ms", "loss_ppm", "verdict", "reason"] {
            XCTAssertNotNil(obj[key], key)
        }
        XCTAssertEqual(obj["verdict"] as? String, "cut")
        XCTAssertEqual(obj["asked"] as? Int, 17_000)
        XCTAssertFalse(line.contains("\n"))
    }
}
