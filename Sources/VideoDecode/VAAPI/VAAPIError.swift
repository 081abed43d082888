internal import CVA

/// Why the VA-API rung failed or refused. Every failure is one of these, never a trap.
public enum VAAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No /dev/dri/renderD* node exists (or `PUNKTFUNK_VAAPI_DEVICE` names none).
    case noRenderNode
    /// open(2) of the render node failed with this errno.
    case deviceOpenFailed(path: String, errno: Int32)
    /// libva-drm refused the fd (not a DRM node).
    case displayUnavailable(path: String)
    /// A libva call returned a status other than VA_STATUS_SUCCESS.
    case call(String, status: Int32)
    /// The driver offers no VLD entrypoint for the profile the stream needs (H.265 A.3 name).
    case profileUnsupported(String)
    /// The stream is outside what the rung decodes (4:2:0 8/10-bit only), with the reason.
    case unsupportedStream(String)
    /// vaExportSurfaceHandle returned a descriptor that fails validation.
    case invalidExport(String)
    /// An access unit's slices could not be parsed; the picture was dropped.
    case corruptAccessUnit(String)

    public var description: String {
        switch self {
        case .noRenderNode: "no DRM render node (/dev/dri/renderD*)"
        case .deviceOpenFailed(let p, let e): "cannot open \(p): errno \(e)"
        case .displayUnavailable(let p): "libva-drm refused \(p)"
        case .call(let name, let status):
            "\(name) failed: \(String(cString: vaErrorStr(status))) (\(status))"
        case .profileUnsupported(let p): "VA-API driver has no VLD entrypoint for HEVC \(p)"
        case .unsupportedStream(let r): "stream not decodable on VA-API: \(r)"
        case .invalidExport(let r): "invalid DRM PRIME export: \(r)"
        case .corruptAccessUnit(let r): "corrupt access unit: \(r)"
        }
    }
}

/// Throws `VAAPIError.call` unless `status` is VA_STATUS_SUCCESS.
@inline(__always)
func vaCheck(_ status: VAStatus, _ name: @autoclosure () -> String) throws(VAAPIError) {
    guard status == VA_STATUS_SUCCESS else { throw .call(name(), status: status) }
}
