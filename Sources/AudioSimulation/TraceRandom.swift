import Foundation
import PunktfunkWire

/// The draws the traces need, from PunktfunkWire's seeded SplitMix64.
struct TraceRandom {
    var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed ^ 0xA0D1_0B0F_FE12_3457) }

    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(rng.next() >> 11) * 0x1p-53 }

    mutating func uniform(_ r: ClosedRange<Int64>) -> Int64 {
        r.lowerBound + Int64(bitPattern: rng.next() % UInt64(r.upperBound - r.lowerBound + 1))
    }

    /// Exponential with mean `mean`, ns (inverse CDF).
    mutating func exponential(mean: Int64) -> Int64 {
        guard mean > 0 else { return 0 }
        return Int64(Double(mean) * -log(1 - unit()))
    }
}
