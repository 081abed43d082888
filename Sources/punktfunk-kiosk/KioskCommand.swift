import ArgumentParser
import Foundation
import Kiosk
import PunktfunkSession
import PunktfunkTestHost
import VideoDecode

/// `punktfunk-kiosk` with no subcommand: the kiosk itself. Until the shell exists it streams the
/// embedded demo host on the display, through the same application a host stream uses; on a
/// machine with no usable display it says so in one sentence and runs the same session headless
/// (one JSON stats line per second, and the count of decoded pictures at the end).
struct KioskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk",
        abstract: "Start the kiosk: the embedded demo stream on the display (headless without one).")

    @Option(help: "Decoder rung: auto (VA-API, then software), vaapi, or software.") var decoder = "software"
    @Option(help: "End after this many seconds (default: until Ctrl+C or SIGTERM).") var seconds: Double?
    @OptionGroup var display: DisplayOptions
    @OptionGroup var sound: AudioOptions
    @OptionGroup var harness: HarnessOptions

    func validate() throws {
        if DecoderChoice(decoder) == nil { throw ValidationError("--decoder must be auto, vaapi or software") }
        if let seconds, seconds < 0 { throw ValidationError("--seconds must not be negative") }
    }

    func run() throws {
        var configuration = RunnerConfiguration(display: .kms(display.settings), profile: .anonymous,
                                                decoder: DecoderChoice(decoder)!.rungs, decodeWhenHeadless: true,
                                                sessionSeconds: seconds, statsLines: .whenHeadless)
        configuration.harness = try harness.hooks(stats: display.stats)
        sound.apply(to: &configuration)
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
