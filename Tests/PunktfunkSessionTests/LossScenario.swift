import Foundation
import FFmpegOracle
import LinkScenario

/// One run of the loss scenario, as a user's Wi-Fi would have it: `pf-testhost --anchor-stream`
/// (a live stream whose RFI anchors are real clean re-entry points, every AU it sent written to a
/// file) → `pf-relay` (Gilbert–Elliott burst loss on the network path, both directions) →
/// `punktfunk-kiosk connect --picture-log` (headless, software rung). The judge is libavcodec:
/// ffmpeg's framemd5 of the stream the host sent, frame by frame.
struct LossScenario {
    var seconds = 12.0
    /// Average loss, percent, in bursts of `burstMs` (time-driven; nil: each packet on its own),
    /// from 2 s on.
    var lossPercent = 3.0
    var burstMs: Double? = 30.0
    /// Instead of the two above: a Gilbert–Elliott chain stepped once per packet (`--ge p,r
    /// --ge-unit packet`) on host → client media only — the drop pattern over media packets is then
    /// fixed by the seed, whatever the machine's load (a time-driven chain is not).
    var packetChain: (p: Double, r: Double)?
    /// The host's parity, percent of data shards (pf-testhost --fec).
    var fecPercent = 10
    /// Filler bytes after every P picture (a realistic bitrate: several packets per frame).
    var padding = 6000
    var keyframesOnly = false
    /// Fault injection for the lost-answer case (pf-testhost --lose-answers).
    var loseAnswers = 0
    var seed: UInt64 = 7
    var name = "loss"

    struct Picture { var frame: UInt32; var md5: String?; var shown: Bool; var liftedAfterMs: Double? }
    struct Ask {
        var number: Int; var keyframe: Bool; var first: UInt32?; var last: UInt32?; var answer: String; var monoNs: UInt64
        var nackFrame: UInt32?
    }

    struct Outcome {
        var kioskStatus: Int32
        var kioskStdout: String
        var kioskStderr: String
        /// Wire frame → ffmpeg's MD5 of its picture in the clean decode of what the host sent.
        var clean: [UInt32: String]
        var sentFrames: [UInt32]
        var pictures: [Picture]
        var asks: [Ask]
        var hostSummary: [String: Any]
        var relaySummary: [String: Any]
        /// The kiosk's last per-second stats line.
        var lastStats: [String: Any]

        var shown: [Picture] { pictures.filter(\.shown) }
        /// Loss seen → first clean picture, ms, one per hold (nearest-rank percentile `q`).
        func recoveryMs(_ q: Double) -> Double? {
            let v = pictures.compactMap(\.liftedAfterMs).sorted()
            guard !v.isEmpty else { return nil }
            return v[min(v.count, max(1, Int((q * Double(v.count)).rounded(.up)))) - 1]
        }
        /// Shown pictures whose MD5 differs from the clean decode of their frame.
        var broken: [Picture] { shown.filter { clean[$0.frame] == nil || clean[$0.frame] != $0.md5 } }
        var relayDropped: Int {
            ["h2c", "c2h"].reduce(0) { $0 + (((relaySummary[$1] as? [String: Any])?["dropped_loss"] as? Int) ?? 0) }
        }
        var picture: [String: Any] { lastStats["picture"] as? [String: Any] ?? [:] }
        func host(_ key: String) -> Int { hostSummary[key] as? Int ?? 0 }
    }

