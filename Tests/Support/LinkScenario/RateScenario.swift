import FFmpegOracle
import Foundation

/// One run of a line whose capacity moves (issue 39), on the real path: `pf-testhost
/// --anchor-stream --follow-bitrate` (a live stream with honest RFI anchors, each AU grown with
/// filler-data NAL units to the granted rate's budget, every AU it sent written to a file) →
/// `pf-relay` with a bottleneck on host → client (token bucket at a capacity schedule, a drop-tail
/// queue in ms of capacity, outages, optional random loss) → `punktfunk-kiosk connect` (headless,
/// software rung, `--rate-log`, `--picture-log`). Every log line carries CLOCK_MONOTONIC ns, so
/// the three processes' lines fall on one time line. The judge of every shown picture is
/// libavcodec's clean decode of what the host sent.
public struct RateScenario {
    public var name = "rate"
    public var seconds = 14.0
    /// `pf-relay --capacity`: `SECONDS:KBPS,…` from the first client datagram.
    public var capacity = "0:40000,5:10000"
    public var queueMs = 100.0
    /// `pf-relay --outage`: `MS@PERIOD_S[+FIRST_S]` each.
    public var outages: [String] = []
    /// Random loss on host → client media, percent (FEC's to repair), from 2 s on.
    public var randomLossPercent: Double?
    /// `pf-relay --doze MS:N` from 2 s on: each frame's first N datagrams lost (a waking radio).
    public var doze: String?
    /// The host's default rate, where the stream starts (ServerHello tag 13).
    public var hostStartKbps: UInt32 = 30_000
    /// `auto` (the rate loop) or `fixed` (the baseline: the rate never moves).
    public var bitrateMode = "auto"
    /// The kiosk's `--bitrate`: the start it asks for and, in auto mode, the loop's ceiling.
    public var kioskBitrateKbps: UInt32?
    public var fps = 60
    /// `pf-testhost --ramp`: it serves the bring-up ramp's probe steps before the first frame.
    public var hostRamp = false
    public var fecPercent = 10
    public var seed: UInt64 = 7

    public init() {}

    /// The capacity schedule as (seconds from the relay's origin, kbps), in order.
    public var schedule: [(atS: Double, kbps: Double)] {
        capacity.split(separator: ",").compactMap { part in
            let p = part.split(separator: ":")
            guard p.count == 2, let t = Double(p[0]), let k = Double(p[1]) else { return nil }
            return (t, k)
        }
    }

    public struct Picture { public var frame: UInt32; public var md5: String?; public var shown: Bool }
    /// One host `set_bitrate` line (when the host took it) or `host_wire` line (the end of the
    /// second it counts); one relay queue-log line; one rate-log line.
    public struct Sample { public var monoNs: UInt64; public var kbps: Double }
    public struct QueueSample { public var monoNs: UInt64; public var queueMs: Double; public var sentKbps: Double; public var drops: Int }
    public struct RateLine {
        public var monoNs: UInt64; public var asked: Double; public var granted: Double
        public var verdict: String; public var reason: String
        /// The one-way delay's rise over its rolling minimum at the window's close, ms.
        public var owdRiseMs: Double
        public var deliveredKbps: Double
    }

    public struct Outcome {
        public var scenario: RateScenario
        public var kioskStatus: Int32
        public var kioskStderr: String
        /// The relay's origin (its first client datagram), CLOCK_MONOTONIC ns.
        public var originNs: UInt64
        public var setBitrates: [Sample]
        public var hostWire: [Sample]
        /// The probe filler in each of those seconds (the bring-up ramp's steps, speed tests).
        public var hostProbe: [Sample]
        public var queue: [QueueSample]
        public var rateLines: [RateLine]
        /// Each AU the host sent: frame and when.
        public var sent: [(frame: UInt32, monoNs: UInt64)]
        public var pictures: [Picture]
        /// Wire frame → ffmpeg's MD5 of its picture in the clean decode of what the host sent.
        public var clean: [UInt32: String]
        public var relaySummary: [String: Any]
        /// Mean size of a datagram that left the bottleneck, bytes (payload + 28).
        public var meanPacketBytes: Double

