/// How a reader (the KMS plane, the compositor, a CPU readback) learns that a decoded surface is
/// complete.
public enum DecodeSyncPath: String, Sendable, Codable, Equatable {
    /// A sync_file per exported object (DMA_BUF_IOCTL_EXPORT_SYNC_FILE), passed on as the
    /// plane's IN_FENCE_FD: the decode thread never waits. Right only where the kernel driver
    /// attaches the decoder's write fence to the exported buffer's reservation object.
    case syncFile = "sync-file"
    /// vaSyncSurface on the decode thread before the picture leaves the decoder: always right.
    case vaSyncSurface = "va-sync-surface"
}

/// The `decode-sync` setting: the table's choice (`auto`), or a path forced for a bug report.
public enum DecodeSyncSetting: String, Sendable, Codable, CaseIterable {
    case auto
    case syncFile = "sync-file"
    case vaSyncSurface = "va-sync-surface"
}

/// The sync path for one render node and why, from the DRM driver behind it.
public struct DecodeSyncDecision: Sendable, Equatable, CustomStringConvertible {
    public var path: DecodeSyncPath
    /// One sentence: why this path on this box.
    public var why: String

    public init(path: DecodeSyncPath, why: String) { self.path = path; self.why = why }

    public var description: String { "\(path.rawValue): \(why)" }

    /// DRM drivers whose decode engines' writes are tracked as implicit fences on the buffer
    /// object, so a sync_file exported from the dma-buf really waits for the decode: i915 (the
    /// media engines' requests add exclusive fences to every object they write) and amdgpu (the
    /// UVD/VCN job's fence is added to the BO's reservation object). Nothing else is trusted.
    public static let implicitFenceDrivers: Set<String> = ["i915", "amdgpu"]

    /// The decision table.
    /// - Parameters:
    ///   - drmDriver: the DRM driver name of the render node (DRM_IOCTL_VERSION), nil when
    ///     unknown (not a DRM node, or the ioctl failed).
    ///   - setting: the `decode-sync` setting.
    public static func decide(drmDriver: String?, setting: DecodeSyncSetting = .auto) -> DecodeSyncDecision {
        let known = drmDriver.flatMap { $0.isEmpty ? nil : $0 }
        let node = known.map { "the render node's DRM driver is \($0)" } ?? "the render node's DRM driver is unknown"
        switch setting {
        case .syncFile:
            return .init(path: .syncFile, why: "forced by decode-sync = sync-file (\(node)); a picture may reach the screen before its decode ends where the driver attaches no fence")
        case .vaSyncSurface:
            return .init(path: .vaSyncSurface, why: "forced by decode-sync = va-sync-surface (\(node))")
        case .auto:
            break
        }
        guard let driver = known else {
            return .init(path: .vaSyncSurface, why: "\(node), so the decode thread waits in vaSyncSurface")
        }
        if implicitFenceDrivers.contains(driver) {
            return .init(path: .syncFile, why: "\(driver) attaches the decoder's write fence to exported buffers, so the plane waits on a sync_file and the decode thread never blocks")
        }
        switch driver {
        case "xe":
            return .init(path: .vaSyncSurface, why: "xe is explicit-sync only: an exported buffer carries no decode fence, so the decode thread waits in vaSyncSurface")
        case "nvidia-drm", "nvidia":
            return .init(path: .vaSyncSurface, why: "\(driver) (nvidia-vaapi-driver) attaches no decode fence the kernel can export, so the decode thread waits in vaSyncSurface")
        default:
            return .init(path: .vaSyncSurface, why: "\(driver) is not known to attach implicit fences to exported buffers, so the decode thread waits in vaSyncSurface")
        }
    }
}
