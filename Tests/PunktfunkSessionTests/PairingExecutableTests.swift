import Foundation
import Testing

/// The built executables end to end (issue 3 item 5): `pf-testhost --pin 0042 --require-pairing`
/// on an ephemeral loopback port, `punktfunk-kiosk pair HOST --pin -` (PIN on stdin), then
/// `connect` without `--fp`/`--tofu` (pinned from the known-hosts store). Skipped when the
/// executables are not beside the test bundle. Bounded: the host gives up after 15 s.
@Suite(.serialized) struct PairingExecutableTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ binary: URL, _ arguments: [String], environment: [String: String], stdin: String? = nil) throws -> Run {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                   stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test(.enabled(if: PumpExecutableTests.binariesBuilt, Comment(rawValue: PumpExecutableTests.notBuilt)))
    func pairWithPinFromStdinThenConnectIsPinned() throws {
        // "pf-testhost listening on 127.0.0.1:PORT fingerprint HEX" then "pf-testhost pairing armed, PIN 0042".
        let host = try TestHostProcess(["--frames", "60", "--au-bytes", "4000", "--max-seconds", "15", "--pin", "0042",
                                        "--require-pairing", "--deny", "--pending-every", "0.2", "--sessions", "3"],
                                       name: "pair-e2e", until: "PIN")
        defer { host.stop() }
        let (temp, address, hostFP, kioskBin) = (host.temp, host.address, host.fingerprint, TestHostProcess.kiosk)

        let env = ["XDG_CONFIG_HOME": temp.appendingPathComponent("cfg").path, "HOME": temp.path]
        // Unknown host: connect refuses locally and names the pair command.
        let refused = try Self.run(kioskBin, ["connect", address, "--headless", "--seconds", "1"], environment: env)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("punktfunk-kiosk pair \(address) --pin PIN"), "\(refused.stderr)")

        let paired = try Self.run(kioskBin, ["pair", address, "--pin", "-"], environment: env, stdin: "0042\n")
        #expect(paired.status == 0, "\(paired.stderr)")
        #expect(paired.stdout.contains(hostFP))
        let known = try String(contentsOf: temp.appendingPathComponent("cfg/punktfunk-kiosk/known-hosts"), encoding: .utf8)
        #expect(known.contains("\(hostFP) \(address)"))

        let connected = try Self.run(kioskBin, ["connect", address, "--headless", "--seconds", "1"], environment: env)
        #expect(connected.status == 0, "\(connected.stderr)")
        #expect(connected.stdout.hasPrefix("{\"second\":1,"), "\(connected.stdout)")

        // Another device (own config dir, --tofu) is not paired: it knocks, waits, and is denied.
        let otherEnv = ["XDG_CONFIG_HOME": temp.appendingPathComponent("cfg-other").path, "HOME": temp.path]
        let stranger = try Self.run(kioskBin, ["connect", address, "--headless", "--tofu", "--seconds", "1"], environment: otherEnv)
        #expect(stranger.status == 1)
        #expect(stranger.stderr.contains("waiting for approval on the host"), "\(stranger.stderr)")
        #expect(stranger.stderr.contains("0x64 denied"), "\(stranger.stderr)")
        host.process.waitUntilExit()
        #expect(host.process.terminationStatus == 0)
    }
}
