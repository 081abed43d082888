import PunktfunkWire

/// What one direction of the relay does to a packet. Times in ns (the CLI takes ms).
public struct ImpairmentConfig: Sendable, Equatable {
    /// Burst loss; nil = no loss.
    public var loss: GilbertElliott.Parameters?
    /// Fixed one-way delay, ns. Always applied (it is the path).
    public var delayNs: UInt64
    /// Extra delay uniform in 0…jitterNs, per packet. Always applied; may reorder.
    public var jitterNs: UInt64
    /// Probability (0…1) that a packet is held back by an extra `reorderDelayNs`, so later ones
    /// overtake it.
    public var reorderProbability: Double
    public var reorderDelayNs: UInt64
    /// Probability (0…1) that a packet is sent twice (the copy right after the original).
    public var duplicateProbability: Double

    public init(loss: GilbertElliott.Parameters? = nil, delayNs: UInt64 = 0, jitterNs: UInt64 = 0,
                reorderProbability: Double = 0, reorderDelayNs: UInt64 = 0, duplicateProbability: Double = 0) {
        self.loss = loss; self.delayNs = delayNs; self.jitterNs = jitterNs
        self.reorderProbability = reorderProbability; self.reorderDelayNs = reorderDelayNs
        self.duplicateProbability = duplicateProbability
    }

    public static let none = ImpairmentConfig()
}

/// One direction's impairment as a pure decision: given (now, whether the packet may be impaired)
/// it says drop, or when to release it (and a copy). Deterministic for a seed; no clock, no I/O.
///
/// Invariants: a released packet's time is in [now + delay, now + delay + jitter] unless held back,
/// then exactly `reorderDelayNs` later; a copy is released at the original's time. Loss, hold-back
/// and duplication apply only when `impair` is true; delay and jitter always. The loss chain and the
/// timing draws use separate generators, so turning jitter on does not change the loss pattern.
public struct LinkImpairment: Sendable {
    public enum Verdict: Sendable, Equatable {
        case drop
        /// Release at `atNs`; a copy too when `copy`; `heldBack` = the reorder hold-back applied.
        case deliver(atNs: UInt64, copy: Bool, heldBack: Bool)
    }

    public let config: ImpairmentConfig
    private var loss: GilbertElliott?
    private var rng: SplitMix64

    /// Two sub-seeds are drawn from `seed` (loss chain, timing).
    public init(_ config: ImpairmentConfig, seed: UInt64) {
        self.config = config
        var seeds = SplitMix64(seed: seed)
        let lossSeed = seeds.next()
        rng = SplitMix64(seed: seeds.next())
        loss = config.loss.map { GilbertElliott($0, seed: lossSeed) }
    }

    /// - Parameters: now: CLOCK_MONOTONIC ns, never decreasing; impair: loss, hold-back and
    ///   duplication may apply to this packet.
    public mutating func decide(now: UInt64, impair: Bool) -> Verdict {
        if impair, loss?.shouldDrop(now: now) == true { return .drop }
        var at = now &+ config.delayNs
        if config.jitterNs > 0 {
            at &+= config.jitterNs == .max ? rng.next() : rng.next() % (config.jitterNs + 1)
        }
        var heldBack = false
        var copy = false
        if impair {
            if config.reorderProbability > 0, uniform() < config.reorderProbability {
                heldBack = true
                at &+= config.reorderDelayNs
            }
            if config.duplicateProbability > 0, uniform() < config.duplicateProbability { copy = true }
        }
        return .deliver(atNs: at, copy: copy, heldBack: heldBack)
    }

    private mutating func uniform() -> Double { Double(rng.next() >> 11) * 0x1p-53 }
}
