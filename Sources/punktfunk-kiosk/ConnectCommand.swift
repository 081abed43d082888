import ArgumentParser
import Display
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
    var host: String?
    @Flag(help: "Run without a display: stats on stdout only.") var headless = false
    @Flag(help: "Stream from the embedded test host (a 640x360 test pattern over a real loopback session) instead of HOST.") var demo = false
    @Option(name: .customLong("drm-device"), help: "DRM card node (default: the first with a connected display).") var drmDevice: String?
    @Option(help: "Display mode WxH or WxH@Hz (default: the panel's preferred mode); the host is asked for exactly this mode.") var mode: String?
    @Option(help: "Decoder rung: auto (VA-API, then software), vaapi, or software.") var decoder = "software"
    @Option(name: .customLong("realtime-priority"), help: "SCHED_FIFO priority of the presenting thread, 1-99, or 0 to keep SCHED_OTHER (needs CAP_SYS_NICE or LimitRTPRIO; refused → SCHED_OTHER, said at start).")
    var realtimePriority: Int32 = PresentThreadScheduling.defaultPriority
    @Option(name: .customLong("flip-log"), help: "Write one JSON line per completed flip to this file.") var flipLog: String?
    @Option(name: .customLong("screendump-at"), help: "Comma-separated picture numbers (display order): once one is on glass, print @@SCREENDUMP frame-<n> and wait for a stdin line (test harnesses).")
    var screendumpAt: String?
    @Flag(help: "Show a stats overlay in the top-left corner: fps, Mb/s, loss, decode ms, capture→glass p50/p95.") var stats = false
    @Option(name: .customLong("stats-dump"), help: "With --stats and --screendump-at: write the overlay image on glass at each screendump as PREFIX-frame-<n>.argb (test harnesses).")
    var statsDump: String?
    @Option(help: "Trust the host whose certificate SHA-256 is this 64-digit hex fingerprint.") var fp: String?
    @Flag(help: "Trust the host on first use and record its fingerprint.") var tofu = false
    @Option(help: "End the session after this many seconds with the deliberate-quit code (default: run until the host ends it or Ctrl+C).") var seconds: Double?
    @Option(help: "Write every complete AU as DIR/<frame>.au.") var dumpAu: String?
    @Option(help: "Run a speed test one second in: ask the host for this many kbit/s of probe filler for 1 s and print the result as one JSON line.") var probeKbps: UInt32?

    func validate() throws {
        if host == nil && !demo { throw ValidationError("give HOST[:PORT], or --demo") }
        if host != nil && demo { throw ValidationError("--demo streams from the embedded host; give no HOST with it") }
        guard ["auto", "vaapi", "software"].contains(decoder) else { throw ValidationError("--decoder must be auto, vaapi or software") }
        if let mode, ModeRequest(parsing: mode) == nil { throw ValidationError("--mode must be WxH or WxH@Hz, e.g. 1920x1080@60") }
        if screendumpFrames == nil { throw ValidationError("--screendump-at must be picture numbers like 10,40") }
        if fp != nil && tofu { throw ValidationError("give --fp or --tofu, not both") }
        if statsDump != nil && !stats { throw ValidationError("--stats-dump needs --stats") }
        if !(0...99).contains(realtimePriority) { throw ValidationError("--realtime-priority must be 0...99") }
        if stats && headless { throw ValidationError("--stats draws on the display; --headless prints the stats as JSON lines") }
        if let fp, CertificateFingerprint.normalize(fp) == nil {
            throw ValidationError("--fp must be a SHA-256 fingerprint: 64 hex digits")
        }
        if let seconds, seconds < 0 { throw ValidationError("--seconds must not be negative") }
    }

    /// `--seconds`, or ten years: "until the host ends it or the user quits".
    var sessionSeconds: Double { seconds ?? 315_360_000 }

    var screendumpFrames: Set<Int>? { ScreendumpList.parse(screendumpAt) }

    func fail(_ sentence: String, code: Int32 = 1) -> ExitCode {
        FileHandle.standardError.write(Data("punktfunk-kiosk: \(sentence)\n".utf8))
        return ExitCode(code)
    }

    func run() throws {
        if demo { return try runDemo() }
        guard let host else { throw ValidationError("give HOST[:PORT], or --demo") }
        let profile: ClientProfile
        switch ClientProfile.load(host: host) {
        case .success(let p): profile = p
        case .failure(let e): throw fail(e.sentence)
        }
        let (directory, remote, identity) = (profile.directory, profile.remote, profile.identity)
        var knownHosts = profile.knownHosts
        let key = remote.description
        let trust: HostTrust
        if let known = knownHosts.fingerprint(for: key) {
            trust = .pinned(known)
        } else if let fp, let normalized = CertificateFingerprint.normalize(fp) {
            trust = .pinned(normalized)
        } else if tofu {
            trust = .trustOnFirstUse
        } else {
            throw fail(SessionError.unknownHost(host).description)
        }
        if let dumpAu {
            do { try FileManager.default.createDirectory(atPath: dumpAu, withIntermediateDirectories: true) } catch {
                throw fail("Cannot create \(dumpAu): \(error.localizedDescription)")
            }
        }
        var sessionOptions = ClientSession.Options(remote: remote, identity: identity, trust: trust, seconds: sessionSeconds)
        sessionOptions.onPending = { count in
            if count == 1 { FileHandle.standardError.write(Data("punktfunk-kiosk: waiting for approval on the host\n".utf8)) }
        }
        if !headless {
            try present(sessionOptions)
            return
        }
        var dumpError: String?
        let prepare = { (session: ClientSession) in
            if let dumpAu {
                session.onAccessUnit = { au in
                    let path = "\(dumpAu)/\(au.frame).au"
                    if !FileManager.default.createFile(atPath: path, contents: Data(au.data)) { dumpError = "Cannot write \(path)." }
                }
            }
            session.onStats = { stats in
                FileHandle.standardOutput.write(Data((stats.json + "\n").utf8))
                if stats.second == 1, let kbps = probeKbps {
                    session.outbox.sendControl(.probeRequest(ProbeRequest(targetKbps: kbps, durationMs: 1_000)))
                }
            }
            session.onProbeReport = { report in
                FileHandle.standardOutput.write(Data((report.json + "\n").utf8))
            }
        }
        // One Redirect is followed (control-plane.md §3.1); `session` is the one that streamed.
        let session: ClientSession
        let onResume = { (attempt: Int) in
            FileHandle.standardError.write(Data("punktfunk-kiosk: the connection was lost; resuming the session (attempt \(attempt))\n".utf8))
        }
        do { session = try SessionDialer.run(sessionOptions, prepare: prepare, onResume: onResume) } catch { throw fail(error.description) }
        if tofu, knownHosts.fingerprint(for: key) == nil, session.options.remote == remote, let seen = session.peerFingerprint {
            do {
                try knownHosts.trust(host: key, fingerprint: seen)
                try knownHosts.store(in: directory)
            } catch { throw fail("The session worked but the host could not be recorded: \(error)") }
        }
        if let dumpError { throw fail(dumpError) }
    }
}
