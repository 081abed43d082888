import Foundation
import Testing
@testable import Display
#if canImport(Glibc)
import Glibc
#endif

/// `PresentThreadScheduling` against the kernel: each test runs on a thread of its own, raises it,
/// reads the policy back with sched_getscheduler and the slack from /proc, and restores it.
@Suite struct PresentThreadSchedulingTests {
    /// Runs `body` on a new thread and waits for it.
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let box = ResultBox<T>()
        Thread { box.value = body(); box.done.signal() }.start()
        box.done.wait()
        return box.value!
    }

    /// The calling thread's timer slack as /proc shows it (`/proc/<tid>/timerslack_ns`; the tid is
    /// the last component of the /proc/thread-self link).
    static func timerSlackNs() -> Int? {
        guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
              let tid = link.split(separator: "/").last else { return nil }
        return (try? String(contentsOfFile: "/proc/\(tid)/timerslack_ns", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    static var fifoPermitted: Bool { geteuid() == 0 || PresentThreadScheduling.priorityLimit >= 10 }

    @Test func raisesToFifoWithOneNanosecondSlackAndRestores() {
        let r = Self.onOwnThread { () -> (Bool, String, Int32, Int?, Int32, Int32, Int?) in
            let s = PresentThreadScheduling.raise(priority: 10)
            let during = sched_getscheduler(0) & ~0x4000_0000  // without SCHED_RESET_ON_FORK
            var param = sched_param()
            sched_getparam(0, &param)
            let slack = Self.timerSlackNs()
            s.restore()
            return (s.isRealtime, s.description, during, slack, param.sched_priority, sched_getscheduler(0), Self.timerSlackNs())
        }
        let (realtime, description, during, slack, priority, after, slackAfter) = r
        // 1 ns as set, or 0: recent kernels give real-time threads no slack at all.
        #expect(slack.map { $0 <= 1 } == true, "\(description)")
        #expect(after == SCHED_OTHER)
        #expect(slackAfter != 1)
        if Self.fifoPermitted {
            #expect(realtime && during == SCHED_FIFO && priority == 10, "\(description)")
            #expect(description == "SCHED_FIFO 10, timer slack \(slack ?? -1) ns")
        } else {
            #expect(!realtime && during == SCHED_OTHER)
            #expect(description.hasPrefix("SCHED_OTHER, timer slack 1 ns (SCHED_FIFO 10 refused: not permitted"), "\(description)")
        }
    }

    @Test func threadsStartedByTheRaisedThreadRunNormal() throws {
        try #require(Self.fifoPermitted, "SCHED_FIFO needs root or RLIMIT_RTPRIO >= 10 here")
        let childPolicy = Self.onOwnThread { () -> Int32 in
            let s = PresentThreadScheduling.raise(priority: 10)
            defer { s.restore() }
            return Self.onOwnThread { sched_getscheduler(0) }  // a decoder's worker thread, say
        }
        #expect(childPolicy == SCHED_OTHER)
    }

    @Test func priorityZeroKeepsTheNormalPolicy() {
        let (realtime, description, policy) = Self.onOwnThread { () -> (Bool, String, Int32) in
            let s = PresentThreadScheduling.raise(priority: 0)
            defer { s.restore() }
            return (s.isRealtime, s.description, sched_getscheduler(0))
        }
        #expect(!realtime && policy == SCHED_OTHER)
        #expect(description == "SCHED_OTHER, timer slack 1 ns")
    }
}

/// A value handed from a thread to its waiter; written before `done` is signalled.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
    let done = DispatchSemaphore(value: 0)
}
