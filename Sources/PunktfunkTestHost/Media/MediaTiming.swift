/// Capture times of a test host's video frames on a fixed grid: frame slot k is captured at
/// `anchorNs + k/fps` (rounded to the ns), whatever time it is actually sent. The A/V skew check
/// lays a grid on each audio marker's due time so that the marker and one video frame share a
/// capture time, as a capture card stamps both from one clock.
///
/// Invariants: slots are taken in increasing order, each at most once; `take(nowNs:)` behind
/// time gets the newest due slot and skips the older ones (no burst), `takeNext()` gets the next
/// one however late. Pure: the caller passes the time.
public struct VideoFrameGrid: Sendable, Equatable {
    public let anchorNs: UInt64
    public let fps: Double
    /// The next slot not yet taken.
    public private(set) var index: UInt64 = 0

    /// - Precondition: `fps` > 0.
    public init(anchorNs: UInt64, fps: Double) {
        precondition(fps > 0, "fps must be positive")
        self.anchorNs = anchorNs; self.fps = fps
    }

    /// Capture time of slot `k`, CLOCK_MONOTONIC ns.
    public func captureNs(_ k: UInt64) -> UInt64 { anchorNs &+ UInt64((Double(k) * 1e9 / fps).rounded()) }

    /// When the next slot is due.
    public var nextDueNs: UInt64 { captureNs(index) }

    /// Takes the next slot however late it is (a marker's frame must not be skipped) and
    /// returns its capture time.
    public mutating func takeNext() -> UInt64 {
        defer { index += 1 }
        return captureNs(index)
    }

    /// Takes the newest slot due at `nowNs` (skipping older untaken ones) and returns its capture
    /// time; nil when the next slot is still ahead.
    public mutating func take(nowNs: UInt64) -> UInt64? {
        guard nowNs >= nextDueNs else { return nil }
        var k = UInt64((Double(nowNs - anchorNs) * fps / 1e9).rounded(.down))
        if captureNs(k) > nowNs { k -= 1 }          // rounding put k one past now
        if captureNs(k + 1) <= nowNs { k += 1 }
        k = max(k, index)
        index = k + 1
        return captureNs(k)
    }
}

/// A burst of send jitter on a test host's audio: packets due in
/// [`startNs`, `startNs + durationNs`) after the first audio packet are each held back a random
/// 0…`jitterNs` instead of the steady 0…`steadyJitterNs`, so a check can judge the sound that
/// follows it (the jitter buffer grows its target, then walks it back down).
public struct AudioJitterBurst: Sendable, Equatable {
    public var startNs: UInt64
    public var durationNs: UInt64
    public var jitterNs: UInt64

    public init(startNs: UInt64, durationNs: UInt64, jitterNs: UInt64) {
        self.startNs = startNs; self.durationNs = durationNs; self.jitterNs = jitterNs
    }

    /// `START:SECONDS:MS` (seconds after the first audio packet, its length, the jitter bound),
    /// e.g. `16:1:20`; nil when malformed or negative.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).compactMap { Double($0) }
        guard parts.count == 3, parts.allSatisfy({ $0 >= 0 && $0.isFinite }), parts[1] > 0 else { return nil }
        self.init(startNs: UInt64(parts[0] * 1e9), durationNs: UInt64(parts[1] * 1e9), jitterNs: UInt64(parts[2] * 1e6))
    }

    /// The jitter bound for a packet due `sinceFirstNs` after the first audio packet.
    public func bound(sinceFirstNs: UInt64, steadyJitterNs: UInt64) -> UInt64 {
        sinceFirstNs >= startNs && sinceFirstNs - startNs < durationNs ? jitterNs : steadyJitterNs
    }
}
