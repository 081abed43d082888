/// A decoded frame the presenter can scan out, as the pacer sees it: an opaque id (the presenter
/// maps it to its framebuffer; ids increase in decode order) and the CLOCK_MONOTONIC time in ns at
/// which it became displayable (decode complete, fence signalled).
public struct PacedFrame: Sendable, Equatable {
    public var id: UInt64
    public var readyNs: UInt64
    public init(id: UInt64, readyNs: UInt64) {
        self.id = id
        self.readyNs = readyNs
    }
}

/// What the presenter should do now.
public enum PacerAction: Sendable, Equatable {
    /// Issue one non-blocking atomic commit (with a page-flip event) for this frame, then report
    /// `committed` or `commitFailed`.
    case commit(PacedFrame)
    /// Do nothing until the given CLOCK_MONOTONIC ns (then call `next` again), or — for `nil` —
    /// until the next event (a frame became ready or a flip completed).
    case wait(untilNs: UInt64?)
}

/// Counters since the pacer was created. All are event counts, not rates.
public struct PacerStats: Sendable, Equatable {
    /// Commits the presenter reported as issued.
    public var committed: UInt64
    /// Frames never committed: replaced by a newer frame before their commit, handed back by a
    /// failed commit while a newer frame waited, or delivered out of order (older than one seen).
    public var dropped: UInt64
    /// Refreshes (real-vblank displays only) that showed the frame already on screen while the
    /// stream was active (a frame became ready within two stream intervals before that refresh).
    public var repeats: UInt64
    /// Commits issued before the latch point of the vblank the grid predicted that nevertheless
    /// completed at least half a refresh after it (real-vblank displays only).
    public var latchMisses: UInt64
    /// Page-flip events seen, including ones for commits this pacer did not issue.
    public var flips: UInt64
    /// Hold wake-ups later than the largest allowed guard (`Configuration.wakeGuardNs`): the
    /// present thread did not run when it had to; the held frame may have missed its refresh.
    public var wakeStalls: UInt64 = 0

    public init(committed: UInt64 = 0, dropped: UInt64 = 0, repeats: UInt64 = 0,
                latchMisses: UInt64 = 0, flips: UInt64 = 0) {
        self.committed = committed
        self.dropped = dropped
        self.repeats = repeats
        self.latchMisses = latchMisses
        self.flips = flips
    }
}
