#if canImport(Glibc)
import Glibc
#endif
import Screen

/// Why the Wayland screen could not be opened or used. Every failure of the compositor — gone,
/// a protocol error, a refused buffer — ends up here as a value; nothing traps.
public enum WaylandError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No compositor reachable (`WAYLAND_DISPLAY` unset or its socket refuses).
    case unavailable(String)
    /// The compositor lacks something the backend cannot do without (wl_compositor ≥ 4,
    /// xdg_wm_base, wl_shm, a usable shm format), or refused the toplevel.
    case unusable(String)
    /// The connection broke: the compositor went away or raised a protocol error.
    case lost(String)
    /// A system call failed (operation, errno).
    case system(String, errno: Int32)
    /// A picture whose geometry contradicts its planes.
    case badFrame(String)

    public var description: String {
        switch self {
        case .unavailable(let why), .unusable(let why), .lost(let why): why
        case .system(let op, let e): "\(op) failed: \(String(cString: strerror(e)))"
        case .badFrame(let why): "bad frame: \(why)"
        }
    }
}

extension WaylandError {
    /// The seam's error (the same cases).
    var screenError: ScreenError {
        switch self {
        case .unavailable(let why): .unavailable(why)
        case .unusable(let why): .unusable(why)
        case .lost(let why): .lost(why)
        case .system(let op, let e): .system(op, errno: e)
        case .badFrame(let why): .badFrame(why)
        }
    }
}
