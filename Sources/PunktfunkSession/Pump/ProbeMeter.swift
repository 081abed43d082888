import PunktfunkWire

/// The client side of a speed test (control-plane.md §5.3), sans I/O: counts the probe-stream
/// datagrams that arrive while a ProbeRequest is open and, with the host's ProbeResult, computes
/// throughput, link loss, host drops and inter-arrival jitter.
///
/// Rules: bytes are delivered wire bytes (header and tag included); the interval is first → last
/// probe arrival (µs, floored at 1 ms) when ≥ 2 packets arrived, else the host's `duration_ms`;
/// throughput_kbps = bytes·8 / interval_ms; link loss % = (wire_packets_sent − received) /
/// wire_packets_sent; host drop % = send_dropped / (wire_packets_sent + send_dropped).
/// Invariants: at most `maxSamples` arrival times are kept (preallocated); later arrivals still
/// count toward bytes, packets and the interval.
public struct ProbeMeter: Sendable {
    public static let maxSamples = 1 << 16

    public struct Report: Sendable, Equatable {
        public var packets: UInt64
        public var bytes: UInt64
        public var intervalMs: Double
        public var throughputKbps: Double
        public var linkLossPercent: Double
        public var hostDropPercent: Double
        /// Inter-arrival gaps, µs (nil with < 2 packets).
        public var jitterP50Us: Double?
        public var jitterP99Us: Double?
        /// The host's figures, as sent.
        public var result: ProbeResult

        /// One JSON object (for `connect --probe`).
        public var json: String {
            func f(_ v: Double?) -> String { v.map { String(format: "%.3f", $0) } ?? "null" }
            return "{\"probe\":{\"packets\":\(packets),\"bytes\":\(bytes),\"interval_ms\":\(f(intervalMs)),"
                + "\"throughput_kbps\":\(f(throughputKbps)),\"link_loss_pct\":\(f(linkLossPercent)),"
                + "\"host_drop_pct\":\(f(hostDropPercent)),\"jitter_p50_us\":\(f(jitterP50Us)),\"jitter_p99_us\":\(f(jitterP99Us)),"
                + "\"host_bytes_sent\":\(result.bytesSent),\"host_packets_sent\":\(result.packetsSent)}}"
        }
    }

    public private(set) var request: ProbeRequest?
    public private(set) var packets: UInt64 = 0
    public private(set) var bytes: UInt64 = 0
    private var first: UInt64?
    private var last: UInt64 = 0
    private var arrivals: [UInt64] = []

    public init() {}

    /// A ProbeRequest was sent: start counting afresh.
    public mutating func begin(_ request: ProbeRequest) {
        self.request = request
        packets = 0
        bytes = 0
        first = nil
        arrivals.removeAll(keepingCapacity: true)
        if arrivals.capacity < Self.maxSamples { arrivals.reserveCapacity(Self.maxSamples) }
    }

    /// `count` probe datagrams totalling `wireBytes` arrived at `now` (ns).
    public mutating func arrived(count: UInt64, wireBytes: UInt64, now: UInt64) {
        guard request != nil, count > 0 else { return }
        packets += count
        bytes += wireBytes
        if first == nil { first = now }
        last = now
        for _ in 0..<count where arrivals.count < Self.maxSamples { arrivals.append(now) }
    }

    /// The host's ProbeResult arrived: the report, and the meter closes.
    public mutating func finish(_ result: ProbeResult) -> Report {
        var intervalMs = Double(result.durationMs)
        if packets >= 2, let first {
            intervalMs = max(1, Double((last - first) / 1000) / 1000)
        }
        intervalMs = max(intervalMs, 1)
        let wire = Double(result.wirePacketsSent != 0 ? result.wirePacketsSent : result.packetsSent)
        let linkLoss = wire > 0 ? max(0, (wire - Double(packets)) / wire * 100) : 0
        let dropDenominator = wire + Double(result.sendDropped)
        let hostDrop = dropDenominator > 0 ? Double(result.sendDropped) / dropDenominator * 100 : 0
        var gaps: [Double] = []
        if arrivals.count >= 2 {
            gaps.reserveCapacity(arrivals.count - 1)
            for i in 1..<arrivals.count { gaps.append(Double(arrivals[i] - arrivals[i - 1]) / 1000) }
            gaps.sort()
        }
        func percentile(_ p: Double) -> Double? {
            gaps.isEmpty ? nil : gaps[min(gaps.count - 1, Int((Double(gaps.count - 1) * p).rounded()))]
        }
        let report = Report(packets: packets, bytes: bytes, intervalMs: intervalMs,
                            throughputKbps: Double(bytes) * 8 / intervalMs,
                            linkLossPercent: linkLoss, hostDropPercent: hostDrop,
                            jitterP50Us: percentile(0.5), jitterP99Us: percentile(0.99), result: result)
        request = nil
        return report
    }
}
