/// Mid-stream re-sync admission (control-plane.md §4.2). A completed batch's min-RTT estimate is
/// accepted iff its RTT ≤ max(2 ms, 1.5 × floor), where floor is the lowest RTT seen this
/// session — the connect RTT at first, then folded with every batch, rejected ones included.
/// After 3 consecutive rejections the lowest-RTT batch of that streak is applied anyway:
/// bounded queueing bias beats unbounded drift.
///
/// Pure state: no clock reads. Invariant: `rejectedStreak < maxRejectedStreak`, and
/// `bestOfStreak` is non-nil exactly when `rejectedStreak > 0`.
public struct ClockResync: Sendable {
    /// What to do with a batch.
    public enum Admission: Hashable, Sendable {
        /// Within the guard band: apply this batch's estimate.
        case fresh(ClockEstimate)
        /// Congested: keep the current offset. `streak` counts consecutive rejections.
        case rejected(streak: Int)
        /// The streak hit `maxRejectedStreak`: apply the streak's lowest-RTT estimate.
        case bestOfStreak(ClockEstimate)

        /// The estimate to apply, nil on `.rejected`.
        public var estimateToApply: ClockEstimate? {
            switch self {
            case .fresh(let e), .bestOfStreak(let e): return e
            case .rejected: return nil
            }
        }
    }

    /// Re-sync period, ns (`CLOCK_RESYNC_INTERVAL`).
    public static let intervalNs: UInt64 = 60_000_000_000
    /// Spacing of the rounds within a re-sync batch, ns.
    public static let roundSpacingNs: UInt64 = 7_000_000
    /// The guard band never drops below this, ns (so a near-zero LAN RTT does not reject jitter).
    public static let minimumToleranceNs: UInt64 = 2_000_000
    /// Rejections tolerated before the streak's best batch is applied.
    public static let maxRejectedStreak = 3

    /// Lowest RTT seen this session, ns.
    public private(set) var floorRTT: UInt64
    public private(set) var rejectedStreak = 0
    private var bestOfStreak: ClockEstimate?

    /// - Parameter connectRTT: RTT of the connect-time sync's min-RTT sample, ns.
    public init(connectRTT: UInt64) {
        floorRTT = connectRTT
    }

    /// `rtt ≤ max(2 ms, floor + floor / 2)` (inclusive; saturating).
    public static func accepts(rtt: UInt64, floor: UInt64) -> Bool {
        let (band, overflow) = floor.addingReportingOverflow(floor / 2)
        return rtt <= Swift.max(overflow ? .max : band, minimumToleranceNs)
    }

    /// Judges a completed batch against the floor as it stood before the batch, then folds
    /// the batch's RTT into the floor.
    public mutating func admit(_ batch: ClockEstimate) -> Admission {
        let fresh = Self.accepts(rtt: batch.rtt, floor: floorRTT)
        floorRTT = Swift.min(floorRTT, batch.rtt)
        if fresh {
            rejectedStreak = 0
            bestOfStreak = nil
            return .fresh(batch)
        }
        let best = bestOfStreak.map { $0.rtt <= batch.rtt ? $0 : batch } ?? batch
        rejectedStreak += 1
        guard rejectedStreak >= Self.maxRejectedStreak else {
            bestOfStreak = best
            return .rejected(streak: rejectedStreak)
        }
        rejectedStreak = 0
        bestOfStreak = nil
        return .bestOfStreak(best)
    }
}
