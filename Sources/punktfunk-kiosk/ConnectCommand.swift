import ArgumentParser
import Foundation
import Kiosk
import Input
import PunktfunkSession
import PunktfunkTestHost
import VideoDecode

/// `punktfunk-kiosk connect HOST[:PORT]` (or `--demo`): one stream, on glass or `--headless`, then
/// the process ends. Exit 0 when it ran its course (`--seconds`, or the host ended it normally),
/// 1 with a sentence when it failed, 2 without a display (unless `--headless`), 130/143 on
/// SIGINT/SIGTERM; the display is restored on every path.
struct ConnectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Connect to a punktfunk host and stream it on the display (or headless).",
        discussion: """
            The host is trusted if it is in the known-hosts store ($XDG_CONFIG_HOME/punktfunk-kiosk/known-hosts), \
            or its certificate fingerprint is given with --fp, or --tofu is given (the fingerprint is then recorded). \
            Otherwise the connect is refused. The client identity lives in the same directory. \
            Without --headless the stream takes the display at the panel's mode and asks the host for exactly that mode; \
            one JSON stats line per second goes to stdout either way.
            """)

    @Argument(help: "HOST[:PORT] — a discovered host's name or id, a DNS name, an IPv4 literal, or an IPv6 literal ([::1]:9777). Default port 9777.")
    var host: String?
    @Flag(help: "Run without a display: stats on stdout only.") var headless = false
    @Flag(help: "Stream from the embedded test host (a 640x360 test pattern over a real loopback session) instead of HOST.") var demo = false
    @Option(help: "Trust the host whose certificate SHA-256 is this 64-digit hex fingerprint.") var fp: String?
    @Flag(help: "Trust the host on first use and record its fingerprint.") var tofu = false
    @Option(help: "End the session after this many seconds with the deliberate-quit code (default: run until the host ends it or Ctrl+C).") var seconds: Double?
    @Option(help: "Write every complete AU as DIR/<frame>.au.") var dumpAu: String?
    @Option(help: "Run a speed test one second in: ask the host for this many kbit/s of probe filler for 1 s and print the result as one JSON line.") var probeKbps: UInt32?
    @Option(help: "Start this title on the host as the session opens: a library id such as steam:570 (at most 128 bytes). What became of it is printed as one line; a host that does not give this device the launch permission ends the session (status 1).")
    var launch: String?
    @OptionGroup var stream: StreamOptions
    @OptionGroup var display: DisplayOptions
    @OptionGroup var sound: AudioOptions
    @OptionGroup var inputOptions: InputOptions
    @OptionGroup var harness: HarnessOptions

    func validate() throws {
        if host == nil && !demo { throw ValidationError("give HOST[:PORT], or --demo") }
        if host != nil && demo { throw ValidationError("--demo streams from the embedded host; give no HOST with it") }
        if fp != nil && tofu { throw ValidationError("give --fp or --tofu, not both") }
        if display.stats && headless { throw ValidationError("--stats draws on the display; --headless prints the stats as JSON lines") }
        if let fp, CertificateFingerprint.normalize(fp) == nil { throw ValidationError("--fp must be a SHA-256 fingerprint: 64 hex digits") }
        if let seconds, seconds < 0 { throw ValidationError("--seconds must not be negative") }
        if let launch, let problem = LaunchTitle.problem(id: launch) { throw ValidationError(problem) }
    }

    func run() throws {
        // The config's settings, each overridden by its option (the demo stream reads none of it).
        let config = demo ? KioskConfig() : ProfileConfig.load()
        let stats = display.stats || (!headless && config.statsOverlay == true)
        let harnessSet = try harness.hooks(stats: stats)
        var configuration = RunnerConfiguration(display: headless ? .headless : display.choice(config: config, harness: harnessSet),
                                                profile: demo ? .anonymous : .configDirectory,
                                                decoder: stream.rungs(config: config, fallback: "software"),
                                                decodeWhenHeadless: demo || stream.pictureLog != nil, sessionSeconds: seconds, statsLines: .always,
                                                dumpAccessUnits: dumpAu, probeKbps: probeKbps)
        configuration.harness = harnessSet.hooks
        configuration.scaling = display.scalingChoice(config: config)
        try configuration.applySessionOptions(config: config, stream: stream, input: inputOptions, sound: sound)
        // Before any thread exists (the demo host's included): signals are blocked process-wide.
        let runner: KioskRunner
        do { runner = try KioskRunner(configuration: configuration) } catch { throw failure("\(error)") }
        let policy = KioskPolicy(afterJob: .exitProcess, allowFirstUse: tofu, requiresDisplay: !headless)
        let entry: HostEntry
        var demoHost: DemoHost?
        if demo {
            do { demoHost = try DemoHost(seconds: seconds ?? 315_360_000) } catch { throw failure("The demo host could not start: \(error)") }
            FileHandle.standardError.write(Data("punktfunk-kiosk: demo host on \(demoHost!.address)\n".utf8))
            entry = HostEntry(id: "demo", name: "demo host", address: demoHost!.address.description, givenFingerprint: demoHost!.fingerprint)
        } else {
            entry = HostLookup.entry(for: host!, givenFingerprint: fp, config: config, say: { note($0) })
        }
        defer { demoHost?.stop() }
        let machine = KioskMachine(policy: policy, hosts: [entry], initialAction: .connect(hostID: entry.id, launch: launch),
                                   statsOverlay: display.stats)
        let code = runner.run(machine)
        if code != 0 { throw ExitCode(code) }
    }
}
