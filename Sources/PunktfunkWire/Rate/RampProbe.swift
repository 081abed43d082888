/// The bring-up ramp's step planner (control-plane.md §5.3, `HOST_CAP2_RAMP`), sans I/O: before
/// the first frame the host serves short probe bursts, and the client learns where the link's
/// wall is before the encoder commits to a rate.
///
/// - Steps are `stepMs` (25 ms) ProbeRequests, the first at `startKbps` (5 Mbit/s), each next one
///   at double the last, never above `maxKbps`.
/// - A step that delivered under 90 % of its target found the wall: the wall is what that step
///   delivered, and the stream starts at 70 % of it (room for FEC's growth, keyframes and a link
///   that moves), clamped to [floor, max].
/// - A step that delivered nothing (a declined probe, a lost result) ends the ramp without a wall:
///   no evidence is not a wall. So does a clean step at `maxKbps` (the link carries everything the
///   stream may use); both start at the configured rate.
/// - At most `maxSteps` steps; `RateLoop.applyRamp` takes the verdict.
public struct RampProbe: Sendable {
    public static let startKbps: UInt32 = 5_000
    public static let stepMs: UInt32 = 25
    /// A step is short when it delivered under this share of its target, percent.
    public static let wallDeliveredPercent: UInt32 = 90
    /// Where the stream starts under a found wall, percent of it.
    public static let startPercentOfWall: UInt32 = 70
    public static let maxSteps = 8

    public enum Verdict: Equatable, Sendable {
        /// The link's wall and the start rate under it, kbps.
        case wall(wallKbps: UInt32, startKbps: UInt32)
        /// No wall found: start at the configured rate.
        case noWall
    }

    public enum Step: Equatable, Sendable {
        /// Send this probe and report what it delivered (`delivered(kbps:)`).
        case probe(ProbeRequest)
        case done(Verdict)
    }

    public let maxKbps: UInt32
    public let floorKbps: UInt32
    public private(set) var verdict: Verdict?
    public private(set) var steps = 0
    /// The step in flight (nil before `next()` and once done).
    public private(set) var targetKbps: UInt32?

    public init(maxKbps: UInt32 = RateLoop.automaticMaxKbps, floorKbps: UInt32 = RateLoop.floorKbps) {
        self.maxKbps = max(maxKbps, floorKbps)
        self.floorKbps = floorKbps
    }

    /// The step to take now: the first probe, the one after a reported step, or the verdict.
    public mutating func next() -> Step {
        if let verdict { return .done(verdict) }
        if targetKbps == nil {
            let t = min(Self.startKbps, maxKbps)
            targetKbps = t
            steps += 1
            return .probe(ProbeRequest(targetKbps: t, durationMs: Self.stepMs))
        }
        return .probe(ProbeRequest(targetKbps: targetKbps!, durationMs: Self.stepMs))
    }

    /// What the step in flight delivered, kbps (the client's probe throughput). Returns the next
    /// step.
    public mutating func delivered(kbps: UInt32) -> Step {
        guard verdict == nil, let target = targetKbps else { return next() }
        if kbps == 0 { return finish(.noWall) }
        if UInt64(kbps) * 100 < UInt64(target) * UInt64(Self.wallDeliveredPercent) {
            let start = UInt32(UInt64(kbps) * UInt64(Self.startPercentOfWall) / 100)
            return finish(.wall(wallKbps: kbps, startKbps: min(max(start, floorKbps), maxKbps)))
        }
        if target >= maxKbps || steps >= Self.maxSteps { return finish(.noWall) }
        let t = UInt32(min(UInt64(target) * 2, UInt64(maxKbps)))
        targetKbps = t
        steps += 1
        return .probe(ProbeRequest(targetKbps: t, durationMs: Self.stepMs))
    }

    private mutating func finish(_ v: Verdict) -> Step {
        verdict = v
        targetKbps = nil
        return .done(v)
    }
}
