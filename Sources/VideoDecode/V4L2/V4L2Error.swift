import Foundation

/// Why the V4L2 stateless rung could not do something. Every case names the call or the fact, so
/// a log line or a `check` report says what to look at.
public enum V4L2Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// No media device offers a V4L2 stateless HEVC decoder (the common case on x86 boxes).
    case noDecoder(String)
    /// A device node could not be opened or queried.
    case device(String, errno: Int32)
    /// An ioctl failed; the string names it.
    case ioctl(String, errno: Int32)
    /// The kernel refused controls (VIDIOC_S_EXT_CTRLS); the string names the control.
    case controlsRefused(String, errno: Int32)
    /// The stream needs something this driver does not offer (bit depth, size, capture format,
    /// several slices without HOLD_CAPTURE_BUF): demote at once.
    case unsupportedStream(String)
    /// A slice did not parse; the planner waits for the next IRAP picture.
    case corruptAccessUnit(String)
    /// The driver flagged the picture as failed, or it did not finish in time.
    case decodeFailed(String)

    public var description: String {
        switch self {
        case .noDecoder(let why): "no V4L2 stateless HEVC decoder: \(why)"
        case .device(let what, let e): "\(what): \(String(cString: strerror(e)))"
        case .ioctl(let what, let e): "\(what) failed: \(String(cString: strerror(e)))"
        case .controlsRefused(let what, let e): "the driver refused \(what): \(String(cString: strerror(e)))"
        case .unsupportedStream(let why): "unsupported stream: \(why)"
        case .corruptAccessUnit(let why): "corrupt access unit: \(why)"
        case .decodeFailed(let why): "decode failed: \(why)"
        }
    }
}

/// A C call's result: 0 (or a non-negative value) on success, -errno on failure.
@inline(__always)
func v4l2Check(_ result: Int32, _ what: @autoclosure () -> String) throws(V4L2Error) {
    if result < 0 { throw .ioctl(what(), errno: -result) }
}