        public var shown: [Picture] { pictures.filter(\.shown) }
        /// Shown pictures whose MD5 differs from the clean decode of their frame.
        public var broken: [Picture] { shown.filter { clean[$0.frame] == nil || clean[$0.frame] != $0.md5 } }
    }

    /// Runs host, relay and kiosk from `binaries` (a build folder holding all three).
    public func run(binaries bin: URL) throws -> Outcome {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let sentPath = dir.appendingPathComponent("sent.hevc").path

        let host = try ScenarioProcess(bin.appendingPathComponent("pf-testhost"),
                                       ["--port", "0", "--bind", "127.0.0.1", "--identity-dir", dir.appendingPathComponent("host").path,
                                        "--anchor-stream", "--follow-bitrate", "--bitrate-kbps", "\(hostStartKbps)",
                                        "--fps", "\(fps)", "--sent-stream", sentPath, "--max-seconds", "\(Int(seconds) + 20)",
                                        "--seed", "\(seed)", "--fec", "\(fecPercent)"] + (hostRamp ? ["--ramp"] : []),
                                       in: dir, name: "host")
        defer { host.stop() }
        let hostBanner = try host.banner(containing: "fingerprint")
        let words = hostBanner.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let hostAddress = ScenarioProcess.loopbackAddress(in: hostBanner),
              let fpIndex = words.firstIndex(of: "fingerprint"), fpIndex + 1 < words.count else {
            throw ScenarioError("pf-testhost banner: \(hostBanner)")
        }
        let queueLog = dir.appendingPathComponent("queue.jsonl").path
        var relayArgs = ["--listen", "127.0.0.1:0", "--to", hostAddress, "--seed", "\(seed)", "--seconds", "\(Int(seconds) + 15)",
                         "--capacity", capacity, "--queue-ms", "\(queueMs)", "--queue-log", queueLog]
        for o in outages { relayArgs += ["--outage", o] }
        if let loss = randomLossPercent { relayArgs += ["--loss", "\(loss)", "--lossy", "h2c", "--media-only"] }
        if let doze { relayArgs += ["--doze", doze] }
        if randomLossPercent != nil || doze != nil { relayArgs += ["--start-after", "2"] }
        let relay = try ScenarioProcess(bin.appendingPathComponent("pf-relay"), relayArgs, in: dir, name: "relay")
        defer { relay.stop() }
        guard let relayAddress = ScenarioProcess.loopbackAddress(in: try relay.banner(containing: "listening")) else {
            throw ScenarioError("pf-relay printed no address")
        }
        let pictureLog = dir.appendingPathComponent("pictures.jsonl").path
        let rateLog = dir.appendingPathComponent("rate.jsonl").path
        let kiosk = try ScenarioProcess(bin.appendingPathComponent("punktfunk-kiosk"),
                                        ["connect", relayAddress, "--headless", "--fp", words[fpIndex + 1], "--seconds", "\(seconds)",
                                         "--picture-log", pictureLog, "--rate-log", rateLog, "--decoder", "software", "--audio", "none",
                                         "--bitrate-mode", bitrateMode] + (kioskBitrateKbps.map { ["--bitrate", "\($0)"] } ?? []),
                                        in: dir, name: "kiosk",
                                        environment: ["XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path, "HOME": dir.path])
        kiosk.stop(waitingForExit: seconds + 30)
        relay.stop()
        host.stop(waitingForExit: 5)   // it ends by itself once its one session closed

        var setBitrates: [Sample] = [], hostWire: [Sample] = [], hostProbe: [Sample] = [], sent: [(UInt32, UInt64)] = []
        for o in try host.stdoutLines() {
            if let f = o["sent"] as? Int, let t = o["mono_ns"] as? Int { sent.append((UInt32(f), UInt64(t))) }
            if let s = o["set_bitrate"] as? [String: Any], let k = s["kbps"] as? Int, let t = s["mono_ns"] as? Int {
                setBitrates.append(Sample(monoNs: UInt64(t), kbps: Double(k)))
            }
            if let w = o["host_wire"] as? [String: Any], let k = (w["kbps"] as? NSNumber)?.doubleValue, let t = w["mono_ns"] as? Int {
                hostWire.append(Sample(monoNs: UInt64(t) + 1_000_000_000, kbps: k))  // the second's end
                hostProbe.append(Sample(monoNs: UInt64(t) + 1_000_000_000, kbps: (w["probe_kbps"] as? NSNumber)?.doubleValue ?? 0))
            }
        }
        let queueLines = ScenarioProcess.jsonLines((try? String(contentsOfFile: queueLog, encoding: .utf8)) ?? "")
            .filter { $0["dir"] as? String == "h2c" }
        guard let first = queueLines.first, let t0 = first["t_ms"] as? Int, let m0 = first["mono_ns"] as? Int else {
            throw ScenarioError("pf-relay wrote no queue log: \(relay.stderr)")
        }
        let queue = queueLines.compactMap { o -> QueueSample? in
            guard let t = o["mono_ns"] as? Int, let q = (o["queue_ms"] as? NSNumber)?.doubleValue,
                  let s = (o["sent_kbps"] as? NSNumber)?.doubleValue, let d = o["drops"] as? Int else { return nil }
            return QueueSample(monoNs: UInt64(t), queueMs: q, sentKbps: s, drops: d)
        }
        let rateLines = ScenarioProcess.jsonLines((try? String(contentsOfFile: rateLog, encoding: .utf8)) ?? "").compactMap { o -> RateLine? in
            guard let t = o["mono_ns"] as? Int, let a = (o["asked"] as? NSNumber)?.doubleValue,
                  let g = (o["granted"] as? NSNumber)?.doubleValue else { return nil }
            return RateLine(monoNs: UInt64(t), asked: a, granted: g, verdict: o["verdict"] as? String ?? "",
                            reason: o["reason"] as? String ?? "", owdRiseMs: (o["owd_rise_ms"] as? NSNumber)?.doubleValue ?? 0,
                            deliveredKbps: (o["delivered_kbps"] as? NSNumber)?.doubleValue ?? 0)
        }
        let pictures = ScenarioProcess.jsonLines((try? String(contentsOfFile: pictureLog, encoding: .utf8)) ?? "").compactMap { o -> Picture? in
            guard let frame = o["frame"] as? Int, let shown = o["shown"] as? Bool else { return nil }
            return Picture(frame: UInt32(frame), md5: o["md5"] as? String, shown: shown)
        }
        let md5 = try FFmpeg.run(["-hide_banner", "-loglevel", "error", "-i", sentPath, "-f", "framemd5", "-"])
        guard md5.status == 0 else { throw ScenarioError("ffmpeg on the sent stream: \(md5.stderr)") }
        let hashes = md5.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { String($0.split(separator: ",").last ?? "").trimmingCharacters(in: .whitespaces) }
        guard hashes.count == sent.count else {
            throw ScenarioError("ffmpeg decoded \(hashes.count) pictures of \(sent.count) sent access units")
        }
        let relaySummary = try relay.stdoutLines().last ?? [:]
        let bottleneck = ((relaySummary["h2c"] as? [String: Any])?["bottleneck"] as? [String: Any]) ?? [:]
        let packets = (bottleneck["delivered_packets"] as? NSNumber)?.doubleValue ?? 0
        let bytes = (bottleneck["delivered_bytes"] as? NSNumber)?.doubleValue ?? 0
        return Outcome(scenario: self, kioskStatus: kiosk.process.terminationStatus, kioskStderr: kiosk.stderr,
                       originNs: UInt64(m0) &- UInt64(t0) * 1_000_000, setBitrates: setBitrates, hostWire: hostWire, hostProbe: hostProbe,
                       queue: queue, rateLines: rateLines, sent: sent, pictures: pictures,
                       clean: Dictionary(zip(sent.map(\.0), hashes), uniquingKeysWith: { _, b in b }),
                       relaySummary: relaySummary, meanPacketBytes: packets > 0 ? bytes / packets : 1438)
    }
}
