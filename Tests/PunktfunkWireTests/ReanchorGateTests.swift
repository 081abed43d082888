import Testing
import PunktfunkWire

/// The decoder-side gate of data-plane.md §4.3: after a loss nothing is shown until an IDR
/// (0x04), an RFI anchor (0x20), the second recovery point (0x10), or a close (0x200) after a
/// wave start seen since the loss; a ~500 ms backstop re-asks while frozen; three access units
/// without output arm the freeze and ask.
@Suite struct ReanchorGateTests {
    let ms: UInt64 = 1_000_000

    @Test func aCleanStreamIsNeverHeld() {
        var g = ReanchorGate()
        for i in 0..<100 { #expect(g.decoded(userFlags: i % 30 == 0 ? 0x04 : 0, damaged: false, now: UInt64(i) * ms) == .show) }
        #expect(g.poll(now: 10_000 * ms) == false)
        #expect(g.freezes == 0)
    }

    @Test func aLossHoldsUntilTheKeyframe() {
        var g = ReanchorGate()
        g.arm(.frameLoss, now: 0)
        #expect(g.decoded(userFlags: 0, damaged: false, now: ms) == .hold)
        #expect(g.decoded(userFlags: 0x10, damaged: false, now: 2 * ms) == .hold, "one recovery point is not enough")
        #expect(g.decoded(userFlags: 0x04, damaged: false, now: 40 * ms) == .show)
        #expect(!g.holding)
        #expect(g.lastHoldNs == 40 * ms)
        #expect(g.lastLift == .keyframe)
        #expect(g.decoded(userFlags: 0, damaged: false, now: 41 * ms) == .show)
    }

    @Test func anRFIAnchorLiftsAtOnce() {
        var g = ReanchorGate()
        g.arm(.frameLoss, now: 0)
        #expect(g.decoded(userFlags: 0x20, damaged: false, now: 5 * ms) == .show)
        #expect(g.lastLift == .anchor)
    }

    @Test func theSecondRecoveryPointLifts() {
        var g = ReanchorGate()
        g.arm(.frameLoss, now: 0)
        #expect(g.decoded(userFlags: 0x10, damaged: false, now: ms) == .hold)
        #expect(g.decoded(userFlags: 0, damaged: false, now: 2 * ms) == .hold)
        #expect(g.decoded(userFlags: 0x10, damaged: false, now: 3 * ms) == .show)
        #expect(g.lastLift == .wave)
        // A second loss resets the count.
        g.arm(.frameLoss, now: 4 * ms)
        #expect(g.decoded(userFlags: 0x10, damaged: false, now: 5 * ms) == .hold)
        g.arm(.frameLoss, now: 6 * ms)
        #expect(g.decoded(userFlags: 0x10, damaged: false, now: 7 * ms) == .hold)
        #expect(g.decoded(userFlags: 0x10, damaged: false, now: 8 * ms) == .show)
    }

    @Test func aCloseLiftsOnlyAfterAWaveStartSeenSinceTheLoss() {
        let close: UInt32 = 0x10 | 0x200
        var g = ReanchorGate()
        g.arm(.frameLoss, now: 0)
        #expect(g.decoded(userFlags: close, damaged: false, now: ms) == .hold, "the close of a wave begun before the loss")
        #expect(g.decoded(userFlags: 0x10, damaged: false, now: 2 * ms) == .hold, "a start, not a second mark")
        #expect(g.decoded(userFlags: 0, damaged: false, now: 3 * ms) == .hold)
        #expect(g.decoded(userFlags: close, damaged: false, now: 4 * ms) == .show)
        // The close bit is latched: from now on two starts do not lift, their close does.
        g.arm(.frameLoss, now: 5 * ms)
        #expect(g.decoded(userFlags: 0x10, damaged: false, now: 6 * ms) == .hold)
        #expect(g.decoded(userFlags: 0x10, damaged: false, now: 7 * ms) == .hold)
        #expect(g.decoded(userFlags: close, damaged: false, now: 8 * ms) == .show)
    }

    @Test func theBackstopReasksEvery500msAndNeverShows() {
        var g = ReanchorGate()
        g.arm(.frameLoss, now: 0)
        #expect(g.poll(now: 499 * ms) == false)
        #expect(g.poll(now: 500 * ms) == true)
        #expect(g.poll(now: 999 * ms) == false)
        #expect(g.poll(now: 1_000 * ms) == true)
        #expect(g.holding)
        #expect(g.keyframeAsks == 2)
        #expect(g.decoded(userFlags: 0, damaged: false, now: 1_001 * ms) == .hold)
    }

    @Test func aRecoveryMarkWhileFrozenBuysAWavesPatience() {
        var g = ReanchorGate()
        g.arm(.frameLoss, now: 0)
        _ = g.decoded(userFlags: 0x10, damaged: false, now: 100 * ms)
        #expect(g.poll(now: 600 * ms) == false)
        #expect(g.poll(now: 1_600 * ms) == true)
    }

    @Test func threeAccessUnitsWithoutOutputArmAndAsk() {
        var g = ReanchorGate()
        #expect(g.noOutput(now: 0) == false)
        #expect(g.noOutput(now: ms) == false)
        #expect(g.noOutput(now: 2 * ms) == true)
        #expect(g.holding)
        #expect(g.reason == .noOutput)
        // A picture resets the streak.
        var h = ReanchorGate()
        _ = h.noOutput(now: 0); _ = h.noOutput(now: 0)
        _ = h.decoded(userFlags: 0, damaged: false, now: 0)
        #expect(h.noOutput(now: 0) == false)
    }

    @Test func aDamagedPictureIsHeldArmsAndNeverLifts() {
        var g = ReanchorGate()
        #expect(g.decoded(userFlags: 0, damaged: true, now: 0) == .hold)
        #expect(g.holding)
        #expect(g.reason == .damagedPicture)
        #expect(g.decoded(userFlags: 0x20, damaged: true, now: ms) == .hold, "a damaged anchor does not lift")
        #expect(g.decoded(userFlags: 0x04, damaged: false, now: 2 * ms) == .show)
    }
}

/// Which access units reach the decoder after a gap.
@Suite struct AUAdmissionTests {
    @Test func afterAGapOnlyAReEntryPointIsFed() {
        var a = AUAdmission()
        #expect(a.admit(order: .inOrder, userFlags: 0x04) == .feed)
        #expect(a.admit(order: .inOrder, userFlags: 0) == .feed)
        #expect(a.admit(order: .gap(2), userFlags: 0) == .withhold)
        #expect(a.admit(order: .inOrder, userFlags: 0) == .withhold)
        #expect(a.admit(order: .inOrder, userFlags: 0x20) == .feed)
        #expect(a.admit(order: .inOrder, userFlags: 0) == .feed)
        #expect(a.admit(order: .gap(1), userFlags: 0) == .withhold)
        #expect(a.admit(order: .inOrder, userFlags: 0x04) == .restartThenFeed)
        #expect(a.admit(order: .gap(1), userFlags: 0x10) == .feed, "a wave start is fed; the gate holds until it closes")
        #expect(a.admit(order: .straggler, userFlags: 0x04) == .withhold)
        #expect(a.withheld == 4, "three after gaps, one straggler")
        #expect(a.stretches == 3)
    }