    static var binariesBuilt: Bool {
        ["pf-testhost", "pf-relay", "punktfunk-kiosk"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: PumpExecutableTests.binDirectory.appendingPathComponent($0).path)
        }
    }

    func run() throws -> Outcome {
        let bin = PumpExecutableTests.binDirectory
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let sent = dir.appendingPathComponent("sent.hevc").path

        var hostArgs = ["--port", "0", "--bind", "127.0.0.1", "--identity-dir", dir.appendingPathComponent("host").path,
                        "--anchor-stream", "--p-frame-padding", "\(padding)", "--sent-stream", sent,
                        "--max-seconds", "\(Int(seconds) + 20)", "--seed", "\(seed)", "--fec", "\(fecPercent)"]
        if keyframesOnly { hostArgs.append("--keyframes-only") }
        if loseAnswers > 0 { hostArgs += ["--lose-answers", "\(loseAnswers)"] }
        let host = try ScenarioProcess(bin.appendingPathComponent("pf-testhost"), hostArgs, in: dir, name: "host")
        defer { host.stop() }
        let hostBanner = try host.banner(containing: "fingerprint")
        let words = hostBanner.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let hostAddress = words.first(where: { $0.hasPrefix("127.0.0.1:") }),
              let fpIndex = words.firstIndex(of: "fingerprint"), fpIndex + 1 < words.count else {
            throw ScenarioError("pf-testhost banner: \(hostBanner)")
        }
        let lossArgs = packetChain.map { ["--ge", "\($0.p),\($0.r)", "--ge-unit", "packet", "--lossy", "h2c", "--media-only"] }
            ?? ["--loss", "\(lossPercent)"] + (burstMs.map { ["--burst-ms", "\($0)"] } ?? [])
        let relay = try ScenarioProcess(bin.appendingPathComponent("pf-relay"),
                              ["--listen", "127.0.0.1:0", "--to", hostAddress, "--start-after", "2", "--seed", "\(seed)",
                               "--seconds", "\(Int(seconds) + 15)"] + lossArgs,
                              in: dir, name: "relay")
        defer { relay.stop() }
        let relayBanner = try relay.banner(containing: "listening")
        guard let relayAddress = relayBanner.split(whereSeparator: \.isWhitespace).map(String.init).first(where: { $0.hasPrefix("127.0.0.1:") }) else {
            throw ScenarioError("pf-relay banner: \(relayBanner)")
        }
        let log = dir.appendingPathComponent("pictures.jsonl").path
        let kiosk = try PairingExecutableTests.run(TestHostProcess.kiosk,
                                                   ["connect", relayAddress, "--headless", "--fp", words[fpIndex + 1],
                                                    "--seconds", "\(seconds)", "--picture-log", log, "--decoder", "software",
                                                    "--audio", "none"],
                                                   environment: ["XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path,
                                                                 "HOME": dir.path])
        relay.stop()
        host.stop(waitingForExit: 5)   // it ends by itself once its one session closed

        let hostLines = try host.stdoutLines()
        var sentFrames: [UInt32] = []
        var asks: [Ask] = []
        var hostSummary: [String: Any] = [:]
        for object in hostLines {
            if let f = object["sent"] as? Int { sentFrames.append(UInt32(f)) }
            if let n = object["ask"] as? Int, let answer = object["answer"] as? String {
                asks.append(Ask(number: n, keyframe: object["keyframe"] as? Bool ?? false,
                                first: (object["first"] as? Int).map(UInt32.init), last: (object["last"] as? Int).map(UInt32.init),
                                answer: answer, monoNs: UInt64(object["mono_ns"] as? Int ?? 0),
                                nackFrame: (object["nack"] as? Int).map(UInt32.init)))
            }
            if let s = object["host_summary"] as? [String: Any] { hostSummary = s }
        }
        let md5 = try FFmpeg.run(["-hide_banner", "-loglevel", "error", "-i", sent, "-f", "framemd5", "-"])
        guard md5.status == 0, md5.stderr.isEmpty else { throw ScenarioError("ffmpeg on the sent stream: \(md5.stderr)") }
        let hashes = md5.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { String($0.split(separator: ",").last ?? "").trimmingCharacters(in: .whitespaces) }
        guard hashes.count == sentFrames.count else {
            throw ScenarioError("ffmpeg decoded \(hashes.count) pictures of \(sentFrames.count) sent access units")
        }
        let clean = Dictionary(zip(sentFrames, hashes), uniquingKeysWith: { _, b in b })
        let pictures = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n").compactMap { line -> Picture? in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let frame = o["frame"] as? Int, let shown = o["shown"] as? Bool else { return nil }
            return Picture(frame: UInt32(frame), md5: o["md5"] as? String, shown: shown,
                           liftedAfterMs: (o["lifted_after_ms"] as? NSNumber)?.doubleValue)
        } ?? []
        let relaySummary = try relay.stdoutLines().last ?? [:]
        let lastStats = kiosk.stdout.split(separator: "\n").reversed().lazy.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.first { $0["second"] != nil } ?? [:]
        return Outcome(kioskStatus: kiosk.status, kioskStdout: kiosk.stdout, kioskStderr: kiosk.stderr, clean: clean,
                       sentFrames: sentFrames, pictures: pictures, asks: asks, hostSummary: hostSummary,
                       relaySummary: relaySummary, lastStats: lastStats)
    }
}
