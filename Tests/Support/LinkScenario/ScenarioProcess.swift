import Foundation

/// A child process of a loopback scenario (pf-testhost, pf-relay, the kiosk) whose stdout and
/// stderr go to files in the scenario's folder, so a long run's log never fills a pipe.
public final class ScenarioProcess {
    public let process = Process()
    public let stdoutURL: URL
    public let stderrURL: URL

    public init(_ binary: URL, _ arguments: [String], in dir: URL, name: String, environment: [String: String]? = nil) throws {
        stdoutURL = dir.appendingPathComponent("\(name).out")
        stderrURL = dir.appendingPathComponent("\(name).err")
        FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = binary
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
    }

    /// Waits (≤ 10 s) for a stderr line containing `marker`.
    public func banner(containing marker: String) throws -> String {
        let limit = Date().addingTimeInterval(10)
        while Date() < limit {
            let text = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains(marker) }) { return String(line) }
            if !process.isRunning { break }
            usleep(50_000)
        }
        throw ScenarioError("\(process.executableURL?.lastPathComponent ?? "child") printed no banner: "
                            + ((try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""))
    }

    /// Waits up to `waitingForExit` seconds for the process to end by itself, then interrupts it
    /// (terminates it after 5 s more).
    public func stop(waitingForExit: Double = 0) {
        let natural = Date().addingTimeInterval(waitingForExit)
        while process.isRunning, Date() < natural { usleep(20_000) }
        if process.isRunning { process.interrupt() }
        let limit = Date().addingTimeInterval(5)
        while process.isRunning, Date() < limit { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    public var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// Every stdout line that is a JSON object.
    public func stdoutLines() throws -> [[String: Any]] {
        try ScenarioProcess.jsonLines(String(contentsOf: stdoutURL, encoding: .utf8))
    }

    /// Every line of `text` that is a JSON object.
    public static func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// `host:port` of the first `127.0.0.1:` word of a banner line.
    public static func loopbackAddress(in line: String) -> String? {
        line.split(whereSeparator: \.isWhitespace).map(String.init).first { $0.hasPrefix("127.0.0.1:") }
    }
}

public struct ScenarioError: Error, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}
