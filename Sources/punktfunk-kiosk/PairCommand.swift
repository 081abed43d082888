import ArgumentParser
import Foundation
import Kiosk
import PunktfunkSession

/// `punktfunk-kiosk pair HOST[:PORT] --pin PIN` (`--pin -` reads the PIN from stdin): runs the
/// PIN ceremony of control-plane.md §6.2 through the application and stores the host's
/// fingerprint in the known-hosts store, keyed like `connect` looks it up (the resolved
/// `ip:port`). `--request-access` asks the host's console to approve this device instead (§6.5,
/// no PIN). Exit 0 when the host is stored, 1 with one sentence on stderr otherwise.
struct PairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair with a punktfunk host (PIN shown on the host, or --request-access).",
        discussion: """
            Start pairing on the host; it shows a four-digit PIN. Each PIN allows one guess. \
            The host's certificate fingerprint is then stored in $XDG_CONFIG_HOME/punktfunk-kiosk/known-hosts \
            and every later connect is pinned to it.
            """)

    @Argument(help: "HOST[:PORT] — a discovered host's name or id, a DNS name, an IPv4 literal, or an IPv6 literal ([::1]:9777). Default port 9777.")
    var host: String
    @Option(help: "The four-digit PIN the host shows; '-' reads it from stdin.") var pin: String?
    @Flag(help: "Ask the host's console to approve this device instead of using a PIN.") var requestAccess = false
    @Option(help: "Name shown on the host for this device (default: this machine's host name).") var name: String?

    func validate() throws {
        guard (pin != nil) != requestAccess else { throw ValidationError("give --pin PIN (or --pin -) or --request-access") }
    }

    func run() throws {
        var normalized: String?
        if let pin {
            var typed = pin
            if pin == "-" {
                guard let line = readLine(strippingNewline: true) else { throw failure("No PIN on standard input.") }
                typed = line
            }
            do { normalized = try PairingCeremony.normalizedPIN(typed) } catch { throw failure(error.description) }
        }
        let configuration = RunnerConfiguration(display: .headless, profile: .configDirectory,
                                                deviceName: name ?? ProcessInfo.processInfo.hostName)
        let runner: KioskRunner
        do { runner = try KioskRunner(configuration: configuration) } catch { throw failure("\(error)") }
        let entry = HostLookup.entry(for: host, givenFingerprint: nil, config: ProfileConfig.load(), say: { note($0) })
        let machine = KioskMachine(policy: KioskPolicy(afterJob: .exitProcess), hosts: [entry],
                                   initialAction: .pair(hostID: entry.id, pin: normalized))
        let code = runner.run(machine)
        if code != 0 { throw ExitCode(code) }
        guard let stored = runner.trusted.last else { throw failure("Paired, but the host could not be stored.") }
        print("paired with \(stored.key), host fingerprint \(stored.fingerprint)")
    }
}
