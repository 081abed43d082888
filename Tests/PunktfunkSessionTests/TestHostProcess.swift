import Foundation
import Testing

/// A `pf-testhost` child process for the executable tests: started with `arguments` (port 0 on
/// 127.0.0.1 is added), its stderr read until `marker` appears (≤ 5 s), then the banner
/// "pf-testhost listening on 127.0.0.1:PORT fingerprint HEX" parsed. Terminated on `stop()`.
struct TestHostProcess {
    let process: Process
    let stdout: Pipe
    let stderr: Pipe
    let address: String
    let fingerprint: String
    /// A per-test scratch directory (removed by `stop()`).
    let temp: URL

    init(_ arguments: [String], name: String, until marker: String = "\n") throws {
        temp = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: temp)
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
        process = Process()
        process.executableURL = PumpExecutableTests.binDirectory.appendingPathComponent("pf-testhost")
        process.arguments = ["--port", "0", "--bind", "127.0.0.1", "--identity-dir", temp.appendingPathComponent("host").path]
            + arguments
        stdout = Pipe()
        stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        var banner = ""
        let limit = Date().addingTimeInterval(5)
        while !banner.contains(marker), Date() < limit {
            let chunk = stderr.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            banner += String(decoding: chunk, as: UTF8.self)
        }
        let words = banner.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let address = words.first(where: { $0.hasPrefix("127.0.0.1:") }),
              let index = words.firstIndex(of: "fingerprint"), index + 1 < words.count else {
            process.terminate()
            throw TestHostError(banner: banner)
        }
        self.address = address
        fingerprint = words[index + 1]
    }

    struct TestHostError: Error, CustomStringConvertible {
        var banner: String
        var description: String { "pf-testhost did not print its banner: \(banner)" }
    }

    /// The kiosk binary beside the test bundle.
    static var kiosk: URL { PumpExecutableTests.binDirectory.appendingPathComponent("punktfunk-kiosk") }

    /// Environment for a kiosk run whose config lives in the scratch directory.
    var kioskEnvironment: [String: String] {
        ["XDG_CONFIG_HOME": temp.appendingPathComponent("cfg").path, "HOME": temp.path]
    }

    /// Terminates the host (if running), waits, and returns its stdout (the JSON datagram log).
    @discardableResult
    func stop() -> String {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        let log = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        try? FileManager.default.removeItem(at: temp)
        return log
    }
}
