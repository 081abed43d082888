#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Ownership of one exported surface: its fds and the decoder's promise not to reuse it. The
/// first `release()` closes the fds and hands the surface back (on any thread); later calls and
/// releases after the decoder is gone do nothing. Dropping the last reference releases too.
public final class SurfaceLease: Sendable {
    private struct State {
        var fds: [Int32]
        var onRelease: (@Sendable () -> Void)?
    }
    private let state: Mutex<State>

    /// - Parameters: fds: closed at release; onRelease: runs once, at the first release.
    public init(fds: [Int32], onRelease: @escaping @Sendable () -> Void) {
        state = Mutex(State(fds: fds, onRelease: onRelease))
    }

    /// True until `release()`.
    public var isHeld: Bool { state.withLock { $0.onRelease != nil } }

    public func release() {
        let taken = state.withLock { s -> (fds: [Int32], action: (@Sendable () -> Void)?) in
            defer { s.fds = []; s.onRelease = nil }
            return (s.fds, s.onRelease)
        }
        for fd in taken.fds where fd >= 0 { close(fd) }
        taken.action?()
    }

    deinit { release() }
}
