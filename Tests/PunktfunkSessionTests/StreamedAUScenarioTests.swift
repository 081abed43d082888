import Foundation
import Testing
import FFmpegOracle
import LinkScenario

/// Streamed AUs end to end (issue 34 item 5; data-plane.md §2.3, §7.5): `pf-testhost --streamed-au`
/// sends a 4-slice libx265 stream slice by slice as its simulated encoder finishes each slice, with
/// a 0xCF per frame, through `pf-relay` (10 ms each way, 10 % of media packets held back 4 ms, so
/// blocks — the final one too — arrive out of order) to `punktfunk-kiosk connect --picture-log`
/// (headless, software rung). The judge is libavcodec: every picture the kiosk showed must equal
/// ffmpeg's framemd5 of the stream the host sent; the kiosk's stats lines must carry the latency
/// split, its network share near the relay's delay.
@Suite(.serialized) struct StreamedAUScenarioTests {
    static let ready = LossScenario.binariesBuilt && FFmpeg.isAvailable
    static let why = "needs pf-testhost, pf-relay and punktfunk-kiosk beside the test bundle (swift build --build-tests) and ffmpeg with libx265"

    /// `lossPercent` > 0: the host also drops that share of media datagrams (seeded), so shards of
    /// sentinel blocks are rebuilt from their own parity, or the frame is lost and the picture held
    /// until the host's next keyframe — never shown wrong.
    @Test(.enabled(if: ready, Comment(rawValue: why)), arguments: [0.0, 2.0])
    func streamedSlicesArriveByteExactAndTheLatencySplitIsReported(lossPercent: Double) throws {
        let bin = PumpExecutableTests.binDirectory
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // 4 slices per picture (x265 `slices=4`), P pictures only after each IDR, 60 fps.
        let source = dir.appendingPathComponent("slices.hevc").path
        let enc = try FFmpeg.run(["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=60",
                                  "-frames:v", "120", "-pix_fmt", "yuv420p", "-c:v", "libx265", "-preset", "ultrafast", "-b:v", "6M",
                                  "-x265-params", "slices=4:keyint=30:bframes=0:repeat-headers=1:info=0:log-level=none",
                                  "-f", "hevc", source])
        #expect(enc.status == 0, "\(enc.stderr)")
        let sent = dir.appendingPathComponent("sent.hevc").path
        let host = try ScenarioProcess(bin.appendingPathComponent("pf-testhost"),
                                          ["--port", "0", "--bind", "127.0.0.1", "--identity-dir", dir.appendingPathComponent("host").path,
                                           "--hevc", source, "--sent-stream", sent, "--streamed-au", "--slice-encode-ms", "2",
                                           "--stream-block-shards", "2", "--pace-mbps", "100", "--max-seconds", "30",
                                           "--loss", "\(lossPercent)", "--seed", "3"],
                                          in: dir, name: "host")
        defer { host.stop() }
        let banner = try host.banner(containing: "fingerprint")
        let words = banner.split(whereSeparator: \.isWhitespace).map(String.init)
        let hostAddress = try #require(words.first { $0.hasPrefix("127.0.0.1:") })
        let fingerprint = try #require(words.firstIndex(of: "fingerprint").map { words[$0 + 1] })
        let relay = try ScenarioProcess(bin.appendingPathComponent("pf-relay"),
                                           ["--listen", "127.0.0.1:0", "--to", hostAddress, "--delay-ms", "10", "--reorder", "10",
                                            "--reorder-ms", "4", "--media-only", "--seed", "5", "--seconds", "30"],
                                           in: dir, name: "relay")
        defer { relay.stop() }
        let address = try #require(try relay.banner(containing: "listening").split(whereSeparator: \.isWhitespace).map(String.init)
            .first { $0.hasPrefix("127.0.0.1:") })
        let log = dir.appendingPathComponent("pictures.jsonl").path
        let seconds = 5.0
        let kiosk = try PairingExecutableTests.run(TestHostProcess.kiosk,
                                                   ["connect", address, "--headless", "--fp", fingerprint, "--seconds", "\(seconds)",
                                                    "--picture-log", log, "--decoder", "software", "--audio", "none"],
                                                   environment: ["XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path, "HOME": dir.path])
        relay.stop()
        host.stop(waitingForExit: 5)
        #expect(kiosk.status == 0, "\(kiosk.stderr)")

        let hostLines = try host.stdoutLines()
        // The hello asked for streamed AUs in slice mode and for host timing (control-plane.md §3.6).
        let caps = (hostLines.compactMap { $0["client_hello"] as? [String: Any] }.first?["video_caps"] as? Int) ?? 0
        #expect(caps & 0x20 != 0 && caps & 0x80 != 0 && caps & 0x08 != 0, "video_caps \(caps)")
        let summary = hostLines.compactMap { $0["host_summary"] as? [String: Any] }.last ?? [:]
        let framesSent = summary["frames"] as? Int ?? 0
        // Every picture of this stream is big enough for sentinel blocks before its last slice.
        #expect(framesSent > 0 && summary["streamed_aus"] as? Int == framesSent, "\(summary)")
        #expect(summary["host_timings"] as? Int == framesSent, "\(summary)")

        // libavcodec's clean decode of what the host sent, frame by frame.
        let sentFrames = hostLines.compactMap { $0["sent"] as? Int }.map(UInt32.init)
        let md5 = try FFmpeg.run(["-hide_banner", "-loglevel", "error", "-i", sent, "-f", "framemd5", "-"])
        #expect(md5.status == 0 && md5.stderr.isEmpty, "\(md5.stderr)")
        let hashes = md5.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { String($0.split(separator: ",").last ?? "").trimmingCharacters(in: .whitespaces) }
        #expect(hashes.count == sentFrames.count)
        let clean = Dictionary(zip(sentFrames, hashes), uniquingKeysWith: { _, b in b })
        let pictures = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let shown = pictures.filter { $0["shown"] as? Bool == true }
        #expect(Double(shown.count) >= seconds * 60 * (lossPercent > 0 ? 0.4 : 0.8), "\(shown.count) pictures shown in \(seconds) s")
        let broken = shown.filter { p in (p["frame"] as? Int).map { clean[UInt32($0)] != p["md5"] as? String } ?? true }
        #expect(broken.isEmpty, "\(broken.count) shown pictures differ from libavcodec's decode, first \(broken.prefix(3))")

        // The stats lines: the latency split once the stream runs (a headless kiosk has no glass,
        // so display and total are null). Host: 4 slices × 2 ms of encode plus pacing; network: the
        // relay's 10 ms (the clock offset of a symmetric path is unbiased).
        let stats = kiosk.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["second"] != nil }
        let latency = try #require(stats.last?["latency"] as? [String: Any], "\(stats.last ?? [:])")
        func p50(_ key: String) -> Double? { (latency[key] as? [String: Any])?["p50"] as? Double }
        let hostMs = try #require(p50("host_ms")), networkMs = try #require(p50("network_ms")), decodeMs = try #require(p50("decode_ms"))
        #expect(hostMs >= 8 && hostMs < 40, "host \(hostMs) ms")
        #expect(networkMs >= 8 && networkMs < 20, "network \(networkMs) ms")
        #expect(decodeMs > 0 && decodeMs < 100, "decode \(decodeMs) ms")
        #expect(latency["display_ms"] is NSNull && latency["total_ms"] is NSNull)
        let recovered = stats.last?["shards_recovered"] as? Int ?? 0
        // Shards are rebuilt from parity with reordering alone (a block completes before its late
        // data shard); with loss the host's own count says datagrams were dropped.
        if lossPercent > 0 {
            let hostErr = (try? String(contentsOf: host.stderrURL, encoding: .utf8)) ?? ""
            #expect(recovered > 0 && !hostErr.contains("dropped 0 datagrams"), "\(recovered) shards rebuilt; host: \(hostErr)")
        } else {
            #expect((stats.last?["frames_lost"] as? Int) == 0)
        }
        print("streamed AUs through kiosk connect, \(lossPercent) % loss: \(shown.count) pictures shown, all equal to libavcodec's; "
              + "\(recovered) shards rebuilt, \(stats.last?["frames_lost"] ?? 0) frames lost; "
              + "latency p50 host \(hostMs) ms, network \(networkMs) ms, decode \(decodeMs) ms")
    }
}
