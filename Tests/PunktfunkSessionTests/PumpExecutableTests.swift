import Foundation
import Testing

/// The two built executables end to end: `pf-testhost` on an ephemeral loopback port and
/// `punktfunk-kiosk connect --headless --fp … --seconds 1 --dump-au DIR` against it. Skipped when
/// the executables are not beside the test bundle. Bounded: the host gives up after 8 s.
@Suite(.serialized) struct PumpExecutableTests {
    static var binDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// Both executables exist beside the test bundle (`swift build --build-tests` builds them).
    static let binariesBuilt = ["pf-testhost", "punktfunk-kiosk"].allSatisfy {
        FileManager.default.isExecutableFile(atPath: binDirectory.appendingPathComponent($0).path)
    }
    static let notBuilt = "pf-testhost and punktfunk-kiosk are not built beside the test bundle; run `swift build --build-tests` first"

    @Test(.enabled(if: PumpExecutableTests.binariesBuilt, Comment(rawValue: PumpExecutableTests.notBuilt)))
    func connectHeadlessAgainstTestHostDumpsAccessUnits() throws {
        let host = try TestHostProcess(["--frames", "90", "--au-bytes", "5000", "--max-seconds", "8"], name: "pump-e2e")
        defer { host.stop() }
        let dump = host.temp.appendingPathComponent("aus")
        let run = try PairingExecutableTests.run(TestHostProcess.kiosk,
                                                 ["connect", host.address, "--headless", "--fp", host.fingerprint,
                                                  "--seconds", "1.2", "--dump-au", dump.path],
                                                 environment: host.kioskEnvironment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("{\"second\":1,"), "\(run.stdout)")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: dump.path)) ?? []
        #expect(files.count >= 30, "\(files.count) AUs dumped")
        #expect(files.contains("0.au"))
        host.process.waitUntilExit()   // --frames 90, then the client left
        let log = String(decoding: host.stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("\"kind\":\"feedback\""), "\(log)")
    }
}
