import Foundation
import Testing

/// `punktfunk-kiosk connect --launch ID` against pf-testhost: the id reaches the host as
/// ClientHello tag 8, the host's LaunchOutcome comes back as one line carrying its message, a host
/// without GRANT_LAUNCH ends it with 0x6A (status 1, one sentence), and an id the hello cannot
/// carry whole is refused before anything is dialled.
@Suite(.enabled(if: PumpExecutableTests.binariesBuilt, Comment(rawValue: PumpExecutableTests.notBuilt)))
struct LaunchExecutableTests {
    /// The `launch` of pf-testhost's `{"client_hello":…}` line (nil: no such line; NSNull: absent).
    static func askedLaunch(_ log: String) throws -> Any? {
        guard let line = log.split(separator: "\n").first(where: { $0.hasPrefix("{\"client_hello\"") }) else { return nil }
        let top = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return (top["client_hello"] as? [String: Any])?["launch"]
    }

    /// `connect` to `host` headless, pinned, with `extra` options.
    static func connect(_ host: TestHostProcess, _ extra: [String]) throws -> PairingExecutableTests.Run {
        try PairingExecutableTests.run(TestHostProcess.kiosk, ["connect", host.address, "--headless", "--fp", host.fingerprint] + extra,
                                       environment: host.kioskEnvironment)
    }

    @Test func theTitleReachesTheHostAndItsOutcomeIsSaid() throws {
        let host = try TestHostProcess(["--frames", "60", "--max-seconds", "8", "--launch-outcome", "failed:Steam is not running"],
                                       name: "launch-told")
        defer { host.stop() }
        let run = try Self.connect(host, ["--seconds", "1.5", "--launch", "steam:570"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("launch: asking \(host.address) to start steam:570"), "\(run.stderr)")
        #expect(run.stderr.contains("steam:570 did not start on \(host.address): Steam is not running."), "\(run.stderr)")
        let log = host.stop()
        #expect(try Self.askedLaunch(log) as? String == "steam:570", "\(log.prefix(600))")
    }

    @Test func aDesktopSessionAsksForNoTitleAndHearsNoOutcome() throws {
        let host = try TestHostProcess(["--frames", "30", "--max-seconds", "8", "--launch-outcome", "spawned"], name: "launch-none")
        defer { host.stop() }
        let run = try Self.connect(host, ["--seconds", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("started"), "\(run.stderr)")
        let log = host.stop()
        #expect(try Self.askedLaunch(log) is NSNull, "\(log.prefix(600))")
    }

    /// control-plane.md §3.8 / close table: `launch` without GRANT_LAUNCH (0x20) → 0x6A.
    @Test func withoutTheLaunchGrantTheSessionEndsWithOneSentenceAndStatusOne() throws {
        let host = try TestHostProcess(["--frames", "30", "--max-seconds", "8", "--grants", "\(0xFF & ~0x20)"], name: "launch-denied")
        defer { host.stop() }
        let run = try Self.connect(host, ["--seconds", "3", "--launch", "steam:570"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("has not given this device the launch permission"), "\(run.stderr)")
        #expect(run.stdout.isEmpty, "no stream ran: \(run.stdout)")
    }

    @Test func anIDTheHelloCannotCarryIsRefusedBeforeDialling() throws {
        let host = try TestHostProcess(["--frames", "30", "--max-seconds", "4"], name: "launch-long")
        defer { host.stop() }
        let long = "steam:" + String(repeating: "7", count: 123)   // 129 bytes
        let run = try Self.connect(host, ["--seconds", "1", "--launch", long])
        #expect(run.status != 0)
        #expect(run.stderr.contains("is 129 bytes; a host takes at most 128"), "\(run.stderr)")
        let log = host.stop()
        #expect(try Self.askedLaunch(log) == nil, "the host heard no hello: \(log.prefix(400))")
    }
}
