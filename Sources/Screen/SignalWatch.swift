internal import CPunktfunkLinux
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT, SIGTERM (quit) and SIGUSR1, SIGUSR2 (VT release / acquire) delivered through a
/// `signalfd`, so the presenter's poll loop sees them as readable fd events and every exit path
/// runs the restore code on the presenting thread (no async-signal handler does any work).
/// SIGUSR1/SIGUSR2 are VT events only when the kernel's VT code sent them (`SI_KERNEL`); one
/// sent with kill(2) is dropped — acting on it would give up the display with no switch pending.
///
/// - Precondition: create it before any other thread starts (decoder threads inherit the
///   blocked mask, so the signals stay pending for the signalfd instead of killing a thread).
public final class SignalWatch {
    public enum Event: Sendable, Equatable { case interrupt, terminate, vtRelease, vtAcquire }

    /// Non-blocking signalfd (owned; closed in deinit).
    public let fd: Int32

    public init() throws(ScreenError) {
        var set = sigset_t()
        sigemptyset(&set)
        for s in [SIGINT, SIGTERM, SIGUSR1, SIGUSR2] { sigaddset(&set, s) }
        guard pthread_sigmask(SIG_BLOCK, &set, nil) == 0 else { throw .system("pthread_sigmask", errno: errno) }
        let f = signalfd(-1, &set, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard f >= 0 else { throw .system("signalfd", errno: errno) }
        fd = f
    }

    deinit { close(fd) }

    /// Reads every pending signal (non-blocking) in arrival order.
    public func drain() -> [Event] {
        var out: [Event] = []
        var info = signalfd_siginfo()
        while read(fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            switch Int32(info.ssi_signo) {
            case SIGINT: out.append(.interrupt)
            case SIGTERM: out.append(.terminate)
            case SIGUSR1 where info.ssi_code == SI_KERNEL: out.append(.vtRelease)
            case SIGUSR2 where info.ssi_code == SI_KERNEL: out.append(.vtAcquire)
            default: break
            }
        }
        return out
    }
}
