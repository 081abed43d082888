import ArgumentParser
import Foundation
import Kiosk
import PunktfunkSession
import VideoDecode
import Display

/// `punktfunk-kiosk` with no subcommand: the kiosk itself — the couch shell on the display
/// (hosts found by discovery and saved in the config, pairing, settings, the stream and its menu),
/// through one runner for the life of the process. With `autoconnect` in the config (or
/// `--autoconnect ID`) it is boot-to-stream instead: it waits for the network, finds the host
/// (discovery, Wake-on-LAN, else its last address — `BootToStream`), streams it, and when the host
/// is lost tries again every few seconds, saying so. Without a usable display it says so in one
/// sentence and ends (status 2). Options given on the command line override the config.
///
/// Standby (the TV's, over HDMI-CEC, or the box's own after `--standby-after` idle in the shell)
/// keeps the process: the stream ends, the screen goes black, and a wake (the TV, the remote's
/// power key, a key or pad button on the box) brings back the shell — or the autoconnect host.
struct KioskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk",
        abstract: "Start the kiosk: the couch shell on the display (boot-to-stream with autoconnect).",
        discussion: """
            Standby is a state of the box: when the TV goes to standby (HDMI-CEC) or the shell sat idle for \
            --standby-after, the stream ends and the screen goes black; the TV (Set Stream Path, its remote's power \
            key) or a key or pad button on the box wakes it back to the shell, or to the autoconnect host.
            """)

    @Option(help: "End after this many seconds (default: until Ctrl+C, SIGTERM or Quit).") var seconds: Double?
    @Option(help: "Stream this saved or discovered host at start, retrying when it is lost (default: the config's autoconnect).") var autoconnect: String?
    @Option(help: "With autoconnect: start this title on the host, a library id such as steam:570 (default: the host's launch key in the config, else its desktop).")
    var launch: String?
    @Option(help: "Seconds between tries when the autoconnect host is lost.") var retrySeconds = 5.0
    @Option(help: "Go to standby (and ask the TV to, with cec-tv-off) after the shell sat this long without input: minutes (30), seconds (90s) or off (config: standby-after, default off).")
    var standbyAfter: String?
    @Option(help: "mDNS UDP port (tests only; the standard is 5353).") var mdnsPort: UInt16 = 5353
    @OptionGroup var stream: StreamOptions
    @OptionGroup var display: DisplayOptions
    @OptionGroup var sound: AudioOptions
    @OptionGroup var inputOptions: InputOptions
    @OptionGroup var harness: HarnessOptions

    func validate() throws {
        if let seconds, seconds < 0 { throw ValidationError("--seconds must not be negative") }
        if let launch, let problem = LaunchTitle.problem(id: launch) { throw ValidationError(problem) }
        if let standbyAfter, KioskConfig.duration(standbyAfter) == nil {
            throw ValidationError("--standby-after must be off, minutes (30) or seconds (90s) from \(KioskConfig.standbyAfterRange.lowerBound) s to 24 h")
        }
    }

    func run() throws {
        let config = ProfileConfig.load()
        if let host = autoconnect ?? config.autoconnect { return try bootToStream(host, config: config) }
        if launch != nil { throw failure("--launch starts a title on the autoconnect host; give --autoconnect ID too (or pin titles with host.<id>.title in the config).") }
        let stats = display.stats || (config.statsOverlay ?? false)
        var configuration = try makeConfiguration(config: config, stats: stats)
        configuration.statsLines = .never
        let runner: KioskRunner
        do { runner = try KioskRunner(configuration: configuration) } catch { throw failure("\(error)") }
        var policy = KioskPolicy(afterJob: .returnToHosts, requiresDisplay: true)
        policy.leaveGraceNs = 3_000_000_000
        policy.standbyAfterSeconds = standbyAfter.flatMap(KioskConfig.duration)
        let machine = KioskMachine(policy: policy, hosts: config.hosts.map(\.hostEntry), statsOverlay: stats)
        let browser = startDiscovery(feeding: runner)
        defer { browser?.stop() }
        if let seconds { runner.userInbox.post(.quit, afterSeconds: seconds) }
        let code = runner.run(machine)
        if code != 0 { throw ExitCode(code) }
    }

    /// The runner's configuration from the options, else the config.
    private func makeConfiguration(config: KioskConfig, stats: Bool) throws -> RunnerConfiguration {
        let harnessSet = try harness.hooks(stats: stats)
        var configuration = RunnerConfiguration(display: display.choice(config: config, harness: harnessSet), profile: .configDirectory,
                                                decoder: stream.rungs(config: config, fallback: "auto"), decodeWhenHeadless: true,
                                                sessionSeconds: nil, statsLines: .whenHeadless)
        configuration.harness = harnessSet.hooks
        configuration.scaling = display.scalingChoice(config: config)
        configuration.shellTrace = harness.shellTrace
        try configuration.applySessionOptions(config: config, stream: stream, input: inputOptions, sound: sound)
        return configuration
    }

    /// Discovery beside the runner for the life of the process: the hosts it lists now go to the
    /// machine (`.hostsChanged`). nil (said on stderr) when no mDNS socket can be opened.
    private func startDiscovery(feeding runner: KioskRunner) -> MDNSBrowser? {
        let browser: MDNSBrowser
        do { browser = try MDNSBrowser(port: mdnsPort, log: { note($0) }) } catch {
            note("discovery is off: \(error)")
            return nil
        }
        let inbox = runner.hostListInbox
        let thread = Thread {
            browser.run(for: nil) { hosts in
                inbox.post(hosts.compactMap { h in
                    h.dialAddress.map { HostEntry(id: h.id, name: h.name, address: $0, advertisedFingerprint: h.fingerprint, macs: h.macs) }
                })
            }
        }
        thread.name = "discovery"
        thread.start()
        return browser
    }

    /// Boot-to-stream: the config's host, retried every `retrySeconds` while it is lost; with
    /// `--seconds` one stream that ends the process (tests, the VM harness).
    func bootToStream(_ id: String, config: KioskConfig) throws {
        let stats = display.stats || (config.statsOverlay ?? false)
        var configuration = try makeConfiguration(config: config, stats: stats)
        configuration.sessionSeconds = seconds
        // Before any thread exists (discovery's included): signals are blocked process-wide.
        let runner: KioskRunner
        do { runner = try KioskRunner(configuration: configuration) } catch { throw failure("\(error)") }
        var boot = BootToStream(config: config, directory: ProfileConfig.directory, mdnsPort: mdnsPort, say: { note($0) })
        var entry = boot.entry(for: id)
        while entry == nil {
            note("trying again in \(retrySeconds) s")
            Thread.sleep(forTimeInterval: retrySeconds)
            entry = boot.entry(for: id)
        }
        var policy = KioskPolicy(afterJob: seconds == nil ? .returnToHosts : .exitProcess)
        policy.retryFailedHostAfterNs = UInt64(retrySeconds * 1e9)
        policy.bootHost = entry!.id
        policy.standbyAfterSeconds = standbyAfter.flatMap(KioskConfig.duration)
        // The title: the option's, else the saved host's `launch` (nil: the desktop).
        let title = launch ?? boot.config.host(entry!.id)?.launch
        let machine = KioskMachine(policy: policy, hosts: [entry!], initialAction: .connect(hostID: entry!.id, launch: title),
                                   statsOverlay: stats)
        // Discovery keeps running beside the stream: a retry dials the host where it is now.
        let browser = startDiscovery(feeding: runner)
        defer { browser?.stop() }
        let code = runner.run(machine)
        if code != 0 { throw ExitCode(code) }
    }
}
