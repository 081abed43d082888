#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import LossyLink

/// `pf-relay`: a lossy UDP relay on loopback for loss tests (this kernel has no sch_netem). The
/// client sends to `--listen`; the relay forwards to `--to` and relays the host's replies back, each
/// direction through its own seeded `LinkImpairment`. Prints `pf-relay listening on 127.0.0.1:PORT`
/// on stderr once bound, and one JSON line of counters on stdout when it ends (SIGINT, SIGTERM or
/// `--seconds`).
@main
struct PFRelay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pf-relay",
        abstract: "Relay UDP between a client and a host on 127.0.0.1 with seeded burst loss, delay, jitter, reordering and duplication.",
        discussion: """
            Delay and jitter apply to every datagram in both directions (one-way values). Loss, \
            reordering and duplication apply only to the --lossy directions, only from --start-after \
            seconds after the first client datagram, and with --media-only only to media datagrams \
            (first byte & 0xC0 == 0).

            Bottleneck (--capacity): every datagram of the --bottleneck-dir directions (QUIC too) \
            passes a FIFO serializer at the scheduled capacity behind a drop-tail queue of --queue-ms \
            of the current capacity (bytes limit = kbps·125·queue_ms/1000), after the loss draw and \
            before --delay-ms/--jitter-ms. Each datagram counts as its UDP payload + 28 bytes \
            (IPv4 + UDP headers). The schedule's clock starts at the first client datagram. During \
            an --outage nothing leaves: arrivals are held in the queue up to its limit (the rest are \
            dropped, as a full AP queue would) and burst out back to back at the capacity when the \
            outage ends. --queue-log writes one JSON line per 100 ms and direction: \
            {"t_ms","dir","capacity_kbps","outage","queue_ms","queue_bytes","sent_kbps","drops","mono_ns"}; the \
            final counters line gets per direction "dropped_bottleneck" and "bottleneck": \
            {accepted/delivered packets and bytes, drops, queue_delay_p50/p95/max_ms}.
            """)

    @Option(help: "Address the client sends to (127.x.x.x:PORT; port 0 = ephemeral).") var listen = "127.0.0.1:0"
    @Option(help: "Host address (127.x.x.x:PORT).") var to: String
    @Option(help: "Average loss, percent: independent per packet, or with --burst-ms in bursts.") var loss: Double?
    @Option(name: .customLong("burst-ms"), help: "Mean loss burst, ms (Gilbert–Elliott stepped once per ms, with --loss).") var burstMs: Double?
    @Option(help: "Explicit Gilbert–Elliott p,r[,lossGood,lossBad] (probabilities 0…1 per step; lossGood 0, lossBad 1 by default).") var ge: String?
    @Option(name: .customLong("ge-unit"), help: "Step of --ge: packet or ms.") var geUnit = "packet"
    @Option(name: .customLong("delay-ms"), help: "Fixed one-way delay, ms.") var delayMs = 0.0
    @Option(name: .customLong("jitter-ms"), help: "Extra one-way delay uniform in 0…J ms (reorders).") var jitterMs = 0.0
    @Option(help: "Packets held back by --reorder-ms, percent.") var reorder = 0.0
    @Option(name: .customLong("reorder-ms"), help: "Hold-back of a reordered packet, ms.") var reorderMs = 10.0
    @Option(help: "Packets sent twice, percent.") var duplicate = 0.0
    @Option(help: "Seed for every random draw.") var seed: UInt64 = 1
    @Option(help: "A dozing receiver MS:N: host → client media after ≥ MS ms without any loses its first N datagrams (a radio in power save missing the head of each frame; from --start-after on).") var doze: String?
    @Option(name: .customLong("start-after"), help: "Impair only from this many seconds after the first client datagram.") var startAfter = 0.0
    @Option(help: "Exit after this many seconds (default: until SIGINT/SIGTERM).") var seconds: Double?
    @Flag(name: .customLong("media-only"), help: "Impair only media datagrams; QUIC gets delay and jitter only.") var mediaOnly = false
    @Option(help: "Directions impaired: h2c, c2h or both.") var lossy = "both"
    @Option(name: .customLong("queue-limit"), help: "Most datagrams held in the delay queue; more are dropped and counted.") var queueLimit = 65_536
    @Option(help: "Bottleneck capacity schedule, SECONDS:KBPS,… from the first client datagram (e.g. 0:40000,40:10000,80:25000), or one KBPS.") var capacity: String?
    @Option(name: .customLong("bottleneck-dir"), help: "Directions through the bottleneck: h2c, c2h or both (each its own link).") var bottleneckDir = "h2c"
    @Option(name: .customLong("queue-ms"), help: "Bottleneck drop-tail queue, ms of the current capacity.") var queueMs = 100.0
    @Option(help: "Bottleneck outage MS@PERIOD_S[+FIRST_S]: nothing passes for MS ms every PERIOD_S s (first at FIRST_S, default PERIOD_S); repeatable, or comma-separated.") var outage: [String] = []
    @Option(name: .customLong("queue-log"), help: "Write the bottleneck's state every 100 ms as JSON lines {\"t_ms\",\"dir\",\"capacity_kbps\",\"outage\",\"queue_ms\",\"queue_bytes\",\"sent_kbps\",\"drops\",\"mono_ns\"}.") var queueLog: String?
    @Option(name: .customLong("drop-log"), help: "Write each dropped media datagram as a JSON line {\"dir\",\"seq_low\",\"mono_ns\"}.") var dropLog: String?

    func validate() throws {
        guard LoopbackAddress(listen) != nil else { throw ValidationError("--listen must be 127.x.x.x:PORT") }
        guard let host = LoopbackAddress(to), host.port != 0 else { throw ValidationError("--to must be 127.x.x.x:PORT with a port") }
        _ = try lossModel()
        guard ["h2c", "c2h", "both"].contains(lossy) else { throw ValidationError("--lossy is h2c, c2h or both") }
        for (name, value) in [("--reorder", reorder), ("--duplicate", duplicate)] where !(0...100).contains(value) {
            throw ValidationError("\(name) is a percentage 0…100")
        }
        for (name, value) in [("--delay-ms", delayMs), ("--jitter-ms", jitterMs), ("--reorder-ms", reorderMs), ("--start-after", startAfter)]
        where !(value >= 0 && value < 1e9) {
            throw ValidationError("\(name) must be ≥ 0")
        }
        if let seconds, !(seconds > 0) { throw ValidationError("--seconds must be > 0") }
        guard queueLimit > 0 else { throw ValidationError("--queue-limit must be > 0") }
        _ = try bottleneckModel()
    }

    /// The bottleneck the options ask for, or nil for none.
    func bottleneckModel() throws -> BottleneckConfig? {
        guard let capacity else {
            if !outage.isEmpty || queueLog != nil { throw ValidationError("--outage and --queue-log need --capacity") }
            return nil
        }
        guard let schedule = CapacitySchedule(parsing: capacity) else {
            throw ValidationError("--capacity takes SECONDS:KBPS,… ascending from 0 (e.g. 0:40000,40:10000) or one KBPS")
        }
        guard ["h2c", "c2h", "both"].contains(bottleneckDir) else { throw ValidationError("--bottleneck-dir is h2c, c2h or both") }
        guard queueMs > 0, queueMs < 1e6 else { throw ValidationError("--queue-ms must be > 0") }
        var outages: [Outage] = []
        for spec in outage.flatMap({ $0.split(separator: ",") }) {
            guard let o = Outage(parsing: String(spec)) else {
                throw ValidationError("--outage takes MS@PERIOD_S[+FIRST_S], e.g. 150@30 (MS shorter than the period)")
            }
            outages.append(o)
        }
        return BottleneckConfig(schedule: schedule, queueNs: UInt64((queueMs * 1e6).rounded()), outages: outages)
    }

    /// The loss chain the options ask for, or nil for none.
    func lossModel() throws -> GilbertElliott.Parameters? {
        if let ge {
            guard loss == nil, burstMs == nil else { throw ValidationError("--ge excludes --loss/--burst-ms") }
            guard let unit = GilbertElliott.Unit(rawValue: geUnit) else { throw ValidationError("--ge-unit is packet or ms") }
            let values = ge.split(separator: ",").map { Double(String($0.filter { $0 != " " })) }
            guard values.count == 2 || values.count == 4, values.allSatisfy({ $0 != nil }) else {
                throw ValidationError("--ge takes p,r or p,r,lossGood,lossBad")
            }
            let v = values.map { $0! }
            let model = GilbertElliott.Parameters(p: v[0], r: v[1], lossGood: v.count == 4 ? v[2] : 0,
                                                  lossBad: v.count == 4 ? v[3] : 1, unit: unit)
            guard model.isValid else { throw ValidationError("--ge probabilities lie in 0…1") }
            return model
        }
        guard let loss else {
            if burstMs != nil { throw ValidationError("--burst-ms needs --loss") }
            return nil
        }
        guard loss >= 0, loss < 100 else { throw ValidationError("--loss is a percentage 0…<100") }
        guard let burstMs else { return .independent(loss: loss / 100) }
        guard let model = GilbertElliott.Parameters(averageLoss: loss / 100, meanBurst: burstMs, unit: .millisecond) else {
            throw ValidationError("--burst-ms must be ≥ 1 (and --loss small enough for it)")
        }
        return model
    }

    func run() throws {
        func ns(_ ms: Double) -> UInt64 { UInt64((ms * 1e6).rounded()) }
        let impairment = ImpairmentConfig(loss: try lossModel(), delayNs: ns(delayMs), jitterNs: ns(jitterMs),
                                          reorderProbability: reorder / 100, reorderDelayNs: ns(reorderMs),
                                          duplicateProbability: duplicate / 100)
        let directions: Set<Direction> = lossy == "both" ? [.c2h, .h2c] : [Direction(rawValue: lossy)!]
        var policy = RelayPolicy(impairedDirections: directions, mediaOnly: mediaOnly, startAfterNs: ns(startAfter * 1000),
                                 queueLimit: queueLimit, bottleneck: try bottleneckModel(),
                                 bottleneckDirections: bottleneckDir == "both" ? [.c2h, .h2c] : [Direction(rawValue: bottleneckDir)!])
        if let doze {
            let parts = doze.split(separator: ":")
            guard parts.count == 2, let ms = Double(parts[0]), ms > 0, let n = Int(parts[1]), n > 0 else {
                throw ValidationError("--doze is MS:N, e.g. 5:2")
            }
            policy.dozeAfterNs = ns(ms)
            policy.dozeLoss = n
        }
        let relay: UDPRelay
        do {
            relay = try UDPRelay(.init(listen: LoopbackAddress(listen)!, upstream: LoopbackAddress(to)!, c2h: impairment,
                                       h2c: impairment, policy: policy, seed: seed, dropLogPath: dropLog,
                                       queueLogPath: queueLog))
        } catch {
            throw ValidationError("pf-relay: \(error)")
        }
        stopFdForSignals = relay.stopFd
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            var byte: UInt8 = 1
            _ = write(stopFdForSignals, &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        // A parent may hand down these signals ignored (a background job) or blocked (a test runner's
        // thread): handle them and unblock them, or SIGINT would not end the relay.
        var wanted = sigset_t()
        sigemptyset(&wanted)
        for signal in [SIGINT, SIGTERM] {
            sigaction(signal, &action, nil)
            sigaddset(&wanted, signal)
        }
        pthread_sigmask(SIG_UNBLOCK, &wanted, nil)

        writeAll(2, "pf-relay listening on \(relay.listenAddress)\n")
        let summary = relay.run(seconds: seconds)
        writeAll(1, summary.json + "\n")
    }
}

/// Writes `text` to `fd` unbuffered (the banner must reach a reader before the relay loop starts).
func writeAll(_ fd: Int32, _ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n < 0 { if errno == EINTR { continue } else { return } }
        bytes = bytes.dropFirst(n)
    }
}

/// The relay's wake pipe, for the SIGINT/SIGTERM handler (set once before the handler is installed,
/// then only read; write(2) is async-signal-safe).
nonisolated(unsafe) var stopFdForSignals: Int32 = -1
