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
        let bin = Self.binDirectory
        let hostBin = bin.appendingPathComponent("pf-testhost")
        let kioskBin = bin.appendingPathComponent("punktfunk-kiosk")
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("pump-e2e-\(getpid())")
        try? FileManager.default.removeItem(at: temp)
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temp) }

        let host = Process()
        host.executableURL = hostBin
        host.arguments = ["--port", "0", "--bind", "127.0.0.1", "--frames", "90", "--au-bytes", "5000",
                          "--max-seconds", "8", "--identity-dir", temp.appendingPathComponent("host").path]
        let hostErr = Pipe()
        let hostOut = Pipe()
        host.standardError = hostErr
        host.standardOutput = hostOut
        try host.run()
        defer { if host.isRunning { host.terminate() } }
        // First stderr line: "pf-testhost listening on 127.0.0.1:PORT fingerprint HEX".
        var banner = ""
        let limit = Date().addingTimeInterval(5)
        while !banner.contains("\n"), Date() < limit {
            let chunk = hostErr.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            banner += String(decoding: chunk, as: UTF8.self)
        }
        let words = banner.split(separator: " ").map(String.init)
        let address = try #require(words.first { $0.hasPrefix("127.0.0.1:") })
        let fp = try #require(words.last?.trimmingCharacters(in: .whitespacesAndNewlines))

        let client = Process()
        client.executableURL = kioskBin
        let dump = temp.appendingPathComponent("aus")
        client.arguments = ["connect", address, "--headless", "--fp", fp, "--seconds", "1.2", "--dump-au", dump.path]
        client.environment = ["XDG_CONFIG_HOME": temp.appendingPathComponent("cfg").path, "HOME": temp.path]
        let clientOut = Pipe()
        client.standardOutput = clientOut
        client.standardError = Pipe()
        try client.run()
        client.waitUntilExit()
        #expect(client.terminationStatus == 0)
        let stats = String(decoding: clientOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stats.hasPrefix("{\"second\":1,"), "\(stats)")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: dump.path)) ?? []
        #expect(files.count >= 30, "\(files.count) AUs dumped")
        #expect(files.contains("0.au"))
        host.waitUntilExit()
        let log = String(decoding: hostOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("\"kind\":\"feedback\""), "\(log)")
    }
}
