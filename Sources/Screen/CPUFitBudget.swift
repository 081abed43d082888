/// The CPU scale's budget verdict over one layout: the first `warmUp` conversions are not judged
/// (their writes fault in fresh buffers' pages), the next `judged` are; over `budgetNs` on
/// average — or a single one over `hopeless` times it, which no average of the rest can mend
/// (an emulated CPU) — the layout falls back to 1:1. Pure: times are passed in.
public struct CPUFitBudget: Sendable, Equatable {
    public static let warmUp = 2
    public static let judged = 8
    /// A judged conversion this many times over the budget ends the judging at once.
    public static let hopeless: UInt64 = 4
    /// ns one conversion may take on average (half the screen's refresh period).
    public let budgetNs: UInt64
    public private(set) var seen = 0
    public private(set) var sumNs: UInt64 = 0
    private var decided = false

    public init(budgetNs: UInt64) { self.budgetNs = budgetNs }

    /// One conversion took `ns`. - Returns: the judged mean so far, once, when it is over the
    /// budget (after all `judged`, or at once for a hopeless one).
    public mutating func record(_ ns: UInt64) -> UInt64? {
        seen += 1
        guard !decided, seen > Self.warmUp, seen <= Self.warmUp + Self.judged else { return nil }
        sumNs += ns
        let mean = meanNs
        if ns > Self.hopeless * budgetNs || seen == Self.warmUp + Self.judged {
            decided = true
            return mean > budgetNs || ns > Self.hopeless * budgetNs ? mean : nil
        }
        return nil
    }

    /// The judged mean so far (0 before the first judged conversion).
    public var meanNs: UInt64 {
        let n = min(max(seen - Self.warmUp, 0), Self.judged)
        return n == 0 ? 0 : sumNs / UInt64(n)
    }
}
