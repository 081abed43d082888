/// One seeded run of an `AudioScenario`: the packets that reach the client, in arrival order.
public struct AudioTrace: Sendable {
    /// One delivered copy of a packet.
    public struct Arrival: Sendable {
        /// Index of the packet from the first sent (sequence number − `firstSeq`, unwrapped).
        public var index: Int
        public var arrivalNs: Int64
    }

    public let scenario: AudioScenario
    /// Packets the host sent.
    public let sent: Int
    /// Send time of packet i, ns of the client's clock.
    public let sendNs: [Int64]
    /// Whether packet i reached the client (at least once).
    public let delivered: [Bool]
    /// Every delivered copy, in arrival order.
    public let arrivals: [Arrival]

    public static let frameNs: Int64 = 5_000_000

    public init(_ s: AudioScenario, seed: UInt64) {
        scenario = s
        var rng = TraceRandom(seed: seed)
        let count = Int(s.seconds * 200)
        sent = count
        let interval = Double(Self.frameNs) * (1 + s.hostPpm * 1e-6)
        let start: Int64 = 1_000_000_000
        var sendNs = [Int64](repeating: 0, count: count)
        for i in 0..<count { sendNs[i] = start + Int64((Double(i) * interval).rounded()) }
        self.sendNs = sendNs

        // Stalls: [begin, end) in send time.
        var stalls: [(Int64, Int64)] = []
        if let gap = s.clusterGapMeanNs {
            let endNs = sendNs.last ?? start
            var t = start + rng.exponential(mean: gap)
            while t < endNs {
                let clusterEnd = t + rng.uniform(s.clusterDurationNs)
                var u = t
                while u < clusterEnd {
                    let length = rng.uniform(s.spikeNs)
                    stalls.append((u, u + length))
                    u += length + rng.exponential(mean: s.spikeGapMeanNs)
                }
                t = clusterEnd + rng.exponential(mean: gap)
            }
        }

        var arrival = [Int64](repeating: 0, count: count)
        var stall = 0
        var previous = Int64.min
        for i in 0..<count {
            var a = sendNs[i] + s.baseDelayNs + rng.exponential(mean: s.jitterMeanNs)
            while stall < stalls.count && stalls[stall].1 <= sendNs[i] { stall += 1 }
            if stall < stalls.count && stalls[stall].0 <= sendNs[i] {
                a = max(a, stalls[stall].1 + s.baseDelayNs)
            }
            a = max(a, previous + 20_000)  // the network keeps order
            previous = a
            arrival[i] = a
        }
        var delivered = [Bool](repeating: true, count: count)
        var list: [Arrival] = []
        list.reserveCapacity(count + count / 50)
        for i in 0..<count {
            var a = arrival[i]
            if rng.unit() < s.hiccupFraction { a += rng.uniform(s.hiccupNs) }
            if rng.unit() < s.reorderFraction { a += rng.uniform(s.reorderNs) }
            if rng.unit() < s.lossFraction { delivered[i] = false }
            if let o = s.outageStartNs, sendNs[i] >= start + o, sendNs[i] < start + o + s.outageNs { delivered[i] = false }
            guard delivered[i] else { continue }
            list.append(Arrival(index: i, arrivalNs: a))
            if rng.unit() < s.duplicateFraction {
                list.append(Arrival(index: i, arrivalNs: a + rng.uniform(100_000...3_000_000)))
            }
        }
        // Stable: equal times keep send order.
        list.sort { ($0.arrivalNs, $0.index) < ($1.arrivalNs, $1.index) }
        self.delivered = delivered
        arrivals = list
    }

    public func seq(_ index: Int) -> UInt32 { scenario.firstSeq &+ UInt32(truncatingIfNeeded: index) }
}
