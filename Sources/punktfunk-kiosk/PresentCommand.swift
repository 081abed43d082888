import ArgumentParser
import Kiosk

/// `punktfunk-kiosk present FILE`: shows an Annex-B HEVC file on the display through the same
/// application as a stream — software decode on the presenting thread, every picture at `--fps`
/// through the flip pacer. Prints the start-up line on stderr (`{"drm":{…}}`). Exit 0 after the
/// last picture, 130/143 on SIGINT/SIGTERM, 2 without a DRM device, 1 with a sentence otherwise;
/// the display is restored on every path.
struct PresentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "present",
        abstract: "Show an Annex-B HEVC file on a DRM/KMS display (software decode, atomic KMS).")

    @Argument(help: "Annex-B HEVC elementary stream (.hevc / .h265).") var file: String
    @Option(help: "Frames per second to present at.") var fps: Double = 60
    @Option(help: "Play the file this many times.") var loop: Int = 1
    @Option(help: "Stop after this many seconds.") var seconds: Double?
    @OptionGroup var display: DisplayOptions
    @OptionGroup var harness: HarnessOptions

    func validate() throws {
        guard fps > 0, fps <= 1000 else { throw ValidationError("--fps must be in (0, 1000]") }
        guard loop >= 1 else { throw ValidationError("--loop must be at least 1") }
        if let seconds, seconds <= 0 { throw ValidationError("--seconds must be positive") }
    }

    func run() throws {
        let harnessSet = try harness.hooks(stats: display.stats)
        var configuration = RunnerConfiguration(display: display.choice(config: KioskConfig(), harness: harnessSet), profile: .anonymous)
        configuration.harness = harnessSet.hooks
        configuration.scaling = display.scalingChoice(config: KioskConfig())
        // Before any thread exists (the decoder's slice threads inherit the blocked mask) and as
        // early as possible (a shell's background job inherits SIGINT as ignored, and an ignored
        // signal that arrives before it is blocked is lost).
        let runner: KioskRunner
        do { runner = try KioskRunner(configuration: configuration) } catch { throw failure("\(error)") }
        let playback = FilePlayback(path: file, fps: fps, passes: loop, seconds: seconds)
        let machine = KioskMachine(policy: KioskPolicy(afterJob: .exitProcess, requiresDisplay: true),
                                   initialAction: .play(playback), statsOverlay: display.stats)
        let code = runner.run(machine)
        if code != 0 { throw ExitCode(code) }
    }
}
