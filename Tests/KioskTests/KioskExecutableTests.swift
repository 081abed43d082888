import Foundation
import Testing

/// The built `punktfunk-kiosk` as a user starts it: with no subcommand it is the shell, which
/// needs a display (without one it says so and ends with status 2); `demo` streams the embedded
/// demo host over a real loopback session, headless where the display cannot be opened (said in
/// one sentence); the harness's options exist but `--help` does not show them. Skipped when the executable is not beside the test bundle.
@Suite(.serialized) struct KioskExecutableTests {
    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("punktfunk-kiosk")
    static let built = FileManager.default.isExecutableFile(atPath: binary.path)

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-exe-\(getpid())")
        process.environment = ["HOME": temp.path, "XDG_CONFIG_HOME": temp.appendingPathComponent("cfg").path]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                   stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test(.enabled(if: KioskExecutableTests.built, "punktfunk-kiosk is not built beside the test bundle; run `swift build --build-tests` first"))
    func withoutADisplayTheShellSaysSoAndEndsWithStatus2() throws {
        let run = try Self.run(["--seconds", "5", "--drm-device", "/nonexistent/card9", "--input", "none", "--mdns-port", "0"])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("There is no usable display (cannot open /nonexistent/card9"), "\(run.stderr)")
    }

    @Test(.enabled(if: KioskExecutableTests.built, "punktfunk-kiosk is not built beside the test bundle; run `swift build --build-tests` first"))
    func withoutADisplayTheDemoSaysSoAndStreamsHeadless() throws {
        let run = try Self.run(["demo", "--seconds", "2.5", "--drm-device", "/nonexistent/card9"])
        #expect(run.status == 0, "\(run.stderr)")
        let sentences = run.stderr.split(separator: "\n").filter { $0.contains("Running without a display.") }
        #expect(sentences.count == 1, "\(run.stderr)")
        #expect(sentences.first?.contains("/nonexistent/card9") == true, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("{\"second\":1,") }, "\(run.stdout)")
        // ~60 fps for 2.5 s, all decoded by the software rung.
        let decoded = try #require(lines.last { $0.hasPrefix("{\"decoded\":") }, "\(run.stdout)")
        let count = Int(decoded.dropFirst("{\"decoded\":".count).prefix { $0.isNumber }) ?? 0
        #expect(count >= 60, "\(decoded)")
        #expect(decoded.contains("\"rung\":\"software\""))
    }

    @Test(.enabled(if: KioskExecutableTests.built, "punktfunk-kiosk is not built beside the test bundle; run `swift build --build-tests` first"))
    func aStreamThatNeedsTheDisplayEndsWithStatus2WithoutOne() throws {
        let run = try Self.run(["connect", "--demo", "--seconds", "1", "--drm-device", "/nonexistent/card9"])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("There is no usable display"), "\(run.stderr)")
        #expect(!run.stderr.contains("Running without a display"), "\(run.stderr)")
    }

    @Test(.enabled(if: KioskExecutableTests.built, "punktfunk-kiosk is not built beside the test bundle; run `swift build --build-tests` first"))
    func harnessOptionsStayOutOfHelp() throws {
        for command in [["--help"], ["connect", "--help"], ["present", "--help"], ["kiosk", "--help"], ["demo", "--help"]] {
            let run = try Self.run(command)
            #expect(run.status == 0)
            let help = run.stdout + run.stderr
            #expect(help.contains("--drm-device") || command == ["--help"], "\(command): \(help)")
            for hidden in ["--screendump-at", "--stats-dump", "--dmabuf-via", "--shell-trace"] {
                #expect(!help.contains(hidden), "\(command) shows \(hidden)")
            }
        }
    }
}
