/// How late the presenter thread runs after the event that woke it (timer deadline, frame ready,
/// flip event), for `PacerSimulation`: an empirical distribution given by quantile points, drawn
/// by inverse transform with linear interpolation between neighbouring points.
///
/// The measured models come from `punktfunk-bench wake` (the present loop's own timed wait,
/// `ppoll` with a ns timeout, repeated thousands of times) on the project's 2-core machine with
/// both cores busy; docs/PERFORMANCE.md has the run.
public struct WakeModel: Sendable {
    public struct Point: Sendable {
        /// Cumulative probability, 0…1.
        public var p: Double
        /// Lateness at that probability, ns.
        public var ns: UInt64
        public init(_ p: Double, _ ns: UInt64) { self.p = p; self.ns = ns }
    }

    public var name: String
    /// Increasing in `p` from 0 to 1, non-decreasing in `ns`.
    public var points: [Point]

    public init(name: String, points: [Point]) {
        precondition(points.count >= 2 && points.first!.p == 0 && points.last!.p == 1, "quantiles must span 0…1")
        self.name = name
        self.points = points
    }

    public static func uniform(_ name: String, _ range: ClosedRange<UInt64>) -> WakeModel {
        WakeModel(name: name, points: [Point(0, range.lowerBound), Point(1, range.upperBound)])
    }

    /// The lateness at cumulative probability `u` in [0, 1), ns.
    public func delayNs(at u: Double) -> UInt64 {
        var i = 1
        while i < points.count - 1 && points[i].p <= u { i += 1 }
        let a = points[i - 1], b = points[i]
        let t = (u - a.p) / (b.p - a.p)
        return a.ns + UInt64((Double(b.ns - a.ns) * min(max(t, 0), 1)).rounded())
    }

    /// A present thread with no scheduling tail (an idle machine): 5–150 µs.
    public static let calm = WakeModel.uniform("calm: 5-150 us", 5_000...150_000)

    /// A loop that sleeps in `poll` with millisecond timeouts: up to 1 ms late.
    public static let millisecondPoll = WakeModel.uniform("ms poll: 5 us-1 ms", 5_000...1_000_000)

    /// SCHED_FIFO 10 with a 1 ns timer slack, both cores busy (`punktfunk-bench wake --waits
    /// 50000`, 2026-11-25): p50 26 µs, p99 0.11 ms, p99.9 0.21 ms, 0.074 % over 0.25 ms, one wait in
    /// 50 000 over 1 ms (3.2 ms: a stall of the virtual CPU, which no thread priority prevents).
    public static let realtimeBusy = WakeModel(name: "SCHED_FIFO, busy (measured)", points: [
        Point(0, 2_000), Point(0.5, 26_000), Point(0.9, 73_000), Point(0.99, 113_000), Point(0.999, 205_000),
        Point(0.99926, 250_000), Point(0.9995, 285_000), Point(0.9999, 684_000), Point(0.99998, 1_000_000),
        Point(1, 3_186_000),
    ])

    /// SCHED_OTHER with the default 50 µs timer slack, both cores busy (the same run): the
    /// present thread when real-time priority is refused. p99 0.15 ms, then a tail: 0.29 % over
    /// 0.25 ms, 0.21 % over 1 ms, p99.9 3.2 ms, max 6.0 ms.
    public static let normalBusy = WakeModel(name: "SCHED_OTHER, busy (measured)", points: [
        Point(0, 2_000), Point(0.5, 69_000), Point(0.9, 89_000), Point(0.99, 150_000), Point(0.9971, 250_000),
        Point(0.99786, 1_000_000), Point(0.999, 3_159_000), Point(0.9995, 3_670_000), Point(0.9999, 4_039_000),
        Point(1, 5_984_000),
    ])
}
