import ArgumentParser
import Display
import Kiosk
import KioskHarness
import VideoDecode

/// Options only test harnesses use (the VM harness's screendump handshake, overlay dumps and the
/// vgem stand-in for VA-API exports). They never appear in `--help`; without them nothing of the
/// harness runs.
struct HarnessOptions: ParsableArguments {
    @Option(name: .customLong("screendump-at"), help: ArgumentHelp(visibility: .private))
    var screendumpAt: String?
    @Option(name: .customLong("stats-dump"), help: ArgumentHelp(visibility: .private))
    var statsDump: String?
    @Option(name: .customLong("dmabuf-via"), help: ArgumentHelp(visibility: .private))
    var dmabufVia: String?

    func validate() throws {
        if ScreendumpHandshake.parse(screendumpAt) == nil { throw ValidationError("--screendump-at must be picture numbers like 10,40") }
    }

    /// The hooks these options ask for. - Throws: when the vgem device cannot be opened.
    func hooks(stats: Bool) throws -> HarnessHooks {
        var hooks = HarnessHooks()
        if statsDump != nil && !stats { throw ValidationError("--stats-dump needs --stats") }
        let pictures = ScreendumpHandshake.parse(screendumpAt) ?? []
        if !pictures.isEmpty {
            let prefix = statsDump
            hooks.checkpoint = { ScreendumpHandshake(pictures: pictures, presenter: $0, overlayDumpPrefix: prefix) }
        }
        if let dmabufVia {
            let exporter = try VGEMExporter(path: dmabufVia)
            hooks.filePicture = { picture in
                guard case .cpu(let frame) = picture else { return picture }
                return .dmaBuf(try exporter.export(frame))
            }
        }
        return hooks
    }
}
