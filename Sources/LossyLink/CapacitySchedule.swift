/// A bottleneck's capacity over time: steps of (start, kbit/s), times in ns from the schedule's
/// origin (the relay's first client datagram). The first step starts at 0; each holds until the
/// next. Pure.
public struct CapacitySchedule: Sendable, Equatable {
    public struct Step: Sendable, Equatable {
        public var atNs: UInt64
        public var kbps: UInt64
        public init(atNs: UInt64, kbps: UInt64) { self.atNs = atNs; self.kbps = kbps }
    }

    /// Ascending by `atNs`, distinct times, the first at 0.
    public let steps: [Step]

    /// - Returns: nil when `steps` is empty, not strictly ascending, or does not start at 0.
    public init?(steps: [Step]) {
        guard let first = steps.first, first.atNs == 0,
              zip(steps, steps.dropFirst()).allSatisfy({ $0.atNs < $1.atNs }) else { return nil }
        self.steps = steps
    }

    public static func constant(kbps: UInt64) -> CapacitySchedule { CapacitySchedule(steps: [Step(atNs: 0, kbps: kbps)])! }

    /// `"0:40000,40:10000,80:25000"`: comma-separated `SECONDS:KBPS` (seconds may be fractional,
    /// ascending, the first 0). A single `KBPS` without a colon is a constant capacity.
    public init?(parsing text: String) {
        let items = text.split(separator: ",").map { $0.filter { $0 != " " } }
        if items.count == 1, !items[0].contains(":"), let kbps = UInt64(items[0]) {
            self = .constant(kbps: kbps)
            return
        }
        var steps: [Step] = []
        for item in items {
            let parts = item.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let seconds = Double(parts[0]), seconds >= 0, seconds < 1e7,
                  let kbps = UInt64(parts[1]) else { return nil }
            steps.append(Step(atNs: UInt64((seconds * 1e9).rounded()), kbps: kbps))
        }
        self.init(steps: steps)
    }

    /// The capacity at `t` (ns from the origin), kbit/s.
    public func kbps(at t: UInt64) -> UInt64 {
        var lo = 0, hi = steps.count - 1
        while lo < hi {  // the last step with atNs ≤ t
            let mid = (lo + hi + 1) / 2
            if steps[mid].atNs <= t { lo = mid } else { hi = mid - 1 }
        }
        return steps[lo].kbps
    }

    /// The first step start strictly after `t`, or nil.
    public func nextChange(after t: UInt64) -> UInt64? { steps.first { $0.atNs > t }?.atNs }
}

/// A periodic outage: the link passes nothing during [k·period + offset, k·period + offset +
/// duration) for k ≥ 0 (`offset` defaults to one period, so the first outage comes a period in
/// and the handshake gets through). Times in ns from the origin.
public struct Outage: Sendable, Equatable {
    public var durationNs: UInt64
    public var periodNs: UInt64
    public var offsetNs: UInt64

    /// - Precondition: 0 < durationNs < periodNs.
    public init(durationNs: UInt64, periodNs: UInt64, offsetNs: UInt64? = nil) {
        precondition(durationNs > 0 && durationNs < periodNs, "an outage lasts less than its period")
        self.durationNs = durationNs; self.periodNs = periodNs; self.offsetNs = offsetNs ?? periodNs
    }

    /// `"150@30"` (150 ms every 30 s, the first at 30 s) or `"150@30+5"` (the first at 5 s).
    public init?(parsing text: String) {
        let spec = text.filter { $0 != " " }
        let at = spec.split(separator: "@", omittingEmptySubsequences: false)
        guard at.count == 2, let ms = Double(at[0]), ms > 0 else { return nil }
        let rest = at[1].split(separator: "+", omittingEmptySubsequences: false)
        guard rest.count == 1 || rest.count == 2, let period = Double(rest[0]), period > 0, period < 1e7 else { return nil }
        var offset: UInt64?
        if rest.count == 2 {
            guard let o = Double(rest[1]), o >= 0, o < 1e7 else { return nil }
            offset = UInt64((o * 1e9).rounded())
        }
        let d = UInt64((ms * 1e6).rounded()), p = UInt64((period * 1e9).rounded())
        guard d > 0, d < p else { return nil }
        self.init(durationNs: d, periodNs: p, offsetNs: offset)
    }

    /// The end of the outage holding `t`, or nil when the link is up at `t`.
    public func end(containing t: UInt64) -> UInt64? {
        guard t >= offsetNs else { return nil }
        let start = offsetNs + (t - offsetNs) / periodNs * periodNs
        return t < start + durationNs ? start + durationNs : nil
    }

    /// The first outage start strictly after `t`.
    public func nextStart(after t: UInt64) -> UInt64 {
        guard t >= offsetNs else { return offsetNs }
        return offsetNs + ((t - offsetNs) / periodNs + 1) * periodNs
    }
}
