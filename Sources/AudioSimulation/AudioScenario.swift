/// One network/clock situation for `AudioSimulation`: how a host's 5 ms audio packets reach the
/// client, and how fast the client's DAC runs. Times in ns of the client's clock.
///
/// Arrival of packet i (sent at `i × 5 ms × (1 + hostPpm·1e-6)`): send + `baseDelayNs` + an
/// exponential draw of mean `jitterMeanNs`; packets leave the network in order (a packet never
/// overtakes its predecessor, 20 µs apart at least). Then, in this order:
/// - Wi-Fi-like bursts: clusters start at exponential gaps of mean `clusterGapMeanNs` and last
///   `clusterDurationNs`; inside one, stalls start at exponential gaps of mean `spikeGapMeanNs`
///   and last `spikeNs` — every packet sent during a stall is held until it ends (delay spikes of
///   `spikeNs` down to 0, delivered back to back);
/// - receive-thread hiccups: a `hiccupFraction` of packets is handed over `hiccupNs` later;
/// - reordering: a `reorderFraction` of packets is delayed by `reorderNs` (overtaken by 1–3);
/// - loss: independent with probability `lossFraction`; an outage loses everything sent in
///   `[outageStartNs, outageStartNs + outageNs)`;
/// - duplicates: a `duplicateFraction` of packets arrives twice, 0.1–3 ms apart.
public struct AudioScenario: Sendable {
    public var name: String
    /// Length of the trace, s.
    public var seconds: Double
    public var baseDelayNs: Int64 = 500_000
    public var jitterMeanNs: Int64 = 50_000
    public var hiccupFraction = 0.0
    public var hiccupNs: ClosedRange<Int64> = 0...0
    public var clusterGapMeanNs: Int64? = nil
    public var clusterDurationNs: ClosedRange<Int64> = 1_000_000_000...3_000_000_000
    public var spikeGapMeanNs: Int64 = 400_000_000
    public var spikeNs: ClosedRange<Int64> = 20_000_000...60_000_000
    public var lossFraction = 0.0
    public var reorderFraction = 0.0
    public var reorderNs: ClosedRange<Int64> = 6_000_000...14_000_000
    public var duplicateFraction = 0.0
    public var outageStartNs: Int64? = nil
    public var outageNs: Int64 = 500_000_000
    /// The DAC consumes 48000 × (1 + dacPpm·1e-6) frames per second of the client's clock.
    public var dacPpm = 0.0
    /// The host sends one packet per 5 ms × (1 + hostPpm·1e-6) of the client's clock.
    public var hostPpm = 0.0
    /// Every packet carries a RED copy of its predecessor (tag 0xD2).
    public var red = false
    /// First sequence number (near the wrap, so every run crosses it).
    public var firstSeq: UInt32 = 0xFFFF_FE00

    public init(name: String, seconds: Double) {
        self.name = name
        self.seconds = seconds
    }

    /// A wired LAN seen through a busy client: ~50 µs of jitter, and 0.2 % of packets handed
    /// over 1–4 ms late by the receive thread (the SCHED_OTHER wake-up tail measured in
    /// docs/PERFORMANCE.md "Present-thread wake-ups").
    public static func cleanLAN(seconds: Double) -> AudioScenario {
        var s = AudioScenario(name: "clean LAN", seconds: seconds)
        s.hiccupFraction = 0.002
        s.hiccupNs = 1_000_000...4_000_000
        return s
    }

    /// Wi-Fi: 3 ms base, 1 ms mean contention jitter, clustered stalls of 20–60 ms (a cluster of
    /// 1–3 s every ~15 s, a stall every ~0.4 s inside it), plus the receive-thread tail.
    public static func wifi(seconds: Double, loss: Double = 0) -> AudioScenario {
        var s = cleanLAN(seconds: seconds)
        s.name = loss > 0 ? "Wi-Fi bursts, \(percent(loss)) loss" : "Wi-Fi bursts"
        s.baseDelayNs = 3_000_000
        s.jitterMeanNs = 1_000_000
        s.clusterGapMeanNs = 15_000_000_000
        s.lossFraction = loss
        return s
    }

    /// The benchmark's and tests' traces; `seconds` for the short ones, `driftSeconds` for the
    /// two drift runs.
    public static func standard(seconds: Double, driftSeconds: Double) -> [AudioScenario] {
        var list = [cleanLAN(seconds: seconds), wifi(seconds: seconds), wifi(seconds: seconds, loss: 0.01)]
        for loss in [0.01, 0.05] {
            var s = cleanLAN(seconds: seconds)
            s.name = "LAN, \(percent(loss)) loss"
            s.lossFraction = loss
            list.append(s)
        }
        var red = cleanLAN(seconds: seconds)
        red.name = "LAN, 5 % loss, RED"
        red.lossFraction = 0.05
        red.red = true
        list.append(red)
        var reorder = cleanLAN(seconds: seconds)
        reorder.name = "LAN, 2 % reordered, 1 % dup"
        reorder.reorderFraction = 0.02
        reorder.duplicateFraction = 0.01
        list.append(reorder)
        var outage = cleanLAN(seconds: seconds)
        outage.name = "LAN, 500 ms outage"
        outage.outageStartNs = Int64(seconds * 0.5e9)
        list.append(outage)
        for ppm in [200.0, -200.0] {
            var s = cleanLAN(seconds: driftSeconds)
            s.name = "LAN, DAC \(ppm > 0 ? "+" : "")\(Int(ppm)) ppm, \(duration(driftSeconds))"
            s.dacPpm = ppm
            list.append(s)
        }
        return list
    }

    private static func percent(_ x: Double) -> String {
        let p = x * 100
        return p == p.rounded() ? "\(Int(p)) %" : "\(p) %"
    }

    private static func duration(_ s: Double) -> String {
        s >= 3600 && s.truncatingRemainder(dividingBy: 3600) == 0 ? "\(Int(s / 3600)) h" : "\(Int(s)) s"
    }
}
