import Testing
import PunktfunkWire

/// The client's recovery asks, transition by transition against data-plane.md §4.3 and §8.7:
/// the gap rule, RFI_MAX_RANGE 256, the 100 ms RFI throttle with widening, the repeat every frame
/// interval (refresh clamped 30…240 Hz), ASK_GIVE_UP 500 ms, numbering from 1 that wraps past 0,
/// answer recognition by 0x04 / 0x20 / 0x10, tail_short and ASKED_TAILS 32.
@Suite struct LossAsksTests {
    let ms: UInt64 = 1_000_000

    /// Delivers `frames` in order at `at`, flags 0 unless given.
    func deliver(_ a: inout LossAsks, _ frames: ClosedRange<UInt32>, at: UInt64, flags: UInt32 = 0) {
        for f in frames { a.delivered(frame: f, userFlags: flags, now: at) }
    }

    @Test func contiguousFramesNeverAsk() {
        var a = LossAsks()
        for f in UInt32(0)..<600 {
            #expect(a.delivered(frame: f, userFlags: f == 0 ? 0x04 : 0, now: UInt64(f) * 16 * ms) == .inOrder)
            a.tick(now: UInt64(f) * 16 * ms)
        }
        #expect(a.ask == nil)
        #expect(a.asksOpened == 0)
        #expect(a.framesLost == 0)
    }

    @Test func aGapAsksRFIForExactlyTheMissingFrames() throws {
        var a = LossAsks()
        deliver(&a, 100...100, at: 0)
        #expect(a.delivered(frame: 105, userFlags: 0, now: 0) == .gap(4))
        let ask = try #require(a.ask)
        #expect(ask.number == 1)
        #expect(ask.invalidate == .init(first: 101, last: 104))
        #expect(!ask.keyframe)
        #expect(a.askKind == .rfi)
        #expect(a.framesLost == 4)
        // The datagram carries tags 4, 5, 6 and no 7 (keyframe false is not written).
        let body = FeedbackDatagram(ask: ask).body
        let decoded = try FeedbackDatagram(body: body)
        #expect(decoded.ask == ask)
        #expect(try TaggedFields(body).value(7) == nil)
    }

    @Test func aRangeOf256IsRFIAndOf257AKeyframe() throws {
        var a = LossAsks()
        deliver(&a, 0...0, at: 0)
        a.delivered(frame: 257, userFlags: 0, now: 0)          // 1…256 lost: 256 frames
        #expect(a.ask?.invalidate == .init(first: 1, last: 256))
        var b = LossAsks()
        deliver(&b, 0...0, at: 0)
        b.delivered(frame: 258, userFlags: 0, now: 0)          // 1…257: 257 frames
        let ask = try #require(b.ask)
        #expect(ask.keyframe)
        #expect(ask.invalidate == nil)
        #expect(b.askKind == .keyframe)
    }

    @Test func theThrottleWidensASecondGapIntoTheNextAskAfter100ms() throws {
        var a = LossAsks()
        deliver(&a, 100...100, at: 0)
        a.delivered(frame: 102, userFlags: 0, now: 0)          // ask 1: 101
        #expect(a.ask?.number == 1)
        a.delivered(frame: 104, userFlags: 0, now: 30 * ms)    // 103 lost inside the window
        #expect(a.ask?.number == 1, "no new RFI within 100 ms")
        a.delivered(frame: 107, userFlags: 0, now: 60 * ms)    // 105, 106 lost
        #expect(a.ask?.number == 1)
        a.tick(now: 99 * ms)
        #expect(a.ask?.number == 1)
        #expect(a.nextDeadline().map { $0 <= 100 * ms } == true)
        a.tick(now: 100 * ms)                                  // the window opens: one ask, widened
        let ask = try #require(a.ask)
        #expect(ask.number == 2)
        #expect(ask.invalidate == .init(first: 103, last: 106))
        #expect(a.rfiAsks == 2)
    }

