/// Cumulative counters a stats source reports (monotone non-decreasing; the window takes
/// per-interval differences). Units: bytes of video access units, pictures, nanoseconds, frames.
public struct StatsCounters: Sendable, Equatable {
    public var videoBytes: UInt64
    public var decodedPictures: UInt64
    /// Sum of the decode times of `decodedPictures`, ns.
    public var decodeNs: UInt64
    /// Frames the network path gave up on; nil when the source has no network (a file).
    public var framesLost: UInt64?
    /// The audio sink's one-line summary (buffer/target, concealed, xruns, skew); nil: no audio.
    public var audioLine: String?
    /// The picture's hold after loss (held how long and why, or the last hold); nil: no network.
    public var pictureLine: String?
    /// Where a frame's time goes (host, network, decode, display), p50; nil: no live session yet.
    public var latencyLine: String?
    /// The rate loop: asked and granted rate, its last decision and why; nil: no loop runs.
    public var rateLine: String?
    /// The Wi-Fi link (channel, signal, tx rate); nil: not on Wi-Fi.
    public var linkLine: String?
    /// The stall ledger's words (stalls, their causes, their period); nil: no live session.
    public var stallLine: String?

    public init(videoBytes: UInt64 = 0, decodedPictures: UInt64 = 0, decodeNs: UInt64 = 0, framesLost: UInt64? = nil) {
        self.videoBytes = videoBytes; self.decodedPictures = decodedPictures
        self.decodeNs = decodeNs; self.framesLost = framesLost
    }
}

/// One interval's figures, as the overlay shows them. nil = no sample in the interval.
public struct StatsFigures: Sendable, Equatable {
    /// New frames on glass per second (completed flips that changed the picture).
    public var fps: Double
    /// Video access-unit payload, megabits (10^6) per second.
    public var mbps: Double
    /// Frames lost in the interval and in total (nil: no network source).
    public var lost: (interval: UInt64, total: UInt64)?
    /// Mean decode time per picture in the interval, ms.
    public var decodeMs: Double?
    /// Origin→glass latency percentiles over the interval's frames, ms (nearest rank).
    public var latencyP50Ms: Double?
    public var latencyP95Ms: Double?
    /// The audio line as the source reported it at the interval's end; nil: no audio line.
    public var audioLine: String?
    /// The picture-hold line likewise; nil: none.
    public var pictureLine: String?
    /// The latency-split line likewise; nil: none.
    public var latencyLine: String?
    /// The rate loop's line likewise (shown under Mb/s); nil: none.
    public var rateLine: String?
    /// The link and stall lines likewise (last); nil: none.
    public var linkLine: String?
    public var stallLine: String?

    public static func == (a: Self, b: Self) -> Bool {
        a.fps == b.fps && a.mbps == b.mbps && a.lost?.interval == b.lost?.interval && a.lost?.total == b.lost?.total
            && a.decodeMs == b.decodeMs && a.latencyP50Ms == b.latencyP50Ms && a.latencyP95Ms == b.latencyP95Ms
            && a.audioLine == b.audioLine && a.pictureLine == b.pictureLine && a.latencyLine == b.latencyLine
            && a.rateLine == b.rateLine && a.linkLine == b.linkLine && a.stallLine == b.stallLine
    }

    /// The overlay's text: five lines (then the picture-hold line of a live stream and the audio line, when there are), fixed labels, `-` for a missing figure. `latencyLabel`
    /// names the origin (e.g. "capture→glass").
    public func lines(latencyLabel: String) -> [String] {
        func f(_ v: Double?, _ digits: Int) -> String { v.map { Self.fixed($0, digits) } ?? "-" }
        return [
            "fps     \(Self.fixed(fps, 1))",
            "Mb/s    \(Self.fixed(mbps, 2))",
        ] + (rateLine.map { [$0] } ?? []) + [
            "loss    " + (lost.map { "\($0.interval)/s (total \($0.total))" } ?? "-"),
            "decode  \(f(decodeMs, 2)) ms",
            "\(latencyLabel) p50 \(f(latencyP50Ms, 1)) p95 \(f(latencyP95Ms, 1)) ms",
        ] + (latencyLine.map { [$0] } ?? []) + (pictureLine.map { [$0] } ?? []) + (audioLine.map { [$0] } ?? [])
            + (linkLine.map { [$0] } ?? []) + (stallLine.map { [$0] } ?? [])
    }

    /// The text before the first interval closed.
    public static func placeholderLines(latencyLabel: String) -> [String] {
        ["fps     -", "Mb/s    -", "loss    -", "decode  - ms", "\(latencyLabel) p50 - p95 - ms"]
    }

