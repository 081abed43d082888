import Testing
import Screen
@testable import WaylandDisplay

@Suite struct PresentationLedgerTests {
    @Test func presentedCommitReportsLatencyAndCounts() {
        var ledger = PresentationLedger()
        let t1 = ledger.handleCommit(frameID: 7, readyNs: 900, now: 1_000)
        let shown = ledger.handlePresented(token: t1, glassNs: 9_000, refreshNs: 16_666_667,
                                           flags: [.vsync, .zeroCopy], now: 9_500)
        #expect(shown == PresentationLedger.Shown(frameID: 7, glassNs: 9_000, readyNs: 900, commitNs: 1_000,
                                                  flags: [.vsync, .zeroCopy], refreshNs: 16_666_667))
        #expect(ledger.stats.presented == 1 && ledger.stats.zeroCopy == 1 && ledger.stats.committed == 1)
        #expect(ledger.stats.lastLatencyNs == 8_000 && ledger.stats.meanLatencyNs == 8_000)
        #expect(ledger.refreshNs == 16_666_667)
        #expect(ledger.outstanding == 0)
    }

    @Test func supersededCommitsAreDiscardedAndAnsweredOnce() {
        var ledger = PresentationLedger()
        let a = ledger.handleCommit(frameID: 1, readyNs: 0, now: 100)
        let b = ledger.handleCommit(frameID: 2, readyNs: 0, now: 200)
        let c = ledger.handleCommit(frameID: 3, readyNs: 0, now: 300)
        #expect(ledger.handleDiscarded(token: a, now: 1_000) == 1)
        #expect(ledger.handleDiscarded(token: b, now: 1_000) == 2)
        #expect(ledger.handlePresented(token: c, glassNs: 2_300, refreshNs: 0, flags: [], now: 2_400)?.frameID == 3)
        // Answering again changes nothing.
        #expect(ledger.handleDiscarded(token: a, now: 3_000) == nil)
        #expect(ledger.handlePresented(token: c, glassNs: 9, refreshNs: 0, flags: [], now: 3_000) == nil)
        #expect(ledger.stats.discarded == 2 && ledger.stats.presented == 1 && ledger.stats.latencySumNs == 2_000)
        #expect(ledger.refreshNs == 0)  // refresh 0 (VRR / virtual output) is kept as unknown
    }

    @Test func outOfOrderAnswersFindTheirCommit() {
        var ledger = PresentationLedger(capacity: 4)
        let tokens = (0..<4).map { ledger.handleCommit(frameID: UInt64($0), readyNs: 0, now: UInt64($0) * 10) }
        #expect(ledger.handlePresented(token: tokens[2], glassNs: 100, refreshNs: 0, flags: [], now: 100)?.frameID == 2)
        #expect(ledger.handleDiscarded(token: tokens[0], now: 100) == 0)
        #expect(ledger.handleDiscarded(token: tokens[3], now: 100) == 3)
        #expect(ledger.handleDiscarded(token: tokens[1], now: 100) == 1)
        #expect(ledger.outstanding == 0)
        // 0 and 1 had newer commits when discarded (newest wins); 3 was the newest itself.
        #expect(ledger.stats.discarded == 3 && ledger.stats.superseded == 2)
    }

    @Test func hiddenSurfaceStallsWithoutBlockingAndForgetsTheOldest() {
        var ledger = PresentationLedger(capacity: 3, stallNs: 1_000_000_000)
        var tokens: [UInt64] = []
        for i in 0..<5 { tokens.append(ledger.handleCommit(frameID: UInt64(i), readyNs: 0, now: UInt64(i) * 16_000_000)) }
        #expect(ledger.outstanding == 3)
        #expect(ledger.stats.unanswered == 2 && ledger.stats.committed == 5)
        #expect(ledger.handleDiscarded(token: tokens[0], now: 0) == nil)  // forgotten
        #expect(!ledger.isStalled(now: 500_000_000))
        #expect(ledger.isStalled(now: 32_000_000 + 1_000_000_000))
        // An answer resumes it.
        _ = ledger.handlePresented(token: tokens[4], glassNs: 1_100_000_000, refreshNs: 0, flags: [], now: 1_100_000_000)
        #expect(!ledger.isStalled(now: 1_200_000_000))
    }

    @Test func glassBeforeCommitCountsAsZeroLatency() {
        var ledger = PresentationLedger()
        let t = ledger.handleCommit(frameID: 1, readyNs: 0, now: 5_000)
        _ = ledger.handlePresented(token: t, glassNs: 4_000, refreshNs: 0, flags: [], now: 5_001)
        #expect(ledger.stats.lastLatencyNs == 0 && ledger.stats.minLatencyNs == 0)
    }
}

/// Hidden is the compositor's word: frame callbacks withheld (wayland.xml, wl_surface.frame).
@Suite struct VisibilityWatchTests {
    let second: UInt64 = 1_000_000_000

    @Test func aWithheldFrameCallbackForASecondIsHidden() {
        var v = VisibilityWatch(stallNs: second)
        let asked = v.commit(now: 10), askedAgain = v.commit(now: 20)
        #expect(asked && !askedAgain, "one callback outstanding at a time")
        #expect(!v.isHidden(now: 10 + second / 2))
        #expect(v.isHidden(now: 10 + second))
        v.frameDone()
        #expect(!v.isHidden(now: 5 * second))
        let again = v.commit(now: 5 * second)
        #expect(again)
    }

    /// Headless sway 1.7: callbacks answered, no presentation feedback at all — shown.
    @Test func answeredCallbacksWithoutFeedbackAreShown() {
        var v = VisibilityWatch(stallNs: second)
        for i in 0..<120 {
            let t = UInt64(i) * 16_666_667 + 1
            _ = v.commit(now: t)
            v.frameDone()
            #expect(!v.isHidden(now: t + 1))
        }
    }

    @Test func aPresentationSinceTheRequestIsShownWhateverTheCallback() {
        var v = VisibilityWatch(stallNs: second)
        _ = v.commit(now: 100)
        v.presented(now: 200)
        #expect(!v.isHidden(now: 3 * second))
    }
}
