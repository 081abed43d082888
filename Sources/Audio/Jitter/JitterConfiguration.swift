/// Settings of an `AudioJitterBuffer`. Times in ns; the defaults fit punktfunk's 5 ms, 48 kHz
/// Opus packets (data-plane.md §5.1).
public struct JitterConfiguration: Sendable, Equatable {
    /// Frames (samples per channel) in one packet: 240 = 5 ms at 48 kHz.
    public var frameSamples: Int = 240
    /// Output sample rate, Hz.
    public var sampleRate: Int = 48_000
    /// Packets the buffer can hold (a power of two): 64 × 5 ms = 320 ms. Storage is allocated
    /// once, at init.
    public var capacity: Int = 64

    /// Bounds of the target delay. The lower bound, one packet, covers the receive thread's
    /// rare wake-up lateness on a busy client (1–4 ms, a few per 1000 packets: too rare for the
    /// statistics to hold, frequent enough to click) on a LAN that shows no jitter otherwise.
    public var minTargetNs: Int64 = 5_000_000
    public var maxTargetNs: Int64 = 120_000_000
    /// Target before anything was measured.
    public var initialTargetNs: Int64 = 20_000_000
    /// Added to the measured jitter: covers what the statistics have not seen yet.
    public var marginNs: Int64 = 1_000_000
    /// A new jitter peak is held this long before it starts to decay.
    public var peakHoldNs: Int64 = 2_000_000_000
    /// Time constant of the held peak's exponential decay after the hold (60 → 5 ms in 5 s).
    public var peakDecayNs: Int64 = 2_000_000_000
    /// With RED (packets that carry their predecessor) and a loss within this long, the target
    /// is one packet higher, so a lost packet's successor is there in time to recover it.
    public var redLossMemoryNs: Int64 = 10_000_000_000
    /// Quantile of the relative-delay histogram the target covers at least.
    public var jitterQuantile: Double = 0.99
    /// Memory of that histogram, packets (exponential window; 4000 = 20 s of 5 ms packets).
    public var histogramPackets: Int = 4_000
    /// How fast the reference "fastest transit" may rise between arrivals, ns per second. Above
    /// the largest clock drift expected (200 ppm = 200 µs/s) so a slow sender clock is followed.
    public var baseCreepNsPerSecond: Int64 = 500_000

    /// Concealment (PLC) runs at most this long in one stretch, then the output goes quiet
    /// (faded out) until packets return.
    public var maxConcealNs: Int64 = 80_000_000
    /// Drift/target control: no stretching while the delay is within this of the target.
    public var deadbandNs: Int64 = 500_000
    /// Drift/target control: an error of `e` ns is corrected at `e / controlTimeNs` (a delay
    /// error of 1 ms moves at 1 ms per second, 1000 ppm), up to `maxStretchFrames` per packet.
    public var controlTimeNs: Int64 = 1_000_000_000
    /// At most this many frames dropped or repeated per period: 2 of 240 = 0.83 % speed, so a
    /// target 50 ms lower is reached in 6 s; 200 ppm of drift needs one frame every 21 periods.
    public var maxStretchFrames: Int = 2
    /// When the delay exceeds the target by more than this (a burst delivered long after an
    /// outage), whole packets are dropped back to the target instead of stretching for minutes.
    public var overflowNs: Int64 = 80_000_000
    /// A sequence number this far (packets) from the expected one is a restarted stream.
    public var resyncDistance: Int64 = 3_000

    public init() {}

    /// One packet's duration, ns.
    public var frameNs: Int64 { Int64(frameSamples) * 1_000_000_000 / Int64(sampleRate) }
}
