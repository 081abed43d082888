/// The CPU scale's budget verdict over one layout: the first `warmUp` conversions are not judged
/// (their writes fault in fresh buffers' pages), the next `judged` are; over `budgetNs` on
/// average, the layout falls back to 1:1. Pure: times are passed in.
public struct CPUFitBudget: Sendable, Equatable {
    public static let warmUp = 4
    public static let judged = 8
    /// ns one conversion may take on average (half the screen's refresh period).
    public let budgetNs: UInt64
    public private(set) var seen = 0
    public private(set) var sumNs: UInt64 = 0

    public init(budgetNs: UInt64) { self.budgetNs = budgetNs }

    /// One conversion took `ns`. - Returns: the judged mean, once, when it is over the budget.
    public mutating func record(_ ns: UInt64) -> UInt64? {
        seen += 1
        guard seen > Self.warmUp, seen <= Self.warmUp + Self.judged else { return nil }
        sumNs += ns
        guard seen == Self.warmUp + Self.judged else { return nil }
        let mean = sumNs / UInt64(Self.judged)
        return mean > budgetNs ? mean : nil
    }

    /// The judged mean so far (0 before the first judged conversion).
    public var meanNs: UInt64 {
        let n = min(max(seen - Self.warmUp, 0), Self.judged)
        return n == 0 ? 0 : sumNs / UInt64(n)
    }
}