    @Test func aGapOnAnAnchorIsFedAtOnce() {
        var a = AUAdmission()
        #expect(a.admit(order: .gap(3), userFlags: 0x20) == .feed)
        #expect(!a.withholding)
    }
}

/// §4.4: frames of an epoch whose StreamConfig has not arrived wait for it, bounded.
@Suite struct EpochHoldTests {
    @Test func framesWaitForTheirConfigInArrivalOrder() {
        var h = EpochHold<Int>(active: true)
        #expect(h.mustHold(epoch: 0))
        h.hold(1, epoch: 0, bytes: 10)
        h.hold(2, epoch: 1, bytes: 10)
        h.hold(3, epoch: 0, bytes: 10)
        let released = h.releaseOnConfig(epoch: 0)
        #expect(released.units == [1, 3])
        #expect(!released.needsKeyframe)
        #expect(!h.mustHold(epoch: 0))
        #expect(h.mustHold(epoch: 1))
        #expect(h.waiting == 1)
        #expect(h.releaseOnConfig(epoch: 1).units == [2])
    }

    @Test func anInactiveHoldHoldsNothing() {
        let h = EpochHold<Int>(active: false)
        #expect(!h.mustHold(epoch: 7))
    }

    @Test func overflowDropsTheBatchAndAsksForAKeyframe() {
        var h = EpochHold<Int>(active: true)
        for i in 0..<EpochHold<Int>.maxFrames { h.hold(i, epoch: 2, bytes: 1) }
        h.hold(99, epoch: 2, bytes: 1)
        #expect(h.waiting == 0)
        #expect(h.framesDropped == EpochHold<Int>.maxFrames + 1)
        h.hold(100, epoch: 2, bytes: 1)
        let released = h.releaseOnConfig(epoch: 2)
        #expect(released.units == [100])
        #expect(released.needsKeyframe)
        #expect(!h.releaseOnConfig(epoch: 3).needsKeyframe)
    }

    @Test func aHugeFrameBeyondTheByteBoundOverflows() {
        var h = EpochHold<Int>(active: true)
        h.hold(1, epoch: 0, bytes: 10)
        h.hold(2, epoch: 0, bytes: EpochHold<Int>.maxBytes)
        #expect(h.waiting == 0)
        #expect(h.releaseOnConfig(epoch: 0).needsKeyframe)
    }
}
