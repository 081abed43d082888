/// Per-frame one-way-delay (OWD) and arrival samples, the fast half of the rate loop's senses.
///
/// - The OWD of a frame is its first shard's arrival minus the host's send stamp, in ns, as a
///   signed offset: the client's clock offset is unknown, so only the difference against the
///   rolling minimum (`rise`) means anything. The minimum is kept per 1 s bucket over the last
///   `baselineBuckets` seconds (30 s).
/// - A rise that has stayed ≥ `queueRiseNs` on every frame for `rebaseAfterNs` (10 s) is a new base
///   path (a route or clock change), not a queue: any queue this stream builds drains within a
///   second of a cut, so the minimum is learned again from the current frame (`rebases`).
/// - The last `ringSize` frames (arrival time, wire bytes, rise) stay in a fixed ring, so
///   `congestedKbps` can measure what the bottleneck delivered while its queue was standing.
/// - Window sums (frames, frames over `queueRiseNs`, first/last/max/mean rise, bytes, the longest
///   inter-arrival gap) accumulate until `closeWindow`.
///
/// `record` is O(1) amortised (a 32-bucket scan once per second) and never allocates: the storage
/// is sized at `init`. Times are CLOCK_MONOTONIC ns passed in and must not go backwards.
public struct DelayTrack: Sendable {
    /// Rolling-minimum bucket, ns, and how many buckets (seconds) the minimum spans.
    public static let bucketNs: UInt64 = 1_000_000_000
    public static let baselineBuckets: UInt64 = 30
    /// Frames kept for the delivered-rate measurement (≥ 250 ms even at 240 fps).
    public static let ringSize = 64
    /// A rise this high is a standing queue, ns (25 ms).
    public static let queueRiseNs: Int64 = 25_000_000
    /// A rise this high is a full, deep queue, ns (50 ms).
    public static let bigRiseNs: Int64 = 50_000_000
    /// Frames at or over this rise belong to the congested run whose arrivals measure the
    /// bottleneck, ns (10 ms: past pacing jitter, reached two frames into any real overshoot).
    public static let onsetRiseNs: Int64 = 10_000_000
    /// The longest span the delivered rate is measured over, ns.
    public static let deliveredSpanNs: UInt64 = 250_000_000
    /// A rise ≥ `queueRiseNs` on every frame for this long re-learns the minimum, ns.
    public static let rebaseAfterNs: UInt64 = 10_000_000_000

    private static let bucketSlots = 32

    /// One report window's worth of per-frame samples.
    public struct Summary: Equatable, Sendable {
        public var frames = 0
        /// Frames with a rise ≥ `queueRiseNs`.
        public var highFrames = 0
        public var firstRiseNs: Int64 = 0
        public var lastRiseNs: Int64 = 0
        public var maxRiseNs: Int64 = 0
        public var riseSumNs: Int64 = 0
        public var wireBytes: UInt64 = 0
        public var longestGapNs: UInt64 = 0
        public init() {}
        public var meanRiseNs: Int64 { frames > 0 ? riseSumNs / Int64(frames) : 0 }
    }

    /// The latest frame's rise over the rolling minimum, ns (≥ 0).
    public private(set) var rise: Int64 = 0
    /// Consecutive frames (ending with the latest) with a rise ≥ `queueRiseNs` / ≥ `bigRiseNs`.
    public private(set) var highRun = 0
    public private(set) var bigRun = 0
    /// Inter-arrival time before the latest frame, ns (0 for the first).
    public private(set) var lastGapNs: UInt64 = 0
    public private(set) var lastArrivalNs: UInt64?
    /// Frames recorded, and times the minimum was re-learned.
    public private(set) var frames = 0
    public private(set) var rebases = 0

    private var bucketMin: [Int64]
    private var bucketSecond: [UInt64]
    private var olderMin = Int64.max
    private var second = UInt64.max
    private var arrivals: [UInt64]
    private var sizes: [UInt32]
    private var rises: [Int64]
    private var next = 0
    private var highSince: UInt64?
    private var window = Summary()

    public init() {
        bucketMin = Array(repeating: .max, count: Self.bucketSlots)
        bucketSecond = Array(repeating: .max, count: Self.bucketSlots)
        arrivals = Array(repeating: 0, count: Self.ringSize)
        sizes = Array(repeating: 0, count: Self.ringSize)
        rises = Array(repeating: 0, count: Self.ringSize)
    }

    /// The current rolling minimum OWD, ns (nil before the first frame).
    public var baselineNs: Int64? {
        guard second != .max else { return nil }
        return min(olderMin, bucketMin[Int(second % UInt64(Self.bucketSlots))])
    }

