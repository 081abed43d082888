import ArgumentParser
import Foundation
import PunktfunkSession
import PunktfunkWire

/// `punktfunk-kiosk pair HOST[:PORT] --pin PIN` (`--pin -` reads the PIN from stdin): runs the
/// PIN ceremony of control-plane.md §6.2 and stores the host's fingerprint in the known-hosts
/// store, keyed like `connect` looks it up (the resolved `ip:port`). `--request-access` asks the
/// host's console to approve this device instead (§6.5, no PIN). Exit 0 when the host is stored,
/// 1 with one sentence on stderr otherwise.
struct PairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair with a punktfunk host (PIN shown on the host, or --request-access).",
        discussion: """
            Start pairing on the host; it shows a four-digit PIN. Each PIN allows one guess. \
            The host's certificate fingerprint is then stored in $XDG_CONFIG_HOME/punktfunk-kiosk/known-hosts \
            and every later connect is pinned to it.
            """)

    @Argument(help: "HOST[:PORT] — a name, an IPv4 literal, or an IPv6 literal ([::1]:9777). Default port 9777.")
    var host: String
    @Option(help: "The four-digit PIN the host shows; '-' reads it from stdin.") var pin: String?
    @Flag(help: "Ask the host's console to approve this device instead of using a PIN.") var requestAccess = false
    @Option(help: "Name shown on the host for this device (default: this machine's host name).") var name: String?

    func validate() throws {
        guard (pin != nil) != requestAccess else { throw ValidationError("give --pin PIN (or --pin -) or --request-access") }
    }

    func fail(_ sentence: String) -> ExitCode {
        FileHandle.standardError.write(Data("punktfunk-kiosk: \(sentence)\n".utf8))
        return ExitCode(1)
    }

    func run() throws {
        let mode: PairingClient.Mode
        if let pin {
            var typed = pin
            if pin == "-" {
                guard let line = readLine(strippingNewline: true) else { throw fail("No PIN on standard input.") }
                typed = line
            }
            do { mode = .pin(try PairingCeremony.normalizedPIN(typed)) } catch { throw fail(error.description) }
        } else {
            mode = .requestAccess
        }
        let profile: ClientProfile
        switch ClientProfile.load(host: host) {
        case .success(let p): profile = p
        case .failure(let e): throw fail(e.sentence)
        }
        let (directory, remote, identity) = (profile.directory, profile.remote, profile.identity)
        var knownHosts = profile.knownHosts
        var options = PairingClient.Options(remote: remote, identity: identity, mode: mode,
                                            name: name ?? ProcessInfo.processInfo.hostName)
        options.onPending = { count in
            if count == 1 { FileHandle.standardError.write(Data("punktfunk-kiosk: waiting for approval on the host\n".utf8)) }
        }
        let hostFingerprint: String
        do { hostFingerprint = try PairingClient(options: options).run() } catch { throw fail(error.description) }
        let key = remote.description
        do {
            try knownHosts.trust(host: key, fingerprint: hostFingerprint)
            try knownHosts.store(in: directory)
        } catch { throw fail("Paired, but the host could not be stored: \(error)") }
        print("paired with \(key), host fingerprint \(hostFingerprint)")
    }
}
