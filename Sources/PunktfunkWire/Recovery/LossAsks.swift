/// The client's recovery asks of data-plane.md §4.3 and §8.7, sans I/O: which frames are lost,
/// what to ask the host for, when a copy of the ask is due, and which frame answers it.
///
/// Detection:
/// - a gap in the delivered frame indices (`delivered`): frames `[nextExpected, frame − 1]` are
///   lost, less those already asked for at their tail;
/// - a short tail (`tailShort`): a block's last shard arrived and the block still cannot be
///   rebuilt — asked at once, a frame interval before the gap would show it, from the first
///   frame neither delivered nor asked about (earlier frames whose tails never came) through it;
/// - an aged-out frame (`agedOut`, the reassembler gave up on it, §1.10) that no gap covered yet —
///   asked at once, like a short tail (a burst may leave no complete frame behind it for a while).
///
/// Asking:
/// - a lost range of more than `rfiMaxRange` frames asks for a keyframe, a shorter one for
///   reference-frame invalidation (RFI) of exactly that range;
/// - at most one new RFI per `rfiThrottleNs`; losses meanwhile widen the pending range (oldest
///   first, newest last), which leaves as the next ask when the window opens (`tick` or the next
///   frame); a keyframe ask drops the pending range;
/// - every new ask takes the next number (u16, wrapping, never 0) and replaces the open one; the
///   open ask is repeated every frame interval (1/refresh, refresh clamped to 30…240 Hz) until a
///   frame after it answers it, and dropped after `giveUpNs` unanswered (the decoder's backstop
///   asks again under a new number while its picture is still frozen);
/// - a frame newer than the newest frame seen when the ask went out answers it when it is a
///   keyframe (user flag 0x04: any ask) or a recovery anchor/point (0x20, 0x10 — an RFI only).
///
/// All times are CLOCK_MONOTONIC ns passed in; frame numbers compare in wrap order (half range).
public struct LossAsks: Sendable {
    /// RFI_MAX_RANGE (data-plane.md §1.5): the widest lost range RFI may repair.
    public static let rfiMaxRange: UInt32 = 256
    /// RFI_THROTTLE: at most one new RFI per 100 ms.
    public static let rfiThrottleNs: UInt64 = 100_000_000
    /// ASK_GIVE_UP: an unanswered ask stops repeating after 500 ms.
    public static let giveUpNs: UInt64 = 500_000_000
    /// ASKED_TAILS: frames asked for at their tail, remembered so the later gap over them asks nothing.
    public static let askedTailsKept = 32

    public static let keyframeFlag: UInt32 = 0x04
    public static let recoveryPointFlag: UInt32 = 0x10
    public static let recoveryAnchorFlag: UInt32 = 0x20

    /// Where a delivered frame falls in the frame order.
    public enum FrameOrder: Equatable, Sendable {
        /// The first frame, or the expected next one.
        case inOrder
        /// A forward jump over this many lost frames.
        case gap(UInt32)
        /// Behind a frame already delivered (reordered or duplicated): not for the decoder.
        case straggler
    }

    /// Why an ask went out (counted separately in the stats).
    public enum Kind: Equatable, Sendable { case rfi, keyframe, nack }

    /// The open ask, as the next Feedback datagram carries it.
    public private(set) var ask: FeedbackDatagram.Ask?
    public private(set) var askKind: Kind?
    /// RFI asks, keyframe asks (range too wide, or the decoder's), NACK asks sent; asks answered
    /// by a frame; asks given up unanswered.
    public private(set) var rfiAsks = 0
    public private(set) var keyframeAsks = 0
    public private(set) var nackAsks = 0
    public private(set) var asksAnswered = 0
    public private(set) var asksGivenUp = 0
    /// Frames found lost by gaps, since the start.
    public private(set) var framesLost = 0
    /// Every ask opened (all kinds).
    public var asksOpened: Int { rfiAsks + keyframeAsks + nackAsks }

