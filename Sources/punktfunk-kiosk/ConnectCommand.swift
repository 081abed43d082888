import ArgumentParser
import Foundation
import PunktfunkSession
import PunktfunkWire

/// `punktfunk-kiosk connect HOST[:PORT] --headless`: holds a punktfunk/2 session without a display,
/// printing one JSON stats line per second on stdout; `--dump-au DIR` writes every complete AU as
/// `DIR/<frame>.au`. Exit 0 on a normal end (the deliberate quit after `--seconds`), 1 with a
/// one-line reason on stderr otherwise, 2 without `--headless`.
struct ConnectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Connect to a punktfunk host and stream (headless for now).",
        discussion: """
            The host is trusted if it is in the known-hosts store ($XDG_CONFIG_HOME/punktfunk-kiosk/known-hosts), \
            or its certificate fingerprint is given with --fp, or --tofu is given (the fingerprint is then recorded). \
            Otherwise the connect is refused. The client identity lives in the same directory.
            """)

    @Argument(help: "HOST[:PORT] — a name, an IPv4 literal, or an IPv6 literal ([::1]:9777). Default port 9777.")
    var host: String
    @Flag(help: "Run without a display (the only mode so far).") var headless = false
    @Option(help: "Trust the host whose certificate SHA-256 is this 64-digit hex fingerprint.") var fp: String?
    @Flag(help: "Trust the host on first use and record its fingerprint.") var tofu = false
    @Option(help: "End the session after this many seconds with the deliberate-quit code.") var seconds = 10.0
    @Option(help: "Write every complete AU as DIR/<frame>.au.") var dumpAu: String?

    func validate() throws {
        if fp != nil && tofu { throw ValidationError("give --fp or --tofu, not both") }
        if let fp, CertificateFingerprint.normalize(fp) == nil {
            throw ValidationError("--fp must be a SHA-256 fingerprint: 64 hex digits")
        }
        guard seconds >= 0 else { throw ValidationError("--seconds must not be negative") }
    }

    func fail(_ sentence: String, code: Int32 = 1) -> ExitCode {
        FileHandle.standardError.write(Data("punktfunk-kiosk: \(sentence)\n".utf8))
        return ExitCode(code)
    }

    func run() throws {
        guard headless else {
            print("the display path is not built yet; use --headless")
            throw ExitCode(2)
        }
        guard let directory = ConfigDirectory.resolve(environment: ProcessInfo.processInfo.environment) else {
            throw fail("Neither XDG_CONFIG_HOME nor HOME is set, so there is nowhere to keep the client identity.")
        }
        let remote: SocketAddress
        do { remote = try HostResolver.resolve(host) } catch { throw fail(error.description) }
        let identity: TLSIdentity
        var knownHosts: KnownHosts
        do {
            identity = try TLSIdentity.loadOrCreate(in: directory)
            knownHosts = try KnownHosts.load(from: directory)
        } catch { throw fail("The client identity or known-hosts store in \(directory.path) is unusable: \(error)") }
        let key = remote.description
        let trust: HostTrust
        if let known = knownHosts.fingerprint(for: key) {
            trust = .pinned(known)
        } else if let fp, let normalized = CertificateFingerprint.normalize(fp) {
            trust = .pinned(normalized)
        } else if tofu {
            trust = .trustOnFirstUse
        } else {
            throw fail("The host \(key) is not known. Pair with it (punktfunk-kiosk pair \(host) --pin PIN), "
                       + "or pass its certificate fingerprint with --fp, or trust it on first use with --tofu.")
        }
        if let dumpAu {
            do { try FileManager.default.createDirectory(atPath: dumpAu, withIntermediateDirectories: true) } catch {
                throw fail("Cannot create \(dumpAu): \(error.localizedDescription)")
            }
        }
        let session = ClientSession(options: .init(remote: remote, identity: identity, trust: trust, seconds: seconds))
        var dumpError: String?
        if let dumpAu {
            session.onAccessUnit = { au in
                let path = "\(dumpAu)/\(au.frame).au"
                if !FileManager.default.createFile(atPath: path, contents: Data(au.data)) { dumpError = "Cannot write \(path)." }
            }
        }
        session.onStats = { stats in
            FileHandle.standardOutput.write(Data((stats.json + "\n").utf8))
        }
        do { try session.run() } catch { throw fail(error.description) }
        if tofu, knownHosts.fingerprint(for: key) == nil, let seen = session.peerFingerprint {
            do {
                try knownHosts.trust(host: key, fingerprint: seen)
                try knownHosts.store(in: directory)
            } catch { throw fail("The session worked but the host could not be recorded: \(error)") }
        }
        if let dumpError { throw fail(dumpError) }
    }
}
