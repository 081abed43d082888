/// Collects one batch of `ClockSync.rounds` probe/echo rounds (control-plane.md §4.1–§4.2),
/// one probe in flight at a time. Echoes are matched by their t1; a stale, duplicate or
/// unsolicited echo is ignored. Time comes in as arguments (client wall clock, ns).
///
/// Driver loop: `begin(now:)` → send the probe; on each echo `handleEcho(_:now:)`;
/// on `.moreRounds` wait the round spacing, then `nextProbe(now:)` → send; on `.done` apply
/// (connect) or admit via `ClockResync` (mid-stream).
///
/// Invariant: `samples.count < ClockSync.rounds` while a batch is open; `pendingT1` is the t1
/// of the probe in flight, nil when none is.
public struct ClockBatch: Sendable {
    public enum Step: Hashable, Sendable {
        /// Stale or unsolicited echo, or no probe in flight: nothing changed.
        case ignored
        /// Recorded; send the next probe (stamped at send time via `nextProbe(now:)`).
        case moreRounds
        /// The batch is complete; its minimum-RTT sample.
        case done(ClockSample)
    }

    public private(set) var samples: [ClockSample] = []
    public private(set) var pendingT1: UInt64?

    public init() {}

    /// Starts a batch, abandoning any in flight (its late echoes will not match).
    /// - Returns: the t1 to put in the probe.
    public mutating func begin(now: UInt64) -> UInt64 {
        samples.removeAll(keepingCapacity: true)
        return nextProbe(now: now)
    }

    /// Arms the next round, stamped at send time so the spacing is not counted as RTT.
    /// - Returns: the t1 to put in the probe.
    public mutating func nextProbe(now: UInt64) -> UInt64 {
        pendingT1 = now
        return now
    }

    /// An echo `(t1, t2, t3)` arrived at client time `now` (its t4).
    public mutating func handleEcho(t1: UInt64, t2: UInt64, t3: UInt64, now: UInt64) -> Step {
        guard let pending = pendingT1, pending == t1 else { return .ignored }
        pendingT1 = nil   // a duplicate echo must not record twice
        samples.append(ClockSample(t1: t1, t2: t2, t3: t3, t4: now))
        guard samples.count >= ClockSync.rounds, let best = ClockSync.best(of: samples) else { return .moreRounds }
        samples.removeAll(keepingCapacity: true)
        return .done(best)
    }
}
