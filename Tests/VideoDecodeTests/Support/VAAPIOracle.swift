import Foundation
import FFmpegOracle
import Testing

/// One stream of the HEVC corpus (`Tests/tools/hevc-corpus.sh`).
struct CorpusStream: Sendable, CustomTestStringConvertible {
    var name: String
    /// The manifest's "what it exercises".
    var what: String
    var path: String
    var testDescription: String { name }
}

/// libavcodec's VA-API hwaccel as the oracle (Tests/Support/VAAPIOracle/va_oracle.c, built here
/// with cc) and the corpus it decodes.
enum VAAPIOracle {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../..").standardizedFileURL

    /// The corpus, generated (or reused: the script caches) under .build/hevc-corpus.
    static let corpus: Result<[CorpusStream], Failure> = {
        guard FFmpeg.isAvailable else { return .failure(Failure(description: "needs ffmpeg with libx265")) }
        let out = repository.appendingPathComponent(".build/hevc-corpus")
        let script = repository.appendingPathComponent("Tests/tools/hevc-corpus.sh")
        if let error = run("/bin/bash", [script.path, out.path]) { return .failure(Failure(description: "hevc-corpus.sh: \(error)")) }
        guard let manifest = try? String(contentsOf: out.appendingPathComponent("manifest.tsv"), encoding: .utf8) else {
            return .failure(Failure(description: "no manifest.tsv"))
        }
        return .success(manifest.split(separator: "\n").compactMap { line in
            let cols = line.split(separator: "\t", maxSplits: 1).map(String.init)
            guard cols.count == 2 else { return nil }
            return CorpusStream(name: cols[0], what: cols[1], path: out.appendingPathComponent("\(cols[0]).hevc").path)
        })
    }()

    /// The streams, or none when the corpus cannot be made (the suite's availability test says why).
    static var streams: [CorpusStream] { (try? corpus.get()) ?? [] }

    /// The corpus's stream names, known without making it: test arguments are evaluated before
    /// any test runs, and the corpus (up to a minute cold) is made by the first test that needs
    /// it, beside the other suites. `theCorpusAndTheOracleAreThere` checks it against the manifest.
    static let names = ["lowdelay-p", "b-pyramid", "main10", "slices", "wpp", "weighted-p-fade", "weighted-b-fade",
                        "scaling-default", "scaling-custom", "odd-size", "open-gop", "intra-non-irap", "size-depth-change",
                        "check-main-320x180", "check-main10-pq-320x180", "check-resolution-change", "check-slices-320x180",
                        "check-rate-1920x1080"]

    static func stream(_ name: String) throws -> CorpusStream {
        guard let s = try corpus.get().first(where: { $0.name == name }) else { throw Failure(description: "no corpus stream \(name)") }
        return s
    }

    /// va_oracle built for this process.
    static let binary: Result<String, Failure> = {
        let source = repository.appendingPathComponent("Tests/Support/VAAPIOracle/va_oracle.c")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("va_oracle-\(ProcessInfo.processInfo.processIdentifier)")
        let command = "cc -std=c11 -O1 -Wall -Wextra -Werror -o '\(out.path)' '\(source.path)' "
            + "$(pkg-config --cflags --libs libavcodec libavutil libva) -ldl"
        if let error = run("/bin/sh", ["-c", command]) { return .failure(Failure(description: "building va_oracle: \(error)")) }
        return .success(out.path)
    }()

    /// Cheap enough for a test condition (evaluated while the run is planned, before any test):
    /// the corpus and va_oracle are made by the first test that needs them, which fails with the
    /// reason if they cannot be.
    static var canRun: Bool { FFmpeg.isAvailable && VARecordingDriver.isAvailable }

    /// Decodes `stream` with libavcodec's VA-API hwaccel on a fresh recording device.
    /// - Returns: the pictures libavcodec output and the driver's record.
    static func record(_ stream: String) throws -> (frames: Int, record: [VARecordingDriver.Entry]) {
        let (driver, _) = try VARecordingDriver.library.get()  // also sets LIBVA_DRIVER_NAME / _PATH
        let device = VARecordingDriver.Device()
        var stdout = ""
        if let error = run(try binary.get(), [driver, device.path, stream], stdout: &stdout) {
            throw Failure(description: "va_oracle \(stream): \(error)")
        }
        guard let frames = Int(stdout.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") else {
            throw Failure(description: "va_oracle printed \(stdout)")
        }
        return (frames, try device.record())
    }

    /// Runs a command; nil on exit status 0, else its status and stderr.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) -> String? {
        var ignored = ""
        return run(tool, arguments, stdout: &ignored)
    }

    static func run(_ tool: String, _ arguments: [String], stdout: inout String) -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        let err = FileManager.default.temporaryDirectory.appendingPathComponent("oracle-\(UUID().uuidString).err")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("oracle-\(UUID().uuidString).out")
        FileManager.default.createFile(atPath: err.path, contents: nil)
        FileManager.default.createFile(atPath: out.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: err); try? FileManager.default.removeItem(at: out) }
        do {
            p.standardInput = FileHandle.nullDevice
            p.standardOutput = try FileHandle(forWritingTo: out)
            p.standardError = try FileHandle(forWritingTo: err)
            try p.run()
        } catch { return "cannot run \(tool): \(error)" }
        p.waitUntilExit()
        stdout = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        guard p.terminationStatus == 0 else {
            let log = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
            return "exit \(p.terminationStatus): \(log.split(separator: "\n").filter { !$0.hasPrefix("libva info") }.joined(separator: "\n"))"
        }
        return nil
    }
}
