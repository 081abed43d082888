/// What a bottleneck link is: its capacity over time, its drop-tail queue and its outages.
public struct BottleneckConfig: Sendable, Equatable {
    public var schedule: CapacitySchedule
    /// The drop-tail limit as time at the current capacity: limit bytes = kbps·125·queueNs/10⁹
    /// (100 ms at 10 Mbit/s = 125 000 bytes).
    public var queueNs: UInt64
    /// While any of these is on, nothing leaves; arrivals are held in the queue (up to its limit,
    /// the rest dropped) and go out back to back at the capacity when the outage ends.
    public var outages: [Outage]

    public init(schedule: CapacitySchedule, queueNs: UInt64 = 100_000_000, outages: [Outage] = []) {
        self.schedule = schedule; self.queueNs = queueNs; self.outages = outages
    }
}

/// One direction's bottleneck as a pure model: a FIFO serializer at the scheduled capacity behind
/// a drop-tail byte queue. Each offered packet is either dropped or told when its last bit leaves
/// (`depart`), computed from bytes/capacity at offer time (the capacity is a known function of
/// time, outages included), so the caller schedules its release instead of polling. No clock:
/// times are CLOCK_MONOTONIC ns the caller passes, never decreasing.
///
/// Rules:
/// - The schedule's origin is `start(originNs:)`, else the first offer.
/// - A packet starts serializing when the one before it has left (or on arrival, if the link is
///   idle) and takes bytes·8/capacity, the capacity integrated piecewise over steps and outages.
/// - Queue = bytes accepted and not yet departed (the one being serialized included). Arriving
///   with queue + size > limit(capacity now) drops it, unless the queue is empty (a packet larger
///   than the whole limit still passes an idle link). Capacity 0 drops everything.
/// - Queue delay (sojourn) of a packet = departure − arrival: waiting plus its own serialization.
public struct Bottleneck: Sendable {
    public enum Verdict: Sendable, Equatable {
        case drop
        /// The last bit leaves the bottleneck at this time (ns); add the path delay after it.
        case depart(atNs: UInt64)
    }

    /// Running totals.
    public struct Totals: Sendable, Equatable {
        public var acceptedPackets = 0
        public var acceptedBytes: UInt64 = 0
        public var drops = 0
        public var dropBytes: UInt64 = 0
        /// Bytes and packets whose departure time has passed (as of the last `advance`).
        public var departedPackets = 0
        public var departedBytes: UInt64 = 0
        public var maxQueueDelayNs: UInt64 = 0
        public init() {}
    }

    /// The state at one instant, for the 100 ms queue log.
    public struct Snapshot: Sendable, Equatable {
        public var capacityKbps: UInt64
        public var inOutage: Bool
        public var queueBytes: Int
        /// Until the last queued packet has left, ns (outages included).
        public var queueNs: UInt64
        /// Cumulative departed bytes and drops.
        public var departedBytes: UInt64
        public var drops: Int
    }

    /// Bin width of the queue-delay histogram, ns (percentiles are the bin's upper edge).
    public static let histogramBinNs: UInt64 = 50_000
    static let histogramBins = 200_000  // 10 s; longer delays count in the last bin

    public let config: BottleneckConfig
    public private(set) var originNs: UInt64?
    public private(set) var totals = Totals()
    private var backlog: [(departNs: UInt64, bytes: Int)] = []
    private var head = 0
    public private(set) var queueBytes = 0
    /// When the last accepted packet leaves, ns (absolute).
    private var lastDepartNs: UInt64 = 0
    private var histogram: [UInt32] = []

    public init(_ config: BottleneckConfig) { self.config = config }

    /// Sets the schedule's origin if not set yet.
    public mutating func start(originNs: UInt64) { if self.originNs == nil { self.originNs = originNs } }

    /// Time since the origin (0 before it).
    public func relative(_ now: UInt64) -> UInt64 { now &- min(now, originNs ?? now) }

    public func capacityKbps(at now: UInt64) -> UInt64 { config.schedule.kbps(at: relative(now)) }

    /// The drop-tail limit at `now`, bytes.
    public func limitBytes(at now: UInt64) -> Int {
        Int(Double(capacityKbps(at: now)) * 125 * Double(config.queueNs) / 1e9)
    }

    public func inOutage(at now: UInt64) -> Bool {
        let t = relative(now)
        return config.outages.contains { $0.end(containing: t) != nil }
    }

