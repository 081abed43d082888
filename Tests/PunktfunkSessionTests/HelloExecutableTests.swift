import Foundation
import Testing

/// What a real kiosk tells a real host: `punktfunk-kiosk connect` with a config file, judged by the
/// ClientHello pf-testhost decoded (its `{"client_hello":…}` line), and `probe`'s `"hello"` giving
/// the same answer. Bit values are control-plane.md §3.6's.
@Suite(.serialized) struct HelloExecutableTests {
    static func object(_ line: Substring) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }

    @Test(.enabled(if: PumpExecutableTests.binariesBuilt, Comment(rawValue: PumpExecutableTests.notBuilt)))
    func theHostHearsTheConfiguredNameChannelsAndTheBoxsCapabilities() throws {
        let host = try TestHostProcess(["--max-seconds", "8", "--audio", "--audio-channels", "auto"], name: "hello-e2e-host")
        var hostLog = ""
        defer { if hostLog.isEmpty { host.stop() } }
        let cfg = host.temp.appendingPathComponent("cfg/punktfunk-kiosk")
        try FileManager.default.createDirectory(at: cfg, withIntermediateDirectories: true)
        try "device-name = Den Box\naudio-channels = 6\nstreamed-frames = on\n".write(to: cfg.appendingPathComponent("config"),
                                                                                 atomically: true, encoding: .utf8)
        let run = try PairingExecutableTests.run(TestHostProcess.kiosk,
                                                 ["connect", host.address, "--headless", "--fp", host.fingerprint, "--seconds", "1",
                                                  "--audio-device", "null", "--decoder", "software"],
                                                 environment: host.kioskEnvironment)
        #expect(run.status == 0, "\(run.stderr)")
        // The start-up line says what was asked for and why, in one line.
        #expect(run.stderr.contains("hello: "), "\(run.stderr)")
        let probe = try PairingExecutableTests.run(TestHostProcess.kiosk, ["probe"], environment: host.kioskEnvironment)
        hostLog = host.stop()
        let hello = try #require(hostLog.split(separator: "\n").compactMap(Self.object).compactMap { $0["client_hello"] as? [String: Any] }.first,
                                 "no client_hello line: \(hostLog.prefix(2000))")
        #expect(hello["name"] as? String == "Den Box")
        #expect(hello["audio_channels"] as? Int == 6)
        // Tag 22: the host's address is routed through the loopback, kind 3 (other), no speed.
        let link = try #require(hello["link"] as? [String: Any])
        #expect(link["kind"] as? Int == 3 && link["mbps"] as? Int == 0, "link \(link)")
        #expect(run.stderr.contains("link: lo is the loopback"), "\(run.stderr)")
        let video = try #require(hello["video_caps"] as? Int)
        // HOST_TIMING 0x08, PROBE_SEQ 0x10, STREAMED_AU 0x20, MULTI_SLICE 0x80 (libavcodec takes
        // slices), 10BIT 0x01 (libavcodec decodes Main10); no HDR headless (0x02).
        #expect(video & (0x01 | 0x08 | 0x10 | 0x20 | 0x80) == 0x01 | 0x08 | 0x10 | 0x20 | 0x80, "video_caps \(video)")
        #expect(video & 0x02 == 0, "video_caps \(video)")
        #expect(hello["display_hdr"] is NSNull)
        // CLIENT_CAP_AUDIO_RED 0x04 and CLIENT_CAP_EXT 0x40.
        #expect((hello["client_caps"] as? Int).map { $0 & 0x44 } == 0x44)
        // §3.2 tag 2: [1,0] with VIDEO_CAP_CHACHA20 (0x40), else [0].
        let suites = try #require(hello["suites"] as? [Int])
        #expect(suites == (video & 0x40 != 0 ? [1, 0] : [0]), "suites \(suites), video_caps \(video)")

        #expect(probe.status == 0, "\(probe.stderr)")
        let planned = try #require((Self.object(Substring(probe.stdout))?["hello"]) as? [String: Any], "\(probe.stdout.suffix(600))")
        #expect(planned["name"] as? String == "Den Box")
        #expect(planned["audio_channels"] as? Int == 6)
        #expect(planned["suites"] as? [Int] == suites)
        // Headless, so HDR is not comparable; every other video bit is the same decision.
        #expect((planned["video_caps"] as? Int).map { $0 & ~0x02 } == video)
        let why = try #require(planned["why"] as? [String: Any])
        #expect(why.keys.sorted() == ["10bit", "audio_channels", "audio_redundancy", "cipher", "draws_pointer", "hdr", "host_timing",
                                     "multi_slice", "name", "streamed_frames"])
        // Headless: nothing draws the host's pointer, so CLIENT_CAP_CURSOR (0x01) is not asked for.
        #expect((hello["client_caps"] as? Int).map { $0 & 0x01 } == 0)
    }
}