    private var intervalNs: UInt64
    private var nextExpected: UInt32?
    /// The newest frame delivered: an answer must be newer than the newest at ask time.
    private var newest: UInt32?
    private var lastRFIAt: UInt64?
    private var pending: FeedbackDatagram.Invalidation?
    private var askedTails: [UInt32] = []
    private var number: UInt16 = 0
    private var openedAfter: UInt32?
    private var nextCopyAt: UInt64 = 0
    private var giveUpAt: UInt64 = 0

    /// - Parameter refreshHz: the stream's refresh (the repeat interval is one frame of it).
    public init(refreshHz: UInt32 = 60) {
        intervalNs = Self.interval(refreshHz)
        askedTails.reserveCapacity(Self.askedTailsKept)
    }

    /// The repeat interval for `hz`, clamped to 30…240 Hz, ns.
    public static func interval(_ hz: UInt32) -> UInt64 { 1_000_000_000 / UInt64(min(max(hz, 30), 240)) }

    public var repeatIntervalNs: UInt64 { intervalNs }

    public mutating func setRefresh(_ hz: UInt32) { intervalNs = Self.interval(hz) }

    /// `a` is after `b` in half-space wrap order.
    @inline(__always)
    public static func isAfter(_ a: UInt32, _ b: UInt32) -> Bool { a != b && a &- b < 0x8000_0000 }

    // MARK: - Inputs

    /// A complete access unit was handed out (`userFlags` from its header). Returns where it
    /// falls; a gap may have opened or widened an ask.
    @discardableResult
    public mutating func delivered(frame: UInt32, userFlags: UInt32, now: UInt64) -> FrameOrder {
        let order: FrameOrder
        if let expected = nextExpected {
            let ahead = frame &- expected
            if ahead == 0 {
                nextExpected = frame &+ 1
                order = .inOrder
            } else if ahead < 0x8000_0000 {
                nextExpected = frame &+ 1
                framesLost += Int(ahead)
                if let lost = unasked(first: expected, last: frame &- 1) { widen(lost) }
                order = .gap(ahead)
            } else {
                order = .straggler
            }
        } else {
            nextExpected = frame &+ 1
            order = .inOrder
        }
        if order != .straggler { answer(frame: frame, flags: userFlags) }
        flush(now: now)
        return order
    }

    /// `frame`'s block got its last shard and still lacks shards parity cannot replace: ask now,
    /// from the first frame neither delivered nor asked about through `frame` — the frames before
    /// it whose tails never came are lost as surely (their shards went out first), and an anchor
    /// must not be built on one of them. A frame already passed, or already asked for at its
    /// tail, asks nothing new.
    public mutating func tailShort(frame: UInt32, now: UInt64) {
        let passed = nextExpected.map { Self.isAfter($0, frame) } ?? false
        if !passed && !askedTails.contains(frame) {
            var first = frame
            if let expected = nextExpected, frame &- expected < Self.rfiMaxRange {
                first = expected
                while first != frame && askedTails.contains(first) { first &+= 1 }
            }
            var f = first
            while true {
                if !askedTails.contains(f) {
                    if askedTails.count == Self.askedTailsKept { askedTails.removeFirst() }
                    askedTails.append(f)
                }
                if f == frame { break }
                f &+= 1
            }
            widen(.init(first: first, last: frame))
        }
        flush(now: now)
    }

    /// The reassembler declared `frame` lost (aged out). Asked now unless a gap already covered it
    /// or it was asked for at its tail; the later gap over it asks nothing again.
    public mutating func agedOut(frame: UInt32, now: UInt64) {
        tailShort(frame: frame, now: now)
    }

    /// A NACK for `frame`'s missing shards (≤ 16, index within the AU, data first then parity),
    /// asked under a new number without invalidating anything: the host resends them.
    public mutating func nack(frame: UInt32, shards: [UInt16], now: UInt64) {
        guard !shards.isEmpty else { return }
        open(.init(number: 0, nack: .init(frame: frame, shards: Array(shards.prefix(FeedbackDatagram.Nack.maxShards)))),
             kind: .nack, now: now)
    }

