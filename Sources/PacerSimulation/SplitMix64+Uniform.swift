import PunktfunkWire

/// Draws the simulation needs from the project's seeded generator (PunktfunkWire's SplitMix64).
extension SplitMix64 {
    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Uniform in `range` (modulo bias is below 2^-40 for the ranges used here).
    public mutating func uniform(_ range: ClosedRange<UInt64>) -> UInt64 {
        let span = range.upperBound - range.lowerBound
        return span == .max ? next() : range.lowerBound + next() % (span + 1)
    }
}
