import CPunktfunkLinux
import Foundation
import Glibc
import Synchronization
import SystemClock

/// Events from other threads (the pump, pairing) to the runner's thread: a locked list plus an
/// eventfd the runner polls. `post` never blocks; `drain` returns everything in post order.
final class EventQueue: @unchecked Sendable {
    /// Readable while events wait (non-blocking eventfd; owned, closed in deinit).
    let fd: Int32 = pf_wake_fd()
    private let lock = NSLock()
    /// Each event with when it was posted (CLOCK_MONOTONIC ns).
    private var items: [(event: KioskEvent, postedNs: UInt64)] = []
    /// Set by `post`, cleared by `drain`: lets the present loop's per-frame check skip the lock
    /// and the eventfd read when nothing was posted.
    private let posted = Atomic<Bool>(false)

    deinit { if fd >= 0 { close(fd) } }

    func post(_ event: KioskEvent) {
        let now = MonotonicClock.nowNs()
        lock.withLock { items.append((event, now)) }
        posted.store(true, ordering: .releasing)
        var one: UInt64 = 1
        _ = write(fd, &one, 8)
    }

    /// Whether something was posted since the last drain (one relaxed load: the present loop's
    /// per-frame check).
    var hasPosted: Bool { posted.load(ordering: .relaxed) }

    /// Everything posted so far with its post time (reads the eventfd, so a poll on `fd` sleeps again).
    func drain() -> [(event: KioskEvent, postedNs: UInt64)] {
        posted.store(false, ordering: .releasing)
        var counter: UInt64 = 0
        _ = read(fd, &counter, 8)
        return lock.withLock {
            defer { items.removeAll(keepingCapacity: true) }
            return items
        }
    }
}