    /// One frame: its first shard's OWD (ns, any offset), the wire bytes it brought, its arrival.
    public mutating func record(owdNs: Int64, wireBytes: UInt32, now: UInt64) {
        lastGapNs = lastArrivalNs.map { now >= $0 ? now - $0 : 0 } ?? 0
        lastArrivalNs = now
        learnMinimum(owdNs, now: now)
        rise = max(0, owdNs - (baselineNs ?? owdNs))
        if rise >= Self.queueRiseNs {
            highRun += 1
            if highSince == nil { highSince = now }
            if let since = highSince, now - since >= Self.rebaseAfterNs {
                rebase(owdNs: owdNs, now: now)
            }
        } else {
            highRun = 0
            highSince = nil
        }
        bigRun = rise >= Self.bigRiseNs ? bigRun + 1 : 0

        arrivals[next] = now
        sizes[next] = wireBytes
        rises[next] = rise
        next = (next + 1) % Self.ringSize
        frames += 1

        if window.frames == 0 { window.firstRiseNs = rise }
        window.frames += 1
        if rise >= Self.queueRiseNs { window.highFrames += 1 }
        window.lastRiseNs = rise
        window.maxRiseNs = max(window.maxRiseNs, rise)
        window.riseSumNs &+= rise
        window.wireBytes &+= UInt64(wireBytes)
        window.longestGapNs = max(window.longestGapNs, lastGapNs)
    }

    /// The rise `k` frames before the latest (0 = the latest), ns; nil when not kept.
    public func riseAgo(_ k: Int) -> Int64? {
        guard k >= 0, k < min(frames, Self.ringSize) else { return nil }
        return rises[(next - 1 - k + 2 * Self.ringSize) % Self.ringSize]
    }

    /// What the bottleneck delivered while its queue stood: the wire bytes of the frames that
    /// completed after the first frame of the current congested run (rise ≥ `onsetRiseNs`, at
    /// most `deliveredSpanNs` back), over the time since that frame arrived. While a queue stands
    /// the bottleneck is never idle, so this is its capacity, measured only over the congested
    /// stretch (a 250 ms average reaching back before a capacity drop would read the old rate).
    /// Without ≥ 3 frames over ≥ 30 ms in the run, the last `deliveredSpanNs` of frames instead.
    public func congestedKbps(now: UInt64) -> (kbps: UInt32, frames: Int, spanNs: UInt64) {
        let kept = min(frames, Self.ringSize)
        guard kept >= 2 else { return (0, 0, 0) }
        var bytes: UInt64 = 0
        var oldest = now
        var n = 0
        var onlyCongested = true
        for pass in 0..<2 {
            bytes = 0; oldest = now; n = 0
            onlyCongested = pass == 0
            for k in 0..<kept {
                let i = (next - 1 - k + 2 * Self.ringSize) % Self.ringSize
                let t = arrivals[i]
                if now > t, now - t > Self.deliveredSpanNs { break }
                if onlyCongested, rises[i] < Self.onsetRiseNs { break }
                // The frame that opens the span only marks its start; its bytes came before it.
                if n > 0 { bytes &+= UInt64(sizes[(i + 1) % Self.ringSize]) }
                oldest = t
                n += 1
            }
            if n >= 3, now - oldest >= 30_000_000 { break }
        }
        let span = now >= oldest ? now - oldest : 0
        return (RateWindow.kbps(bytes: bytes, overNs: span), n, span)
    }

    /// Forget the runs (after a cut: the queue that made them is the cut's to drain).
    public mutating func resetRuns() {
        highRun = 0
        bigRun = 0
    }

    /// The window's samples; starts the next window.
    public mutating func closeWindow() -> Summary {
        let s = window
        window = Summary()
        return s
    }

    /// Learn the minimum again from this frame (a new base path).
    public mutating func rebase(owdNs: Int64, now: UInt64) {
        for i in 0..<Self.bucketSlots {
            bucketMin[i] = .max
            bucketSecond[i] = .max
        }
        olderMin = .max
        second = .max
        learnMinimum(owdNs, now: now)
        rise = 0
        highRun = 0
        bigRun = 0
        highSince = nil
        rebases += 1
    }

    private mutating func learnMinimum(_ owd: Int64, now: UInt64) {
        let s = now / Self.bucketNs
        let slot = Int(s % UInt64(Self.bucketSlots))
        if s != second {
            second = s
            bucketMin[slot] = owd
            bucketSecond[slot] = s
            var m = Int64.max
            for i in 0..<Self.bucketSlots where i != slot {
                let b = bucketSecond[i]
                if b != .max, b < s, s - b < Self.baselineBuckets { m = min(m, bucketMin[i]) }
            }
            olderMin = m
        } else if owd < bucketMin[slot] {
            bucketMin[slot] = owd
        }
    }
}
