import PunktfunkWire

/// Client-side frame-loss detection and the keyframe ask of the Feedback datagram
/// (control-plane.md §5.2), sans I/O.
///
/// A video frame counts as lost when the reassembler declares it (`declaredLost`) or when it stays
/// missing from the delivered sequence for `gapTimeoutNs` (an AU none of whose packets arrived is
/// invisible to the reassembler, data-plane.md §4.3). A loss opens an ask — keyframe plus the
/// invalidated frame range — which the pump repeats every frame interval until a keyframe newer
/// than the last lost frame arrives. Losses while an ask is open widen its range under the same
/// number (the host acts once per number; one keyframe answers them all). Losses older than the
/// newest keyframe are moot and ignored.
///
/// Invariants: frame numbers compare in wrap order (`UInt32`, half range); at most
/// `maxTrackedGaps` missing frames are tracked — a larger jump is a loss at once; ask numbers
/// skip 0 (0 = "no ask").
public struct LossRecovery: Sendable {
    /// Reassembler.lossWindowNs: a frame with no packet for this long after a newer one arrived is lost.
    public static let gapTimeoutNs: UInt64 = 120_000_000
    public static let maxTrackedGaps = 64

    /// The open ask, if any.
    public private(set) var ask: FeedbackDatagram.Ask?
    /// Asks opened / answered by a keyframe since the start.
    public private(set) var asksOpened = 0
    public private(set) var asksAnswered = 0
    /// Frames counted lost (declared or timed out), since the start.
    public private(set) var framesLost = 0

    private var lastAskNumber: UInt16 = 0
    private var newest: UInt32?
    private var newestKeyframe: UInt32?
    /// Missing frames older than `newest`, with the time (ns) they were first noticed missing.
    private var gaps: [(frame: UInt32, since: UInt64)] = []

    public init() { gaps.reserveCapacity(Self.maxTrackedGaps) }

    /// `a` is after `b` in wrap order.
    static func isAfter(_ a: UInt32, _ b: UInt32) -> Bool { Int32(bitPattern: a &- b) > 0 }

    /// A complete AU was handed out.
    public mutating func delivered(frame: UInt32, keyframe: Bool, now: UInt64) {
        gaps.removeAll { $0.frame == frame }
        if let newest {
            if Self.isAfter(frame, newest) {
                let missing = frame &- newest &- 1
                if Int(missing) + gaps.count > Self.maxTrackedGaps {
                    // Too many to track: everything between is lost.
                    gaps.removeAll()
                    noteLoss(first: newest &+ 1, last: frame &- 1)
                } else {
                    var f = newest &+ 1
                    while f != frame { gaps.append((f, now)); f &+= 1 }
                }
                self.newest = frame
            }
        } else {
            newest = frame
        }
        if keyframe {
            if newestKeyframe.map({ Self.isAfter(frame, $0) }) ?? true { newestKeyframe = frame }
            // Older gaps no longer matter to the decoder.
            gaps.removeAll { Self.isAfter(frame, $0.frame) }
            if let open = ask, let range = open.invalidate, Self.isAfter(frame, range.last) {
                ask = nil
                asksAnswered += 1
            }
        }
    }

    /// The reassembler gave up on `frame`.
    public mutating func declaredLost(frame: UInt32) {
        gaps.removeAll { $0.frame == frame }
        if newest.map({ Self.isAfter(frame, $0) }) ?? true { newest = frame }
        noteLoss(first: frame, last: frame)
    }

    /// The decoder could not use the newest frame (corrupt AU, missing reference): ask for a
    /// keyframe newer than it. Joins an open ask instead of opening a second one.
    public mutating func decoderNeedsKeyframe() {
        guard let newest else { return }
        askForKeyframe(invalidating: newest, through: newest)
    }

    /// Times out gaps; call at least every frame interval.
    public mutating func tick(now: UInt64) {
        // Gaps are appended in frame order with non-decreasing times: the expired ones are a prefix.
        var expired = 0
        while expired < gaps.count, now >= gaps[expired].since &+ Self.gapTimeoutNs { expired += 1 }
        guard expired > 0 else { return }
        let first = gaps[0].frame, last = gaps[expired - 1].frame
        gaps.removeFirst(expired)
        noteLoss(first: first, last: last, count: expired)
    }

    private mutating func noteLoss(first: UInt32, last: UInt32, count: Int? = nil) {
        framesLost += count ?? (Int(last &- first) + 1)
        // A keyframe after the loss already repaired it.
        if let key = newestKeyframe, Self.isAfter(key, last) { return }
        askForKeyframe(invalidating: first, through: last)
    }

    /// Widens the open ask to cover first…last, or opens the next one (numbers skip 0).
    private mutating func askForKeyframe(invalidating first: UInt32, through last: UInt32) {
        if var open = ask, let range = open.invalidate {
            let lo = Self.isAfter(range.first, first) ? first : range.first
            let hi = Self.isAfter(last, range.last) ? last : range.last
            open.invalidate = .init(first: lo, last: hi)
            ask = open
            return
        }
        lastAskNumber &+= 1
        if lastAskNumber == 0 { lastAskNumber = 1 }
        ask = FeedbackDatagram.Ask(number: lastAskNumber, invalidate: .init(first: first, last: last), keyframe: true)
        asksOpened += 1
    }
}
