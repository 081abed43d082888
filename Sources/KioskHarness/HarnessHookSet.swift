import Display
import Kiosk
import VideoFrames

/// What the VM harness reaches into a run with: the runner's hooks, and the KMS screen's
/// checkpoint (the runner sees no KMS type, so that one goes to `KMSScreen.Settings`).
public struct HarnessHookSet {
    public var hooks = HarnessHooks()
    /// Pauses at chosen pictures on glass (screendumps), made per stream once the display is open.
    public var checkpoint: ((Presenter) -> GlassCheckpoint?)?
}

extension HarnessHooks {
    /// Why a harness option cannot be used (said by the command line as a usage error).
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// The hooks the VM harness asks for:
    /// - `screendumpAt`: picture numbers to pause at with the screendump handshake (stdout marker,
    ///   stdin acknowledgement), writing the overlay image too when `statsDump` is a prefix;
    /// - `dmabufVia`: a vgem node whose dma-bufs stand in for VA-API exports of a file's pictures.
    public static func harness(screendumpAt: String?, statsDump: String?, dmabufVia: String?, stats: Bool) throws -> HarnessHookSet {
        var set = HarnessHookSet()
        guard let pictures = ScreendumpHandshake.parse(screendumpAt) else {
            throw Refusal(description: "--screendump-at must be picture numbers like 10,40")
        }
        if statsDump != nil && !stats { throw Refusal(description: "--stats-dump needs --stats") }
        if !pictures.isEmpty {
            set.checkpoint = { ScreendumpHandshake(pictures: pictures, presenter: $0, overlayDumpPrefix: statsDump) }
        }
        if let dmabufVia {
            let exporter = try VGEMExporter(path: dmabufVia)
            set.hooks.filePicture = { picture in
                guard case .cpu(let frame) = picture else { return picture }
                return .dmaBuf(try exporter.export(frame))
            }
        }
        return set
    }
}
