import Audio

/// What one or several merged `AudioSimulation` runs measured. Periods are 5 ms.
public struct AudioSimulationResult: Sendable {
    public var seconds = 0.0
    public var sent = 0
    public var delivered = 0
    /// Added playout delay per played or recovered packet, ns (see `AudioSimulation`).
    public var delaysNs: [Int64] = []
    public var played = 0
    public var recovered = 0
    public var concealed = 0
    public var muted = 0
    public var idlePeriods = 0
    public var periodsAfterStart = 0
    public var late = 0
    public var duplicates = 0
    public var overflowDrops = 0
    public var insertedFrames = 0
    public var droppedFrames = 0
    /// Largest added delay of a packet played after the first 10 s, ns.
    public var delayAfterWarmupMaxNs: Int64 = 0
    /// Level error (delay − target; baseline: queue − 60 ms) over the run after 10 s, ns.
    public var levelErrorMinNs = Int64.max
    public var levelErrorMaxNs = Int64.min
    /// Mean added delay per minute after the first 10 s, ms.
    public var minuteMeanDelayMs: [Double] = []
    /// Fates settled by the adaptive buffer: lost packets concealed by their own period, lost
    /// packets covered by earlier waiting concealment, packets dropped for room, and how many of
    /// the settled packets never reached the client.
    public var lostConcealed = 0
    public var lostCovered = 0
    public var overflowDropped = 0
    /// Lost fates split: packets the network lost, and packets that arrived after being given up.
    public var lostInNetwork = 0
    public var lostButDelivered = 0
    /// Arrivals the buffer called late / duplicate (each checked against the packet's fate).
    public var lateArrivals = 0
    public var duplicateArrivals = 0
    /// Packet indices `[settledFirst, settledEnd)` the adaptive buffer settled (one run).
    public var settledFirst: Int?
    public var settledEnd = 0
    /// Periods that faded in / out.
    public var fadeIns = 0
    public var fadeOuts = 0
    /// Packets recovered from RED (indices; one run).
    public var recoveredSeqs: Set<Int> = []
    public var violations: [String] = []
    public var violationCount = 0
    /// The adaptive buffer's own counters at the end (last merged run).
    public var stats: JitterStats?

    public init() {}

    public var concealedPercent: Double {
        periodsAfterStart == 0 ? 0 : Double(concealed + muted) / Double(periodsAfterStart) * 100
    }

    /// Nearest-rank percentile of the added delay, ms.
    public func delayPercentileMs(_ q: Double) -> Double {
        Double(Percentile.nearestRank(delaysNs, q)) / 1e6
    }

    /// Largest minus smallest per-minute mean delay, ms (0 for runs under two minutes).
    public var minuteDelaySpreadMs: Double {
        guard let lo = minuteMeanDelayMs.min(), let hi = minuteMeanDelayMs.max() else { return 0 }
        return hi - lo
    }

    /// Last minute's mean delay minus the first's, ms.
    public var delayDriftMs: Double {
        guard let first = minuteMeanDelayMs.first, let last = minuteMeanDelayMs.last else { return 0 }
        return last - first
    }

    public mutating func merge(_ o: AudioSimulationResult) {
        seconds += o.seconds
        sent += o.sent
        delivered += o.delivered
        delaysNs += o.delaysNs
        played += o.played
        recovered += o.recovered
        concealed += o.concealed
        muted += o.muted
        idlePeriods += o.idlePeriods
        periodsAfterStart += o.periodsAfterStart
        late += o.late
        duplicates += o.duplicates
        overflowDrops += o.overflowDrops
        insertedFrames += o.insertedFrames
        droppedFrames += o.droppedFrames
        delayAfterWarmupMaxNs = max(delayAfterWarmupMaxNs, o.delayAfterWarmupMaxNs)
        levelErrorMinNs = min(levelErrorMinNs, o.levelErrorMinNs)
        levelErrorMaxNs = max(levelErrorMaxNs, o.levelErrorMaxNs)
        minuteMeanDelayMs += o.minuteMeanDelayMs
        lostConcealed += o.lostConcealed
        lostCovered += o.lostCovered
        overflowDropped += o.overflowDropped
        lostInNetwork += o.lostInNetwork
        lostButDelivered += o.lostButDelivered
        lateArrivals += o.lateArrivals
        duplicateArrivals += o.duplicateArrivals
        fadeIns += o.fadeIns
        fadeOuts += o.fadeOuts
        violations += o.violations.prefix(max(0, 8 - violations.count))
        violationCount += o.violationCount
        stats = o.stats ?? stats
    }
}
