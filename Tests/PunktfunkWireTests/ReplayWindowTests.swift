import Testing
@testable import PunktfunkWire

/// Cases from the host's `session/replay.rs` and `packet/v2.rs` tests (data-plane.md §9.1).
@Suite struct ReplayWindowTests {
    let w = ReplayWindow.windowSize

    @Test func inOrderThenAllReplayed() {
        var r = ReplayWindow()
        for s in UInt64(0)..<1000 { do { let ok = r.accept(s); #expect(ok) } }
        for s in UInt64(0)..<1000 { do { let ok = r.accept(s); #expect(!ok) } }
    }

    @Test func reorderWithinWindowAcceptedOnce() {
        var r = ReplayWindow()
        do { let ok = r.accept(100); #expect(ok) }
        do { let ok = r.accept(80); #expect(ok) }
        do { let ok = r.accept(80); #expect(!ok) }
        do { let ok = r.accept(99); #expect(ok) }
        do { let ok = r.accept(100); #expect(!ok) }
    }

    @Test func olderThanWindowRejected() {
        var r = ReplayWindow()
        do { let ok = r.accept(0); #expect(ok) }
        do { let ok = r.accept(2 * w); #expect(ok) }
        do { let ok = r.accept(w); #expect(!ok) }
        do { let ok = r.accept(0); #expect(!ok) }
        do { let ok = r.accept(w + 1); #expect(ok) }
    }

    @Test func jumpClearsEverything() {
        var r = ReplayWindow()
        do { let ok = r.accept(5); #expect(ok) }
        do { let ok = r.accept(10 * w + 5); #expect(ok) }
        do { let ok = r.accept(5); #expect(!ok) }
        do { let ok = r.accept(9 * w + 6); #expect(ok) }
    }

    @Test func firstPacketNeedNotBeZero() {
        var r = ReplayWindow()
        do { let ok = r.accept(42); #expect(ok) }
        do { let ok = r.accept(42); #expect(!ok) }
        do { let ok = r.accept(43); #expect(ok) }
    }

    /// Slots skipped by a forward jump inside the window are cleared, so an old bit from
    /// one window ago cannot make a fresh number look replayed.
    @Test func forwardJumpClearsSkippedSlots() {
        var r = ReplayWindow()
        for s in UInt64(0)..<300 { do { let ok = r.accept(s); #expect(ok) } }
        do { let ok = r.accept(w + 10); #expect(ok) }
        // w + 5 maps to the same slot as 5 (accepted earlier) but is new.
        do { let ok = r.accept(w + 5); #expect(ok) }
        do { let ok = r.accept(w + 200); #expect(ok) }
        do { let ok = r.accept(w + 5); #expect(!ok) }
    }

    @Test func expandSequence() {
        #expect(ReplayWindow.expand(reference: 0, low: 5) == 5)
        #expect(ReplayWindow.expand(reference: 0xFFFF_FFF0, low: 3) == 0x1_0000_0003)
        #expect(ReplayWindow.expand(reference: 0x1_0000_0003, low: 0xFFFF_FFF0) == 0xFFFF_FFF0)
        #expect(ReplayWindow.expand(reference: 3, low: 0xFFFF_FFF0) == 0xFFFF_FFF0)
    }

    @Test func plausibilityBoundsKeyEpochsAndWindow() {
        var r = ReplayWindow()
        let epoch = MediaKeySchedule.packetsPerKey
        #expect(r.plausible(0))
        #expect(r.plausible(2 * epoch - 1))
        #expect(!r.plausible(2 * epoch))
        do { let ok = r.accept(3 * w); #expect(ok) }
        #expect(r.plausible(3 * w - w + 1))
        #expect(!r.plausible(3 * w - w))
    }
}