    /// `v` with `digits` decimals, rounded half away from zero (no Foundation formatting).
    public static func fixed(_ v: Double, _ digits: Int) -> String {
        guard v.isFinite else { return "-" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let n = Int64((abs(v) * scale).rounded())
        let whole = n / Int64(scale), frac = n % Int64(scale)
        var s = (v < 0 && n != 0 ? "-" : "") + String(whole)
        if digits > 0 {
            let f = String(frac)
            s += "." + String(repeating: "0", count: digits - f.count) + f
        }
        return s
    }
}

/// The stats overlay's model: flips and latency samples of the running interval plus the
/// sources' cumulative counters, closed into `StatsFigures` once per `intervalNs`.
/// Pure: every time is a parameter (CLOCK_MONOTONIC ns); no clock is read here.
public struct StatsWindow {
    public let intervalNs: UInt64
    /// Latency samples kept per interval (the rest are ignored; 1024 ≫ any refresh rate).
    public static let maxSamples = 1024

    private var start: UInt64
    private var flips = 0
    private var latencies: [UInt64] = []
    private var last: StatsCounters?

    /// - Parameters: startNs: the first interval's start; counters: the sources' values then.
    public init(startNs: UInt64, counters: StatsCounters, intervalNs: UInt64 = 1_000_000_000) {
        self.intervalNs = max(1, intervalNs)
        start = startNs
        last = counters
        latencies.reserveCapacity(Self.maxSamples)
    }

    /// A new frame reached glass at `flipNs`; `originNs` is when it began (host capture mapped
    /// to the local clock, or the local ready time). A flip before its origin (clock skew)
    /// counts as a frame but gives no latency sample.
    public mutating func frameOnGlass(flipNs: UInt64, originNs: UInt64?) {
        flips += 1
        if let o = originNs, flipNs >= o, latencies.count < Self.maxSamples { latencies.append(flipNs - o) }
    }

    /// Closes the interval when `nowNs` reached its end: figures over the elapsed time, and a
    /// new interval starting at `nowNs`. - Returns: nil while the interval runs.
    public mutating func roll(nowNs: UInt64, counters: StatsCounters) -> StatsFigures? {
        guard nowNs >= start &+ intervalNs else { return nil }
        let seconds = Double(nowNs - start) / 1e9
        let prev = last ?? counters
        let bytes = Self.delta(counters.videoBytes, prev.videoBytes)
        let pictures = Self.delta(counters.decodedPictures, prev.decodedPictures)
        let decodeNs = Self.delta(counters.decodeNs, prev.decodeNs)
        var figures = StatsFigures(fps: Double(flips) / seconds, mbps: Double(bytes) * 8 / 1e6 / seconds)
        if let total = counters.framesLost {
            figures.lost = (Self.delta(total, prev.framesLost ?? 0), total)
        }
        figures.audioLine = counters.audioLine
        figures.pictureLine = counters.pictureLine
        figures.latencyLine = counters.latencyLine
        figures.rateLine = counters.rateLine
        figures.linkLine = counters.linkLine
        figures.stallLine = counters.stallLine
        if pictures > 0 { figures.decodeMs = Double(decodeNs) / Double(pictures) / 1e6 }
        if !latencies.isEmpty {
            latencies.sort()
            figures.latencyP50Ms = Double(Self.nearestRank(latencies, 0.50)) / 1e6
            figures.latencyP95Ms = Double(Self.nearestRank(latencies, 0.95)) / 1e6
        }
        start = nowNs
        flips = 0
        latencies.removeAll(keepingCapacity: true)
        last = counters
        return figures
    }

    /// Growth of a cumulative counter; a counter below its previous value restarted from 0
    /// (a new session after a resume), so all of it is new.
    static func delta(_ now: UInt64, _ before: UInt64) -> UInt64 { now >= before ? now - before : now }

    /// Nearest-rank percentile of sorted, non-empty `values`: the ⌈q·n⌉-th smallest.
    static func nearestRank(_ sorted: [UInt64], _ q: Double) -> UInt64 {
        let rank = Int((q * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

/// Maps host capture timestamps onto the local CLOCK_MONOTONIC (the clock of flip events).
///
/// Video pts are host media-clock ns (data-plane.md §8.6); the session's clock offset is
/// host − client CLOCK_REALTIME (§4 ClockProbe), so the client's realtime at capture is
/// `pts − offset`, and its monotonic time subtracts `realtime − monotonic` sampled locally.
public struct CaptureClock: Sendable, Equatable {
    /// Host − client realtime, ns.
    public var offsetNs: Int64
    /// Client CLOCK_REALTIME − CLOCK_MONOTONIC, ns (sampled once; both tick at the same rate
    /// unless the realtime clock is stepped).
    public var realtimeMinusMonotonicNs: Int64

    public init(offsetNs: Int64, realtimeMinusMonotonicNs: Int64) {
        self.offsetNs = offsetNs; self.realtimeMinusMonotonicNs = realtimeMinusMonotonicNs
    }

    /// Local monotonic ns of a host capture time; nil when it falls before the monotonic epoch
    /// or overflows.
    public func localMonotonicNs(hostPtsNs: Int64) -> UInt64? {
        let (a, o1) = hostPtsNs.subtractingReportingOverflow(offsetNs)
        let (b, o2) = a.subtractingReportingOverflow(realtimeMinusMonotonicNs)
        guard !o1, !o2, b >= 0 else { return nil }
        return UInt64(b)
    }
}
