/// Why a KMS operation failed. Every failure the kernel or the hardware reports is one of these,
/// never a trap. `errno` values are positive (`EINVAL` = 22, `EACCES` = 13, `EBUSY` = 16).
public enum KMSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No `/dev/dri/card*` node has a connected connector with modes.
    case noDevice(String)
    /// `open` of the device node failed.
    case openFailed(path: String, errno: Int32)
    /// A required client capability was refused (`DRM_CLIENT_CAP_*`).
    case capabilityRefused(String, errno: Int32)
    /// `drmSetMaster` failed (another master holds the device, or we lack the seat).
    case notMaster(errno: Int32)
    /// No connected connector / no CRTC reachable from it.
    case noConnector
    case noCRTC(connector: UInt32)
    /// The requested mode is not in the connector's list (requested, offered).
    case modeUnavailable(requested: String, offered: [String])
    /// No plane can show the frame format on the CRTC.
    case noPlane(format: String)
    /// A named property the plan needs is missing on an object.
    case missingProperty(object: UInt32, name: String)
    /// An ioctl returned an error (operation, errno).
    case ioctl(String, errno: Int32)
    /// An atomic commit failed; `testOnly` says whether it was the TEST_ONLY probe.
    case commitFailed(errno: Int32, testOnly: Bool)
    /// A frame whose geometry or plane layout contradicts its own description.
    case badFrame(String)

    public var description: String {
        switch self {
        case .noDevice(let why): "no DRM device: \(why)"
        case .openFailed(let p, let e): "cannot open \(p): \(errnoText(e))"
        case .capabilityRefused(let c, let e): "DRM client capability \(c) refused: \(errnoText(e))"
        case .notMaster(let e): "cannot become DRM master: \(errnoText(e)) (another compositor or session owns the display?)"
        case .noConnector: "no connected connector with modes"
        case .noCRTC(let c): "no CRTC can drive connector \(c)"
        case .modeUnavailable(let r, let o): "mode \(r) not offered; connector offers \(o.joined(separator: ", "))"
        case .noPlane(let f): "no plane shows \(f) on this CRTC"
        case .missingProperty(let o, let n): "object \(o) has no property \(n)"
        case .ioctl(let op, let e): "\(op) failed: \(errnoText(e))"
        case .commitFailed(let e, let t): "\(t ? "TEST_ONLY " : "")atomic commit failed: \(errnoText(e))"
        case .badFrame(let why): "bad frame: \(why)"
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif

func errnoText(_ e: Int32) -> String {
    guard let s = strerror(e) else { return "errno \(e)" }
    return "\(String(cString: s)) (errno \(e))"
}
