#if canImport(Glibc)
import Glibc
#endif

/// Why a screen could not be opened or used, in words for the start-up line and the console.
public enum ScreenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing to show on: no display device, no compositor reachable. The kiosk may run headless.
    case unavailable(String)
    /// There is a display but it refuses us (another owner, a failed mode set, a protocol error).
    case unusable(String)
    /// The display went away under us (the compositor closed the connection): streams end.
    case lost(String)
    /// A system call failed (operation, errno).
    case system(String, errno: Int32)
    /// A frame whose geometry or plane layout contradicts its own description.
    case badFrame(String)

    public var description: String {
        switch self {
        case .unavailable(let why), .unusable(let why), .lost(let why): why
        case .system(let op, let e): "\(op) failed: \(String(cString: strerror(e)))"
        case .badFrame(let why): "bad frame: \(why)"
        }
    }
}
