import ArgumentParser
import Foundation
import Kiosk
import PunktfunkSession
import PunktfunkTestHost
import VideoDecode
import Display

/// `punktfunk-kiosk demo`: streams the embedded demo host on the display until Ctrl+C, SIGTERM or
/// `--seconds`. On a machine with no usable display it says so in one sentence and runs the same
/// session headless (one JSON stats line per second, and the count of decoded pictures at the
/// end) — the README's first command. Options given on the command line override the config.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Stream the embedded demo host: on the display, or headless without one.")

    @Option(help: "End after this many seconds (default: until Ctrl+C or SIGTERM).") var seconds: Double?
    @OptionGroup var stream: StreamOptions
    @OptionGroup var display: DisplayOptions
    @OptionGroup var sound: AudioOptions
    @OptionGroup var inputOptions: InputOptions
    @OptionGroup var harness: HarnessOptions

    func validate() throws {
        if let seconds, seconds < 0 { throw ValidationError("--seconds must not be negative") }
    }

    func run() throws {
        let config = ProfileConfig.load()
        let harnessSet = try harness.hooks(stats: display.stats)
        var configuration = RunnerConfiguration(display: display.choice(config: config, harness: harnessSet), profile: .anonymous,
                                                decoder: stream.rungs(config: config, fallback: "software"), decodeWhenHeadless: true,
                                                sessionSeconds: seconds, statsLines: .whenHeadless)
        configuration.harness = harnessSet.hooks
        configuration.scaling = display.scalingChoice(config: config)
        configuration.shellTrace = harness.shellTrace
        try configuration.applySessionOptions(config: config, stream: stream, input: inputOptions, sound: sound)
        let runner: KioskRunner
        do { runner = try KioskRunner(configuration: configuration) } catch { throw failure("\(error)") }
        let demoHost: DemoHost
        do { demoHost = try DemoHost(seconds: seconds ?? 315_360_000) } catch { throw failure("The demo host could not start: \(error)") }
        defer { demoHost.stop() }
        let entry = HostEntry(id: "demo", name: "demo host", address: demoHost.address.description,
                              givenFingerprint: demoHost.fingerprint)
        let machine = KioskMachine(policy: KioskPolicy(afterJob: .exitProcess), hosts: [entry],
                                   initialAction: .connect(hostID: entry.id), statsOverlay: display.stats)
        let code = runner.run(machine)
        if code != 0 { throw ExitCode(code) }
    }
}
