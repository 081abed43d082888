import ArgumentParser
import Display
import Foundation
import Kiosk
import Screen
import WaylandDisplay
import X11Display
import KioskHarness

/// The display options every command that shows pictures shares, declared once.
struct DisplayOptions: ParsableArguments {
    @Option(help: "Where to show: auto (a Wayland window when a compositor is reachable, else an X11 window when an X server is, else KMS), kms (own the display from a TTY), wayland or x11 (default: the config's `display`, else auto).")
    var display: String?
    @Option(name: .customLong("drm-device"), help: "DRM card node (default: the first with a connected display).")
    var drmDevice: String?
    @Option(help: "Display mode WxH or WxH@Hz (default: the panel's preferred mode); a host is asked for exactly this mode.")
    var mode: String?
    @Option(help: "Pictures of another size than the screen: fit (scaled up or down to touch two opposite edges, aspect kept, black around) or native (1:1, centred; larger ones scaled down) (default: the config's `scaling`, else fit).")
    var scaling: String?
    @Option(name: .customLong("realtime-priority"), help: "SCHED_FIFO priority of the presenting thread, 1-99, or 0 to keep SCHED_OTHER (needs CAP_SYS_NICE or LimitRTPRIO; refused → SCHED_OTHER, said at start).")
    var realtimePriority: Int32 = PresentThreadScheduling.defaultPriority
    @Option(name: .customLong("flip-log"), help: "Write one JSON line per completed flip to this file, and a pacing summary per stream.")
    var flipLog: String?
    @Flag(help: "Show a stats overlay in the top-left corner: fps, Mb/s, loss, decode ms, latency p50/p95.")
    var stats = false
    @Option(name: .customLong("wayland-10bit"), help: "Under a compositor, software-decoded 10-bit pictures as 10-bit buffers: auto (when the compositor lists XRGB2101010 or XBGR2101010 and composites on a GPU, i.e. offers linux-dmabuf), on (whenever it lists one) or off (XRGB8888).")
    var wayland10bit: String = TenBitShm.auto.rawValue

    func validate() throws {
        if let display, DisplayBackend(rawValue: display) == nil { throw ValidationError("--display must be auto, kms, wayland or x11") }
        if let mode, ModeRequest(parsing: mode) == nil { throw ValidationError("--mode must be WxH or WxH@Hz, e.g. 1920x1080@60") }
        if let scaling, PictureScaling(rawValue: scaling) == nil { throw ValidationError("--scaling must be fit or native") }
        if !(0...99).contains(realtimePriority) { throw ValidationError("--realtime-priority must be 0...99") }
        if TenBitShm(rawValue: wayland10bit) == nil { throw ValidationError("--wayland-10bit must be auto, on or off") }
    }

    /// The screen to open: the backend `--display` (else the config's `display`, else auto)
    /// names, with `--mode` (else the config's `display-mode`); `harness` holds pictures on KMS.
    /// A backend named (not auto) is required: it opens or the process ends (exit 2). Auto tries
    /// `DisplayBackend.candidates` in order (Wayland, X11, KMS — those reachable); one that is
    /// reachable but does not open gives way to the next, said on stderr; when the last cannot
    /// open either, the sentence says what was tried.
    func choice(config: KioskConfig, harness: HarnessHookSet) -> RunnerConfiguration.DisplayChoice {
        let asked = display.flatMap(DisplayBackend.init(rawValue:)) ?? config.display ?? .auto
        let candidates = DisplayBackend.candidates(asked, environment: ProcessInfo.processInfo.environment,
                                                   socketExists: DisplayBackend.isSocket)
        let modeRequest = (mode ?? config.displayMode).flatMap(ModeRequest.init(parsing:))
        let tenBit = TenBitShm(rawValue: wayland10bit) ?? .auto
        let settings = KMSScreen.Settings(devicePath: drmDevice, mode: modeRequest, realtimePriority: realtimePriority,
                                          flipLogPath: flipLog, checkpoint: harness.checkpoint)
        func open(_ backend: DisplayBackend) throws(ScreenError) -> any Screen {
            switch backend {
            case .wayland: return try WaylandBackend.open(tenBitShm: tenBit)
            case .x11: return try X11Backend.open()
            case .kms, .auto: return try KMSScreen(settings)
            }
        }
        return .screen(reason: candidates[0].reason, required: asked != .auto) {
            () throws(ScreenError) -> RunnerConfiguration.OpenedScreen in
            var failed: [String] = []
            for (index, candidate) in candidates.enumerated() {
                do throws(ScreenError) {
                    let screen = try open(candidate.backend)
                    return .init(screen, reason: failed.isEmpty ? candidate.reason
                                 : "\(candidate.reason) (\(failed.joined(separator: "; ")))")
                } catch {
                    let last = index == candidates.count - 1
                    if last {
                        guard asked == .auto, !failed.isEmpty || candidate.backend == .kms,
                              case .unavailable(let sentence) = error else { throw error }
                        let why = failed.isEmpty ? candidate.reason : failed.joined(separator: "; ")
                        throw ScreenError.unavailable("\(sentence) Nor a window: \(why).")
                    }
                    note("the \(candidate.backend.rawValue) screen did not open (\(error)): trying \(candidates[index + 1].backend.rawValue)")
                    failed.append("\(candidate.backend.rawValue) did not open: \(error)")
                }
            }
            throw ScreenError.unavailable("no screen to open")
        }
    }

    /// `--scaling`, else the config's `scaling`, else fit.
    func scalingChoice(config: KioskConfig) -> PictureScaling {
        scaling.flatMap(PictureScaling.init(rawValue:)) ?? config.scaling ?? .fit
    }
}
