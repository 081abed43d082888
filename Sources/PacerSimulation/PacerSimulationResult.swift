import Display

/// What one or several merged simulation runs measured.
public struct PacerSimulationResult: Sendable {
    public var frames = 0
    public var displayed = 0
    /// Per displayed frame, ns (see `PacerSimulation` for the definition per display kind).
    public var addedLatencyNs: [UInt64] = []
    public var avoidableDrops = 0
    public var guardExceededDrops = 0
    public var stallDrops = 0
    public var preemptedDrops = 0
    /// The first few avoidable drops' frame ids (of a single run), for diagnosis.
    public var avoidableDropIds: [UInt64] = []
    public var drops = 0
    public var repeats = 0
    public var oracleRepeats = 0
    public var injectedLatchMisses = 0
    public var commits = 0
    public var nextCalls = 0
    public var durationNs: UInt64 = 0
    public var violations: [String] = []
    public var violationCount = 0
    /// The policy's own counters (summed over merged runs).
    public var policyStats = PacerStats()

    public init() {}

    public var meanAddedLatencyMs: Double {
        addedLatencyNs.isEmpty ? 0 : Double(addedLatencyNs.reduce(0, +)) / Double(addedLatencyNs.count) / 1e6
    }

    /// The 99th percentile (nearest rank) of the added latency, ms.
    public var p99AddedLatencyMs: Double {
        guard !addedLatencyNs.isEmpty else { return 0 }
        let sorted = addedLatencyNs.sorted()
        let rank = Int((Double(sorted.count) * 0.99).rounded(.up)) - 1
        return Double(sorted[max(0, min(sorted.count - 1, rank))]) / 1e6
    }

    public mutating func merge(_ other: PacerSimulationResult) {
        frames += other.frames
        displayed += other.displayed
        addedLatencyNs += other.addedLatencyNs
        avoidableDrops += other.avoidableDrops
        guardExceededDrops += other.guardExceededDrops
        stallDrops += other.stallDrops
        preemptedDrops += other.preemptedDrops
        drops += other.drops
        repeats += other.repeats
        oracleRepeats += other.oracleRepeats
        injectedLatchMisses += other.injectedLatchMisses
        commits += other.commits
        nextCalls += other.nextCalls
        durationNs += other.durationNs
        violations += other.violations.prefix(max(0, 8 - violations.count))
        violationCount += other.violationCount
        policyStats.committed += other.policyStats.committed
        policyStats.dropped += other.policyStats.dropped
        policyStats.repeats += other.policyStats.repeats
        policyStats.latchMisses += other.policyStats.latchMisses
        policyStats.flips += other.policyStats.flips
        policyStats.wakeStalls += other.policyStats.wakeStalls
    }
}
