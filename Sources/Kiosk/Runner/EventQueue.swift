import CPunktfunkLinux
import Foundation
import Glibc

/// Events from other threads (the pump, pairing) to the runner's thread: a locked list plus an
/// eventfd the runner polls. `post` never blocks; `drain` returns everything in post order.
final class EventQueue: @unchecked Sendable {
    /// Readable while events wait (non-blocking eventfd; owned, closed in deinit).
    let fd: Int32 = pf_wake_fd()
    private let lock = NSLock()
    private var items: [KioskEvent] = []

    deinit { if fd >= 0 { close(fd) } }

    func post(_ event: KioskEvent) {
        lock.withLock { items.append(event) }
        var one: UInt64 = 1
        _ = write(fd, &one, 8)
    }

    func drain() -> [KioskEvent] {
        var counter: UInt64 = 0
        _ = read(fd, &counter, 8)
        return lock.withLock {
            defer { items.removeAll(keepingCapacity: true) }
            return items
        }
    }
}
