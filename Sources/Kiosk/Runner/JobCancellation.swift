import Foundation
import PunktfunkSession

/// Which shell jobs were cancelled, and the sessions to end when they are: shared between the
/// runner's thread (cancels) and the job threads (check, register). Locked; any thread.
final class JobCancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled: Set<Int> = []
    private var outboxes: [Int: ClientOutbox] = [:]

    func cancel(_ job: Int) {
        let outbox = lock.withLock { () -> ClientOutbox? in
            cancelled.insert(job)
            return outboxes.removeValue(forKey: job)
        }
        outbox?.requestQuit()
    }

    func isCancelled(_ job: Int) -> Bool { lock.withLock { cancelled.contains(job) } }

    /// `outbox` ends with the job; ended now when it was already cancelled.
    func register(_ outbox: ClientOutbox, for job: Int) {
        let already = lock.withLock { () -> Bool in
            if cancelled.contains(job) { return true }
            outboxes[job] = outbox
            return false
        }
        if already { outbox.requestQuit() }
    }

    /// The job is over: forget its session.
    func finished(_ job: Int) { lock.withLock { _ = outboxes.removeValue(forKey: job) } }

    /// Sleeps `seconds` in 100 ms steps. - Returns: false when `job` was cancelled meanwhile.
    func sleep(_ seconds: Double, job: Int) -> Bool {
        var left = seconds
        while left > 0 {
            if isCancelled(job) { return false }
            Thread.sleep(forTimeInterval: min(0.1, left))
            left -= 0.1
        }
        return !isCancelled(job)
    }
}
