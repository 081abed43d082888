/// Arrival-jitter statistics of one audio stream and the target delay derived from them.
///
/// A packet's *relative delay* `r` is how much later than the fastest recent packets it
/// arrived: `transit = arrivalNs - seq × frameNs`, `base` = the smallest transit (creeping up at
/// `baseCreepNsPerSecond` between arrivals, so a slower path or a sender clock running slow is
/// followed), `r = transit - base ≥ 0`. The sequence number, not `ptsNs`, is the send clock:
/// punktfunk/1 stamps wall-clock time, which can step (data-plane.md §5.1).
///
/// Target = margin + max(held peak of `r`, `quantile` of `r` over a forgetting histogram),
/// clamped. The peak rises at once to any larger `r` (grows quickly under bursts), is held for
/// `peakHoldNs`, then decays exponentially with time constant `peakDecayNs` (shrinks over
/// seconds). The
/// histogram (bins of `binNs`, each packet weighted `1 / histogramPackets` more than the one
/// before, i.e. an exponential window of about `histogramPackets` packets) remembers how often
/// spikes come, so a burst that returns every few seconds keeps the target up.
struct ArrivalJitter: Sendable {
    let frameNs: Int64
    let marginNs: Int64
    let minTargetNs: Int64
    let maxTargetNs: Int64
    let peakHoldNs: Int64
    let peakDecayNs: Double
    let baseCreepNsPerSecond: Int64
    let quantile: Double
    let binNs: Int64
    /// Weight ratio between consecutive packets: 1 / (1 - 1 / histogramPackets).
    let growth: Double

    /// Smallest transit seen (creeping), ns; nil before the first packet.
    private(set) var baseNs: Int64?
    private var lastArrivalNs: Int64 = 0
    /// Held peak of `r`, ns.
    private var peakNs: Double
    private var peakAtNs: Int64 = 0
    private var decayedToNs: Int64 = 0
    /// Forgetting histogram of `r`: bin i holds r in [i × binNs, (i + 1) × binNs); the last bin
    /// everything above.
    private var bins: [Double]
    private var weight: Double = 1
    private var total: Double = 0
    private var quantileNs: Int64 = 0
    private var sinceQuantile = 0

    init(frameNs: Int64, configuration c: JitterConfiguration) {
        self.frameNs = frameNs
        marginNs = c.marginNs
        minTargetNs = c.minTargetNs
        maxTargetNs = c.maxTargetNs
        peakHoldNs = c.peakHoldNs
        peakDecayNs = Double(c.peakDecayNs)
        baseCreepNsPerSecond = c.baseCreepNsPerSecond
        quantile = c.jitterQuantile
        binNs = 500_000
        growth = 1 / (1 - 1 / Double(max(2, c.histogramPackets)))
        peakNs = Double(max(0, c.initialTargetNs - c.marginNs))
        bins = [Double](repeating: 0, count: Int(c.maxTargetNs / 500_000) + 2)
    }

    /// The delay to steer to, ns (as of the last `advance`/`observe`).
    var targetNs: Int64 {
        min(maxTargetNs, max(minTargetNs, marginNs + max(Int64(peakNs), quantileNs)))
    }

    /// The held peak of `r`, ns.
    var heldPeakNs: Int64 { Int64(peakNs) }

    /// Lets the held peak decay up to `nowNs`: after `peakHoldNs`, `peak × e^(−t / peakDecayNs)`
    /// (stepped as `× (1 − Δ/τ)` in steps of at most τ/64, so the error stays below 1 %).
    mutating func advance(nowNs: Int64) {
        let from = max(decayedToNs, peakAtNs + peakHoldNs)
        decayedToNs = max(decayedToNs, nowNs)
        guard nowNs > from, peakNs > 0 else { return }
        var left = Double(nowNs - from)
        let step = peakDecayNs / 64
        while left > 0 && peakNs >= 1 {
            let dt = min(left, step)
            peakNs *= 1 - dt / peakDecayNs
            left -= dt
        }
    }

    /// How late a packet sent as `extSeq` arriving at `nowNs` is compared with the fastest
    /// (the playout delay it needs), ns; 0 before the first packet.
    func relativeDelayNs(extSeq: Int64, nowNs: Int64) -> Int64 {
        guard let base = baseNs else { return 0 }
        return max(0, nowNs - extSeq * frameNs - base)
    }

    /// The playout delay of `extSeq` if its frame starts playing at `nowNs`: time since the
    /// fastest packets would have delivered it, ns.
    func playoutDelayNs(extSeq: Int64, nowNs: Int64) -> Int64 {
        nowNs - extSeq * frameNs - (baseNs ?? nowNs - extSeq * frameNs)
    }

    /// Records an arrival (not a duplicate). - Returns: the packet's relative delay, ns.
    @discardableResult
    mutating func observe(extSeq: Int64, nowNs: Int64) -> Int64 {
        let transit = nowNs - extSeq * frameNs
        if let base = baseNs {
            let crept = base + max(0, nowNs - lastArrivalNs) * baseCreepNsPerSecond / 1_000_000_000
            baseNs = min(crept, transit)
        } else {
            baseNs = transit
            peakAtNs = nowNs - peakHoldNs  // the initial guess decays at once, no hold
            decayedToNs = nowNs
        }
        lastArrivalNs = nowNs
        let r = transit - baseNs!
        advance(nowNs: nowNs)
        if Double(r) >= peakNs {
            peakNs = Double(r)
            peakAtNs = nowNs
        }
        // Histogram: newer packets weigh more; rescale before the weights grow large.
        let bin = Int(min(r / binNs, Int64(bins.count - 1)))
        bins[bin] += weight
        total += weight
        weight *= growth
        if weight > 1e12 {
            for i in bins.indices { bins[i] /= weight }
            total /= weight
            weight = 1
        }
        sinceQuantile += 1
        if sinceQuantile >= 16 {
            sinceQuantile = 0
            updateQuantile()
        }
        return r
    }

    /// Forgets everything but the settings (stream restart).
    mutating func reset(initialTargetNs: Int64) {
        baseNs = nil
        peakNs = Double(max(0, initialTargetNs - marginNs))
        for i in bins.indices { bins[i] = 0 }
        weight = 1
        total = 0
        quantileNs = 0
        sinceQuantile = 0
    }

    private mutating func updateQuantile() {
        let want = total * quantile
        var sum = 0.0
        for i in bins.indices {
            sum += bins[i]
            if sum >= want {
                quantileNs = Int64(i + 1) * binNs
                return
            }
        }
        quantileNs = Int64(bins.count) * binNs
    }
}