    @Test func anOpenAskRepeatsEveryFrameIntervalAndIsGivenUpAfter500ms() throws {
        var a = LossAsks(refreshHz: 60)
        #expect(a.repeatIntervalNs == 16_666_666)
        deliver(&a, 0...0, at: 0)
        a.delivered(frame: 2, userFlags: 0, now: 0)
        #expect(a.takeDueCopy(now: 0) != nil, "a new ask goes out at once")
        #expect(a.takeDueCopy(now: 16 * ms) == nil)
        var copies = 1
        var t = 0 as UInt64
        while t < 600 * ms {
            t += ms
            a.tick(now: t)
            if a.takeDueCopy(now: t) != nil { copies += 1 }
        }
        // 0, 16.7, …, 483.3 ms: 30 copies, then silence from 500 ms on.
        #expect(copies == 30)
        #expect(a.ask == nil)
        #expect(a.asksGivenUp == 1)
        #expect(a.asksAnswered == 0)
    }

    @Test(arguments: [(UInt32(10), UInt64(33_333_333)), (30, 33_333_333), (144, 6_944_444), (240, 4_166_666), (1000, 4_166_666)])
    func theRepeatIntervalIsOneFrameWithTheRefreshClampedTo30To240(hz: UInt32, interval: UInt64) {
        #expect(LossAsks.interval(hz) == interval)
    }

    @Test func answersAreFramesAfterTheAskWithTheRightFlags() {
        // RFI: a recovery anchor (0x20) or point (0x10) after the ask answers it.
        for flag: UInt32 in [0x20, 0x10, 0x04] {
            var a = LossAsks()
            deliver(&a, 0...0, at: 0)
            a.delivered(frame: 2, userFlags: 0, now: 0)        // ask 1 after frame 2
            a.delivered(frame: 3, userFlags: 0, now: ms)
            #expect(a.ask != nil, "a plain P-frame answers nothing")
            a.delivered(frame: 4, userFlags: flag, now: 2 * ms)
            #expect(a.ask == nil, "flag \(flag) answers an RFI")
            #expect(a.asksAnswered == 1)
        }
        // A keyframe ask: only 0x04 answers.
        var k = LossAsks()
        deliver(&k, 0...0, at: 0)
        k.keyframeNeeded(now: 0)
        k.delivered(frame: 1, userFlags: 0x20, now: ms)
        k.delivered(frame: 2, userFlags: 0x10, now: ms)
        #expect(k.ask != nil)
        k.delivered(frame: 3, userFlags: 0x04, now: ms)
        #expect(k.ask == nil)
    }

    @Test func aFlaggedFrameFromBeforeTheAskAnswersNothing() {
        var a = LossAsks()
        deliver(&a, 0...0, at: 0)
        a.delivered(frame: 10, userFlags: 0, now: 0)           // ask after frame 10
        a.delivered(frame: 5, userFlags: 0x04, now: ms)        // a straggler keyframe
        #expect(a.ask != nil)
        #expect(a.delivered(frame: 6, userFlags: 0, now: ms) == .straggler)
        a.delivered(frame: 11, userFlags: 0x20, now: ms)
        #expect(a.ask == nil)
    }

    @Test func aLostAnswerIsRecoveredByTheBackstopUnderANewNumber() throws {
        // The anchor answering ask 1 is itself lost: a second gap inside the throttle window.
        var a = LossAsks()
        deliver(&a, 0...0, at: 0)
        a.delivered(frame: 2, userFlags: 0, now: 0)            // ask 1: [1, 1]
        a.delivered(frame: 4, userFlags: 0, now: 40 * ms)      // 3 (the anchor) lost
        #expect(a.ask?.number == 1)
        a.tick(now: 100 * ms)
        let second = try #require(a.ask)
        #expect(second.number == 2, "the widened range goes out as a new ask")
        #expect(second.invalidate == .init(first: 3, last: 3))
        // Nothing answers ask 2 either; it is given up, then the decoder's backstop asks a keyframe.
        a.tick(now: 600 * ms)
        #expect(a.ask == nil)
        a.keyframeNeeded(now: 610 * ms)
        #expect(a.ask?.number == 3)
        #expect(a.ask?.keyframe == true)
        // While it repeats, a second keyframe need joins it.
        a.keyframeNeeded(now: 620 * ms)
        #expect(a.ask?.number == 3)
        #expect(a.keyframeAsks == 1)
    }

