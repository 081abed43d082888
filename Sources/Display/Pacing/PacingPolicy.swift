/// The calls a presenter makes on a pacing policy; `FlipPacer` and the baseline conform.
public protocol PacingPolicy {
    mutating func frameReady(_ frame: PacedFrame)
    mutating func next(nowNs: UInt64) -> PacerAction
    mutating func committed(_ frame: PacedFrame, nowNs: UInt64)
    mutating func flipCompleted(timestampNs: UInt64, sequence: UInt32, nowNs: UInt64)
    mutating func drainReleasable(into ids: inout [UInt64])
    var stats: PacerStats { get }
}

extension FlipPacer: PacingPolicy {}

/// The baseline: commit the newest frame as soon as nothing is in flight (newest wins, one
/// commit in flight, buffers released after the next flip) — no grid, no holding.
public struct CommitOnArrivalPacer: PacingPolicy, Sendable {
    private var pending: PacedFrame?
    private var inFlight: PacedFrame?
    private var onScreen: PacedFrame?
    private var releasable: [UInt64] = []
    public private(set) var stats = PacerStats()

    public init() {}

    public mutating func frameReady(_ frame: PacedFrame) {
        if let old = pending {
            releasable.append(old.id)
            stats.dropped += 1
        }
        pending = frame
    }

    public mutating func next(nowNs: UInt64) -> PacerAction {
        guard inFlight == nil, let frame = pending else { return .wait(untilNs: nil) }
        pending = nil
        inFlight = frame
        return .commit(frame)
    }

    public mutating func committed(_ frame: PacedFrame, nowNs: UInt64) { stats.committed += 1 }

    public mutating func flipCompleted(timestampNs: UInt64, sequence: UInt32, nowNs: UInt64) {
        stats.flips += 1
        guard let shown = inFlight else { return }
        if let old = onScreen { releasable.append(old.id) }
        onScreen = shown
        inFlight = nil
    }

    public mutating func drainReleasable(into ids: inout [UInt64]) {
        ids.append(contentsOf: releasable)
        releasable.removeAll(keepingCapacity: true)
    }
}
