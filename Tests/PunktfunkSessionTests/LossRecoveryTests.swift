import Testing
import PunktfunkWire
@testable import PunktfunkSession

/// The client's loss detection and keyframe-ask rules (control-plane.md §5.2), sans I/O.
@Suite struct LossRecoveryTests {
    let ms: UInt64 = 1_000_000

    @Test func inOrderDeliveryNeverAsks() {
        var r = LossRecovery()
        for f in UInt32(0)..<200 { r.delivered(frame: f, keyframe: f == 0, now: UInt64(f) * 16 * ms); r.tick(now: UInt64(f) * 16 * ms) }
        #expect(r.ask == nil)
        #expect(r.framesLost == 0)
    }

    @Test func aReorderedFrameWithinTheWindowIsNotLost() {
        var r = LossRecovery()
        r.delivered(frame: 0, keyframe: true, now: 0)
        r.delivered(frame: 2, keyframe: false, now: 10 * ms)
        r.tick(now: 50 * ms)
        r.delivered(frame: 1, keyframe: false, now: 60 * ms)
        r.tick(now: 500 * ms)
        #expect(r.ask == nil)
        #expect(r.framesLost == 0)
    }

    @Test func aGapThatOutlivesTheWindowOpensOneKeyframeAskAnsweredByANewerKeyframe() throws {
        var r = LossRecovery()
        r.delivered(frame: 0, keyframe: true, now: 0)
        r.delivered(frame: 4, keyframe: false, now: 10 * ms)   // 1, 2, 3 missing
        r.tick(now: 10 * ms + LossRecovery.gapTimeoutNs - 1)
        #expect(r.ask == nil)
        r.tick(now: 10 * ms + LossRecovery.gapTimeoutNs)
        let ask = try #require(r.ask)
        #expect(ask.number == 1)
        #expect(ask.keyframe)
        #expect(ask.invalidate == .init(first: 1, last: 3))
        #expect(r.framesLost == 3)
        // A later loss widens the same ask.
        r.declaredLost(frame: 6)
        #expect(r.ask?.number == 1)
        #expect(r.ask?.invalidate == .init(first: 1, last: 6))
        #expect(r.asksOpened == 1)
        // A keyframe older than the last lost frame does not answer it; a newer one does.
        r.delivered(frame: 5, keyframe: true, now: 200 * ms)
        #expect(r.ask != nil)
        r.delivered(frame: 7, keyframe: true, now: 210 * ms)
        #expect(r.ask == nil)
        #expect(r.asksAnswered == 1)
        // The next loss opens ask 2.
        r.declaredLost(frame: 9)
        #expect(r.ask?.number == 2)
    }

    @Test func lossesOlderThanTheNewestKeyframeAreMoot() {
        var r = LossRecovery()
        r.delivered(frame: 0, keyframe: true, now: 0)
        r.delivered(frame: 10, keyframe: true, now: 5 * ms)
        r.declaredLost(frame: 4)
        r.tick(now: 1_000 * ms)
        #expect(r.ask == nil)
    }

    @Test func aHugeJumpIsALossAtOnceAndFrameNumbersWrap() throws {
        var r = LossRecovery()
        r.delivered(frame: UInt32.max - 1, keyframe: true, now: 0)
        r.delivered(frame: 1, keyframe: false, now: 1)       // UInt32.max and 0 missing (wrap)
        r.tick(now: LossRecovery.gapTimeoutNs + 1)
        #expect(r.ask?.invalidate == .init(first: UInt32.max, last: 0))
        var big = LossRecovery()
        big.delivered(frame: 0, keyframe: true, now: 0)
        big.delivered(frame: 1000, keyframe: false, now: 1)
        let ask = try #require(big.ask)
        #expect(ask.invalidate == .init(first: 1, last: 999))
        #expect(big.framesLost == 999)
    }

    @Test func askNumbersSkipZero() {
        var r = LossRecovery()
        r.delivered(frame: 0, keyframe: true, now: 0)
        var frame: UInt32 = 1
        for _ in 0..<65_536 {
            r.declaredLost(frame: frame)
            #expect(r.ask?.number != 0)
            r.delivered(frame: frame + 1, keyframe: true, now: 0)
            frame += 2
        }
        #expect(r.asksOpened == 65_536)
    }

    @Test func aDecoderRequestAsksForAKeyframeNewerThanTheNewestFrame() throws {
        var r = LossRecovery()
        r.decoderNeedsKeyframe()
        #expect(r.ask == nil)   // nothing received yet: nothing to ask about
        r.delivered(frame: 0, keyframe: true, now: 0)
        r.delivered(frame: 1, keyframe: false, now: 1)
        r.decoderNeedsKeyframe()
        let ask = try #require(r.ask)
        #expect(ask.keyframe && ask.invalidate == .init(first: 1, last: 1))
        r.delivered(frame: 2, keyframe: false, now: 2)
        r.decoderNeedsKeyframe()
        #expect(r.ask?.number == ask.number)
        #expect(r.ask?.invalidate == .init(first: 1, last: 2))
        r.delivered(frame: 3, keyframe: true, now: 3)
        #expect(r.ask == nil)
        #expect(r.asksAnswered == 1)
    }
}