    @Test func askNumbersStartAt1WrapAndSkip0() {
        var a = LossAsks()
        var numbers: [UInt16] = []
        for i in 0..<65_537 {
            a.keyframeNeeded(now: UInt64(i) * 600 * ms)
            numbers.append(a.ask!.number)
            a.tick(now: UInt64(i) * 600 * ms + 500 * ms)       // given up: the next is a new one
        }
        #expect(numbers.first == 1)
        #expect(!numbers.contains(0))
        #expect(numbers[65_534] == 65_535)
        #expect(numbers[65_535] == 1)
        // The host's newer-than rule accepts each next number, across the wrap too.
        #expect(FeedbackDatagram.isNewer(1, than: 65_535, max: FeedbackDatagram.askMax))
    }

    @Test func framesWrapAcrossUInt32Max() throws {
        var a = LossAsks()
        deliver(&a, (UInt32.max - 1)...(UInt32.max - 1), at: 0)
        #expect(a.delivered(frame: 1, userFlags: 0, now: 0) == .gap(2))
        #expect(a.ask?.invalidate == .init(first: UInt32.max, last: 0))
    }

    @Test func aShortTailAsksAtOnceAndTheLaterGapOverItAsksNothing() throws {
        var a = LossAsks()
        deliver(&a, 100...100, at: 0)
        a.tailShort(frame: 101, now: 0)
        #expect(a.ask?.invalidate == .init(first: 101, last: 101))
        #expect(a.ask?.number == 1)
        a.delivered(frame: 102, userFlags: 0, now: 150 * ms)  // the gap over 101
        a.tick(now: 300 * ms)
        #expect(a.ask?.number == 1, "101 was asked at its tail")
        // A gap wider than the tail asks for the rest only.
        var b = LossAsks()
        deliver(&b, 100...100, at: 0)
        b.tailShort(frame: 101, now: 0)
        b.delivered(frame: 104, userFlags: 0, now: 150 * ms)
        #expect(b.ask?.invalidate == .init(first: 102, last: 103))
        // A frame the decoder already passed asks nothing at its tail.
        var c = LossAsks()
        deliver(&c, 100...105, at: 0)
        c.tailShort(frame: 103, now: 0)
        #expect(c.ask == nil)
    }

    /// Issue 39: the last packets of F−2 and F−1 lost, F's tail short — the ask covers F−2…F at
    /// once (an anchor must not be built on a frame the client never got), and the gap that F+1
    /// opens asks nothing more.
    @Test func aShortTailAsksFromTheFirstFrameNeitherDeliveredNorAsked() throws {
        var a = LossAsks()
        deliver(&a, 0...9, at: 0)
        a.tailShort(frame: 12, now: 50 * ms)
        #expect(a.ask?.invalidate == .init(first: 10, last: 12))
        #expect(a.rfiAsks == 1)
        a.delivered(frame: 13, userFlags: 0, now: 60 * ms)
        a.tick(now: 300 * ms)
        #expect(a.rfiAsks == 1 && a.ask?.invalidate == .init(first: 10, last: 12))
        // Frames already asked for at their tails are not asked again.
        var b = LossAsks()
        deliver(&b, 0...9, at: 0)
        b.tailShort(frame: 10, now: 0)
        b.tailShort(frame: 12, now: 200 * ms)
        #expect(b.ask?.invalidate == .init(first: 11, last: 12))
    }

