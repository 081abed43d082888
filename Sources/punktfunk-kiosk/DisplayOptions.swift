import ArgumentParser
import Display
import Kiosk

/// The display options every command that shows pictures shares, declared once.
struct DisplayOptions: ParsableArguments {
    @Option(name: .customLong("drm-device"), help: "DRM card node (default: the first with a connected display).")
    var drmDevice: String?
    @Option(help: "Display mode WxH or WxH@Hz (default: the panel's preferred mode); a host is asked for exactly this mode.")
    var mode: String?
    @Option(name: .customLong("realtime-priority"), help: "SCHED_FIFO priority of the presenting thread, 1-99, or 0 to keep SCHED_OTHER (needs CAP_SYS_NICE or LimitRTPRIO; refused → SCHED_OTHER, said at start).")
    var realtimePriority: Int32 = PresentThreadScheduling.defaultPriority
    @Option(name: .customLong("flip-log"), help: "Write one JSON line per completed flip to this file, and a pacing summary per stream.")
    var flipLog: String?
    @Flag(help: "Show a stats overlay in the top-left corner: fps, Mb/s, loss, decode ms, latency p50/p95.")
    var stats = false

    func validate() throws {
        if let mode, ModeRequest(parsing: mode) == nil { throw ValidationError("--mode must be WxH or WxH@Hz, e.g. 1920x1080@60") }
        if !(0...99).contains(realtimePriority) { throw ValidationError("--realtime-priority must be 0...99") }
    }

    var settings: RunnerConfiguration.KMSSettings {
        .init(devicePath: drmDevice, mode: mode.flatMap(ModeRequest.init(parsing:)),
              realtimePriority: realtimePriority, flipLogPath: flipLog)
    }

    /// The settings with the config's `display-mode` where `--mode` is not given.
    func settings(config: KioskConfig) -> RunnerConfiguration.KMSSettings {
        var s = settings
        if s.mode == nil { s.mode = config.displayMode.flatMap(ModeRequest.init(parsing:)) }
        return s
    }
}