    /// One packet of `bytes` arriving at `now`.
    public mutating func offer(bytes: Int, now: UInt64) -> Verdict {
        start(originNs: now)
        advance(to: now)
        let limit = limitBytes(at: now)
        guard capacityKbps(at: now) > 0, queueBytes == 0 || queueBytes + bytes <= limit else {
            totals.drops += 1
            totals.dropBytes += UInt64(bytes)
            return .drop
        }
        let origin = originNs!
        let begin = max(relative(now), relative(max(lastDepartNs, origin)))
        let end = finish(startingAt: begin, bits: Double(bytes) * 8)
        guard end < UInt64.max / 2 else {  // the capacity never comes back: it would never leave
            totals.drops += 1
            totals.dropBytes += UInt64(bytes)
            return .drop
        }
        let depart = max(origin &+ end, now)
        backlog.append((depart, bytes))
        queueBytes += bytes
        lastDepartNs = depart
        totals.acceptedPackets += 1
        totals.acceptedBytes += UInt64(bytes)
        record(delay: depart - now)
        return .depart(atNs: depart)
    }

    /// Retires packets whose departure time is ≤ `now` (counts them as departed).
    public mutating func advance(to now: UInt64) {
        while head < backlog.count, backlog[head].departNs <= now {
            queueBytes -= backlog[head].bytes
            totals.departedBytes += UInt64(backlog[head].bytes)
            totals.departedPackets += 1
            head += 1
        }
        if head > 1024, head * 2 > backlog.count {
            backlog.removeFirst(head)
            head = 0
        }
    }

    /// Until the queue has drained, from `now`, ns.
    public func queueDelayNs(at now: UInt64) -> UInt64 { lastDepartNs > now ? lastDepartNs - now : 0 }

    /// Advances to `now` and reads the state there.
    public mutating func snapshot(at now: UInt64) -> Snapshot {
        advance(to: now)
        return Snapshot(capacityKbps: capacityKbps(at: now), inOutage: inOutage(at: now), queueBytes: queueBytes,
                        queueNs: queueDelayNs(at: now), departedBytes: totals.departedBytes, drops: totals.drops)
    }

    /// The p-quantile (0…1) of the accepted packets' queue delays, ns (the histogram bin's upper
    /// edge); 0 with none.
    public func queueDelayPercentileNs(_ p: Double) -> UInt64 {
        let n = totals.acceptedPackets
        guard n > 0 else { return 0 }
        let rank = max(1, Int((p * Double(n)).rounded(.up)))
        var seen = 0
        for (i, count) in histogram.enumerated() {
            seen += Int(count)
            if seen >= rank {
                return i == Self.histogramBins - 1 ? totals.maxQueueDelayNs : min(UInt64(i + 1) * Self.histogramBinNs, totals.maxQueueDelayNs)
            }
        }
        return totals.maxQueueDelayNs
    }

    /// When `bits` starting at `start` (ns from the origin) have all left: the capacity is
    /// integrated over its steps, nothing leaves during an outage. `.max` if the link never
    /// carries them (capacity 0 forever).
    func finish(startingAt start: UInt64, bits: Double) -> UInt64 {
        var t = start
        var remaining = bits
        while true {
            if let end = config.outages.compactMap({ $0.end(containing: t) }).max() {
                t = end
                continue
            }
            let kbps = config.schedule.kbps(at: t)
            let boundary = ([config.schedule.nextChange(after: t)] + config.outages.map { Optional($0.nextStart(after: t)) })
                .compactMap { $0 }.min()
            guard kbps > 0 else {
                guard let boundary else { return .max }
                t = boundary
                continue
            }
            let perNs = Double(kbps) / 1e6  // bits per ns
            let need = remaining / perNs
            if let boundary, Double(t) + need > Double(boundary) {
                remaining -= Double(boundary - t) * perNs
                t = boundary
                continue
            }
            return t &+ UInt64(need.rounded(.up))
        }
    }

    /// The final figures as one JSON object (no newline): bytes counted as the bottleneck counts
    /// them (payload + overhead), delays in ms.
    public var summaryJSON: String {
        "{\"accepted_packets\":\(totals.acceptedPackets),\"accepted_bytes\":\(totals.acceptedBytes),"
            + "\"delivered_packets\":\(totals.departedPackets),\"delivered_bytes\":\(totals.departedBytes),"
            + "\"drops\":\(totals.drops),\"drop_bytes\":\(totals.dropBytes),"
            + "\"queue_delay_p50_ms\":\(Double(queueDelayPercentileNs(0.5)) / 1e6),"
            + "\"queue_delay_p95_ms\":\(Double(queueDelayPercentileNs(0.95)) / 1e6),"
            + "\"queue_delay_max_ms\":\(Double(totals.maxQueueDelayNs) / 1e6)}"
    }

    private mutating func record(delay: UInt64) {
        if histogram.isEmpty { histogram = [UInt32](repeating: 0, count: Self.histogramBins) }
        let bin = min(Int(delay / Self.histogramBinNs), Self.histogramBins - 1)
        histogram[bin] &+= 1
        totals.maxQueueDelayNs = max(totals.maxQueueDelayNs, delay)
    }
}
