import Foundation
import Testing
import FFmpegOracle
import PunktfunkSession
import PunktfunkWire
import HEVC

/// The executables with every test-host feature at once: `pf-testhost --hevc FILE --loss 10
/// --fec 60 --audio --script S` and `punktfunk-kiosk connect … --dump-au DIR --probe-kbps N`.
/// The dumped AUs must be the file's AUs, the stats must count audio, the probe line must appear,
/// and the host's JSON log must show the client's feedback.
@Suite(.serialized) struct ConnectExecutableTests {
    @Test(.enabled(if: PumpExecutableTests.binariesBuilt, Comment(rawValue: PumpExecutableTests.notBuilt)),
          .enabled(if: FFmpeg.isAvailable, "needs ffmpeg with libx265 to make the HEVC file"))
    func aFileHostWithLossAudioScriptAndAProbe() throws {
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("connect-e2e-\(getpid())")
        try? FileManager.default.removeItem(at: temp)
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temp) }
        let file = temp.appendingPathComponent("stream.hevc").path
        let made = try FFmpeg.run(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=60", "-frames:v", "60",
                                   "-c:v", "libx265", "-preset", "ultrafast",
                                   "-x265-params", "keyint=60:bframes=0:repeat-headers=1:log-level=error", "-f", "hevc", "-y", file])
        try #require(made.status == 0, "\(made.stderr)")
        let aus = AccessUnitSplitter.splitPreservingBytes([UInt8](try Data(contentsOf: URL(fileURLWithPath: file))))
        try #require(aus.count == 60)
        // A rumble datagram before frame 30: kind 05, tag CA, v1 body.
        let rumble = HostDatagramHex.rumble
        let script = temp.appendingPathComponent("events.jsonl")
        try "# scripted\n{\"frame\":30,\"datagram\":\"\(rumble)\"}\n".write(to: script, atomically: true, encoding: .utf8)

        let host = try TestHostProcess(["--hevc", file, "--loss", "10", "--fec", "60", "--audio", "--script", script.path,
                                        "--max-seconds", "10"], name: "connect-e2e-host")
        defer { host.stop() }
        let (address, fp) = (host.address, host.fingerprint)

        let dump = temp.appendingPathComponent("aus")
        let run = try PairingExecutableTests.run(TestHostProcess.kiosk,
                                                 ["connect", address, "--headless", "--fp", fp, "--seconds", "2.5",
                                                  "--dump-au", dump.path, "--probe-kbps", "50000"],
                                                 environment: ["XDG_CONFIG_HOME": temp.appendingPathComponent("cfg").path, "HOME": temp.path])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let stats = lines.filter { $0.hasPrefix("{\"second\":") }
        #expect(stats.count >= 2, "\(run.stdout)")
        #expect(stats.last.map { !$0.contains("\"audio_packets\":0,") } == true, "\(stats)")
        #expect(lines.contains { $0.hasPrefix("{\"probe\":{\"packets\":") }, "\(run.stdout)")
        // Every dumped AU is the file's AU for its frame (the host loops the file; a keyframe ask
        // may restart it at frame 0, so compare with the file's AU set where the index is unknown).
        let files = try FileManager.default.contentsOfDirectory(atPath: dump.path)
        #expect(files.count >= 100, "\(files.count) AUs dumped")
        let set = Set(aus)
        for name in files {
            let bytes = [UInt8](try Data(contentsOf: dump.appendingPathComponent(name)))
            #expect(set.contains(bytes), "\(name) is not an AU of the file")
        }
        for frame in 0..<20 where files.contains("\(frame).au") {
            #expect([UInt8](try Data(contentsOf: dump.appendingPathComponent("\(frame).au"))) == aus[frame])
        }
        let log = host.stop()
        #expect(log.contains("feedback"), "\(log.prefix(400))")
    }
}

/// Encoded host datagrams for scripts, built with the wire codecs.
enum HostDatagramHex {
    static let rumble: String = {
        let bytes = PunktfunkWire.HostDatagram.rumble(PunktfunkWire.Rumble(pad: 0, low: 0x4000, high: 0xC000)).encoded
        return bytes.map { String(format: "%02x", $0) }.joined()
    }()
}
