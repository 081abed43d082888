import ArgumentParser
import Kiosk
import KioskHarness

/// Options only test harnesses use (the VM harness's screendump handshake, overlay dumps and the
/// vgem stand-in for VA-API exports). They never appear in `--help`; without them no harness code
/// runs.
struct HarnessOptions: ParsableArguments {
    @Option(name: .customLong("screendump-at"), help: ArgumentHelp(visibility: .private))
    var screendumpAt: String?
    @Option(name: .customLong("stats-dump"), help: ArgumentHelp(visibility: .private))
    var statsDump: String?
    @Option(name: .customLong("dmabuf-via"), help: ArgumentHelp(visibility: .private))
    var dmabufVia: String?
    @Flag(name: .customLong("shell-trace"), help: ArgumentHelp(visibility: .private))
    var shellTrace = false

    func validate() throws {
        if ScreendumpHandshake.parse(screendumpAt) == nil { throw ValidationError("--screendump-at must be picture numbers like 10,40") }
    }

    /// The hooks these options ask for. - Throws: a usage error, or when the vgem node cannot be opened.
    func hooks(stats: Bool) throws -> HarnessHookSet {
        do {
            return try HarnessHooks.harness(screendumpAt: screendumpAt, statsDump: statsDump, dmabufVia: dmabufVia, stats: stats)
        } catch let refusal as HarnessHooks.Refusal {
            throw ValidationError(refusal.description)
        }
    }
}
