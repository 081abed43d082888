/// The two percentile rules the simulations report with, in one place.
public enum Percentile {
    /// Nearest rank: the smallest value with at least a share `q` of the values at or below it
    /// (index ⌈q·n⌉ − 1 of the sorted values). 0 for no values.
    public static func nearestRank(_ values: [Int64], _ q: Double) -> Int64 {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((Double(sorted.count) * q).rounded(.up)) - 1
        return sorted[max(0, min(sorted.count - 1, rank))]
    }

    /// The sorted value at index round(q·(n − 1)) (the A/V skew figures). 0 for no values.
    public static func roundedIndex(_ values: [Int64], _ q: Double) -> Int64 {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((q * Double(sorted.count - 1)).rounded()))]
    }
}