    /// The decoder needs a keyframe (its error, a streak without output, the freeze backstop):
    /// a keyframe ask under a new number unless an unanswered keyframe ask is still repeating.
    public mutating func keyframeNeeded(now: UInt64) {
        if askKind == .keyframe, ask != nil { return }
        pending = nil
        open(.init(number: 0, keyframe: true), kind: .keyframe, now: now)
    }

    /// A new stream configuration (epoch): the frame sequence restarts, old gaps are moot.
    public mutating func restartSequence() {
        nextExpected = nil
        pending = nil
        askedTails.removeAll(keepingCapacity: true)
    }

    /// Sends a throttled pending range once the window opens and gives up an ask unanswered
    /// for `giveUpNs`. Call at least every frame interval.
    public mutating func tick(now: UInt64) {
        if ask != nil, now >= giveUpAt {
            ask = nil
            askKind = nil
            asksGivenUp += 1
        }
        flush(now: now)
    }

    // MARK: - Outputs

    /// The open ask if a copy of it is due now; marks the copy sent (the next is one interval later).
    public mutating func takeDueCopy(now: UInt64) -> FeedbackDatagram.Ask? {
        guard let ask, now >= nextCopyAt else { return nil }
        nextCopyAt = now &+ intervalNs
        return ask
    }

    /// When the next copy or give-up is due (nil without an open ask or pending range).
    public func nextDeadline() -> UInt64? {
        var d: UInt64?
        if ask != nil { d = min(nextCopyAt, giveUpAt) }
        if pending != nil, let last = lastRFIAt {
            let window = last &+ Self.rfiThrottleNs
            d = d.map { min($0, window) } ?? window
        }
        return d
    }

    // MARK: - Rules

    /// `[first, last]` less the frames asked for at their tail at either end; nil when all were.
    private func unasked(first f: UInt32, last l: UInt32) -> FeedbackDatagram.Invalidation? {
        var first = f, last = l
        while askedTails.contains(first) {
            if first == last { return nil }
            first &+= 1
        }
        while askedTails.contains(last) { last &-= 1 }
        return .init(first: first, last: last)
    }

    private mutating func widen(_ lost: FeedbackDatagram.Invalidation) {
        guard let p = pending else { pending = lost; return }
        pending = .init(first: Self.isAfter(p.first, lost.first) ? lost.first : p.first,
                        last: Self.isAfter(lost.last, p.last) ? lost.last : p.last)
    }

    /// The pending range as a new ask once the RFI window is open.
    private mutating func flush(now: UInt64) {
        guard let range = pending else { return }
        if let last = lastRFIAt, now &- last < Self.rfiThrottleNs { return }
        pending = nil
        lastRFIAt = now
        if range.last &- range.first &+ 1 > Self.rfiMaxRange {
            open(.init(number: 0, keyframe: true), kind: .keyframe, now: now)
        } else {
            open(.init(number: 0, invalidate: range), kind: .rfi, now: now)
        }
    }

    private mutating func open(_ new: FeedbackDatagram.Ask, kind: Kind, now: UInt64) {
        number &+= 1
        if number == 0 { number = 1 }
        var a = new
        a.number = number
        ask = a
        askKind = kind
        openedAfter = newest
        nextCopyAt = now
        giveUpAt = now &+ Self.giveUpNs
        switch kind {
        case .rfi: rfiAsks += 1
        case .keyframe: keyframeAsks += 1
        case .nack: nackAsks += 1
        }
    }

    /// Folds one delivered frame into the answer rule.
    private mutating func answer(frame: UInt32, flags: UInt32) {
        if newest.map({ Self.isAfter(frame, $0) }) ?? true { newest = frame }
        guard let open = ask else { return }
        let after = openedAfter.map { Self.isAfter(frame, $0) } ?? true
        guard after else { return }
        let keyframe = flags & Self.keyframeFlag != 0
        let anchor = flags & (Self.recoveryAnchorFlag | Self.recoveryPointFlag) != 0
        // A NACK is answered by its frame completing (`completed`), or by a keyframe.
        let answers = keyframe || (anchor && !open.keyframe && askKind != .nack)
            || (askKind == .nack && open.nack?.frame == frame)
        if answers {
            ask = nil
            askKind = nil
            asksAnswered += 1
        }
    }
}
