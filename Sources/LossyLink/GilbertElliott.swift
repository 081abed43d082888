#if canImport(Glibc)
import Glibc
#endif
import PunktfunkWire

/// The Gilbert–Elliott two-state burst-loss model: a Markov chain over {good, bad} with
/// p = P(good → bad) and r = P(bad → good) per step, and a loss probability in each state.
///
/// The step is either one packet (`.packet`: the chain moves once per `shouldDrop(now:)`) or one
/// millisecond of time (`.millisecond`: the chain moves once per elapsed whole ms of `now`, so a
/// burst lasts a number of ms whatever the packet rate). Several packets inside one ms share a state;
/// each gets its own loss draw.
///
/// Deterministic for a seed; no clock: `now` is CLOCK_MONOTONIC ns supplied by the caller and must
/// not go backwards (a smaller `now` moves the chain zero steps).
public struct GilbertElliott: Sendable {
    public enum Unit: String, Sendable, CaseIterable {
        case packet
        case millisecond = "ms"
    }

    /// The model without its state: probabilities in 0…1, per step of `unit`.
    public struct Parameters: Sendable, Equatable {
        /// P(good → bad) per step.
        public var p: Double
        /// P(bad → good) per step; the mean burst (time in bad) is 1/r steps.
        public var r: Double
        /// Loss probability while good.
        public var lossGood: Double
        /// Loss probability while bad.
        public var lossBad: Double
        public var unit: Unit

        public init(p: Double, r: Double, lossGood: Double = 0, lossBad: Double = 1, unit: Unit = .packet) {
            self.p = p; self.r = r; self.lossGood = lossGood; self.lossBad = lossBad; self.unit = unit
        }

        /// The parameters for `averageLoss` (0…<1, a fraction) in bursts of `meanBurst` steps (≥ 1)
        /// with lossGood = 0, lossBad = 1: r = 1/meanBurst, p = r·a/(1 − a), so π_bad = a.
        /// Example: 2 % in bursts of 20 ms is `(averageLoss: 0.02, meanBurst: 20, unit: .millisecond)`.
        /// - Returns: nil when the pair is out of range (a ∉ [0, 1), meanBurst < 1, or p > 1).
        public init?(averageLoss a: Double, meanBurst: Double, unit: Unit) {
            guard a >= 0, a < 1, meanBurst >= 1 else { return nil }
            let r = 1 / meanBurst
            let p = r * a / (1 - a)
            guard p <= 1 else { return nil }
            self.init(p: p, r: r, lossGood: 0, lossBad: 1, unit: unit)
        }

        /// Independent (Bernoulli) per-packet loss `a`: the chain with p + r = 1 forgets its state.
        public static func independent(loss a: Double) -> Parameters {
            Parameters(p: a, r: 1 - a, lossGood: 0, lossBad: 1, unit: .packet)
        }

        public var isValid: Bool {
            [p, r, lossGood, lossBad].allSatisfy { $0 >= 0 && $0 <= 1 }
        }

        /// π_bad = p/(p + r), the long-run share of steps in bad (0 for a chain that never moves).
        public var stationaryBad: Double { p + r > 0 ? p / (p + r) : 0 }
        /// π_bad·lossBad + π_good·lossGood: the long-run loss fraction.
        public var stationaryLoss: Double { stationaryBad * lossBad + (1 - stationaryBad) * lossGood }
        /// 1/r: mean steps per stay in bad (infinite for r = 0).
        public var meanBurstSteps: Double { 1 / r }
    }

    public let parameters: Parameters
    /// The chain's state now (true = bad).
    public private(set) var isBad: Bool
    private var rng: SplitMix64
    /// `.millisecond`: the whole ms (now / 10^6) the state belongs to; nil before the first call.
    private var tick: UInt64?

    /// Starts in a state drawn from the stationary distribution, so a short run is unbiased.
    /// - Precondition: `parameters.isValid`.
    public init(_ parameters: Parameters, seed: UInt64) {
        precondition(parameters.isValid, "Gilbert–Elliott probabilities must lie in 0…1")
        self.parameters = parameters
        rng = SplitMix64(seed: seed)
        isBad = false
        isBad = uniform() < parameters.stationaryBad
    }

    /// Moves the chain `n` steps with one draw, from the n-step transition probability
    /// P(bad after n | s) = π + (s − π)·(1 − p − r)^n (s = 1 if bad now, else 0). n = 1 is one step.
    public mutating func advance(steps n: UInt64) {
        guard n > 0 else { return }
        let (p, r) = (parameters.p, parameters.r)
        guard p + r > 0 else { return }  // the chain never moves
        let pi = p / (p + r)
        let s: Double = isBad ? 1 : 0
        let lambda = 1 - p - r
        let decay = n == 1 ? lambda : pow(lambda, Double(n))
        isBad = uniform() < pi + (s - pi) * decay
    }

    /// One packet at `now` (ns): steps the chain (one step per packet, or once per whole ms elapsed
    /// since the last call), then draws the loss in the state reached. - Returns: drop it.
    public mutating func shouldDrop(now: UInt64) -> Bool {
        switch parameters.unit {
        case .packet:
            advance(steps: 1)
        case .millisecond:
            let t = now / 1_000_000
            if let last = tick, t > last { advance(steps: t - last) }
            if tick == nil || t > tick! { tick = t }
        }
        return uniform() < (isBad ? parameters.lossBad : parameters.lossGood)
    }

    /// Uniform in [0, 1), 53 random bits.
    private mutating func uniform() -> Double { Double(rng.next() >> 11) * 0x1p-53 }
}