    @Test func anAgedOutFrameNoGapCoveredYetAsksAtOnceAndOnlyOnce() {
        var a = LossAsks()
        deliver(&a, 0...9, at: 0)
        a.agedOut(frame: 10, now: 130 * ms)                    // no complete frame after it yet
        #expect(a.ask?.invalidate == .init(first: 10, last: 10))
        a.agedOut(frame: 11, now: 150 * ms)                    // inside the throttle: pending
        a.delivered(frame: 13, userFlags: 0, now: 240 * ms)   // the gap over 10…12 asks for 12 only
        #expect(a.ask?.number == 2)
        #expect(a.ask?.invalidate == .init(first: 11, last: 12))
        // A frame a gap already covered asks nothing.
        a.agedOut(frame: 12, now: 400 * ms)
        #expect(a.ask?.number == 2)
    }

    @Test func onlyTheNewest32TailsAreRemembered() {
        var a = LossAsks()
        deliver(&a, 0...0, at: 0)
        for (i, f) in (UInt32(10)...42).enumerated() { a.tailShort(frame: f, now: UInt64(i) * 200 * ms) }
        // The first tail asked 1…10 (nothing of them came); 33 more frames remembered since, so
        // 1…10 were forgotten and a gap over them asks for them again.
        let before = a.rfiAsks
        a.delivered(frame: 11, userFlags: 0, now: 10_000 * ms)
        #expect(a.rfiAsks == before + 1)
        #expect(a.ask?.invalidate == .init(first: 1, last: 10))
    }

    @Test func aNackIsAnAskWithoutInvalidationAnsweredByItsFrame() throws {
        var a = LossAsks()
        deliver(&a, 0...4, at: 0)
        a.nack(frame: 5, shards: [3, 7], now: 0)
        let ask = try #require(a.ask)
        #expect(ask.nack == .init(frame: 5, shards: [3, 7]))
        #expect(ask.invalidate == nil && !ask.keyframe)
        let decoded = try FeedbackDatagram(body: FeedbackDatagram(ask: ask).body)
        #expect(decoded.ask?.nack?.shards == [3, 7])
        a.delivered(frame: 5, userFlags: 0, now: ms)
        #expect(a.ask == nil)
        #expect(a.nackAsks == 1)
    }

    @Test func aKeyframeAskDropsThePendingRange() {
        var a = LossAsks()
        deliver(&a, 0...0, at: 0)
        a.delivered(frame: 2, userFlags: 0, now: 0)            // ask 1
        a.delivered(frame: 4, userFlags: 0, now: 10 * ms)      // pending 3
        a.keyframeNeeded(now: 20 * ms)                         // ask 2: keyframe
        a.tick(now: 200 * ms)
        #expect(a.ask?.number == 2)
        #expect(a.rfiAsks == 1)
    }
}

/// The Feedback ACK fields: the newest cleanly decoded frame and a mask of the 16 before it.
@Suite struct DecodedAcksTests {
    @Test func theMaskNamesFramesBeforeTheNewest() {
        var a = DecodedAcks()
        #expect(a.ack == nil)
        a.decoded(10)
        #expect(a.ack == .init(lastFrame: 10, mask: 0))
        a.decoded(11)
        #expect(a.ack == .init(lastFrame: 11, mask: 0b1))            // 10 = 11 − 1 − 0
        a.decoded(14)
        #expect(a.ack == .init(lastFrame: 14, mask: 0b1100))         // 11 = bit 2, 10 = bit 3
        a.decoded(12)                                                // late: bit 1
        #expect(a.ack == .init(lastFrame: 14, mask: 0b1110))
        a.decoded(31)                                                // 14 = 31 − 1 − 16: out of the mask
        #expect(a.ack == .init(lastFrame: 31, mask: 0))
        a.decoded(30)
        #expect(a.ack?.mask == 1)
        a.decoded(UInt32.max &- 5)                                   // far behind: ignored
        #expect(a.ack == .init(lastFrame: 31, mask: 1))
    }

    @Test func theMaskWraps() {
        var a = DecodedAcks()
        a.decoded(UInt32.max)
        a.decoded(1)
        #expect(a.ack == .init(lastFrame: 1, mask: 0b10))            // u32 max = 1 − 1 − 1
    }
}
