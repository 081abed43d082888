internal import CPunktfunkLinux
#if canImport(Glibc)
import Glibc
#endif

/// Real-time scheduling for the presenting thread. The pacer holds a frame until a deadline
/// shortly before the latch point; a wake-up later than its learned guard costs a refresh. A
/// SCHED_OTHER thread on a busy box wakes up to milliseconds late (measured by `punktfunk-bench
/// wake`, docs/PERFORMANCE.md); SCHED_FIFO keeps p99.9 near 0.2 ms.
///
/// `raise` applies to the calling thread only (threads it creates afterwards start as
/// SCHED_OTHER: SCHED_RESET_ON_FORK), so decode and network threads keep normal priority.
/// Without CAP_SYS_NICE the priority must be within RLIMIT_RTPRIO (`LimitRTPRIO=` in a systemd
/// unit, `rtprio` in limits.conf); when refused the thread stays SCHED_OTHER, still with the 1 ns
/// slack, and `description` says why. `restore` puts back what was found.
public struct PresentThreadScheduling: Sendable {
    /// The default SCHED_FIFO priority of the present thread: low among real-time threads
    /// (PipeWire's data threads use 88 and above; audio output should preempt presentation).
    public static let defaultPriority: Int32 = 10

    /// The highest SCHED_FIFO priority this process may take without CAP_SYS_NICE (RLIMIT_RTPRIO).
    public static var priorityLimit: UInt { UInt(pf_rtprio_limit()) }

    /// Whether `raise` switched the thread to SCHED_FIFO (and `restore` switches it back).
    private let raisedHere: Bool
    private let savedSlackNs: UInt
    /// True when the thread now runs SCHED_FIFO.
    public let isRealtime: Bool
    /// For the start-up line: `SCHED_FIFO 10, timer slack 0 ns` or
    /// `SCHED_OTHER, timer slack 1 ns (SCHED_FIFO 10 refused: …)`.
    public let description: String

    /// Raises the calling thread to SCHED_FIFO `priority` (0 = leave the policy alone) and sets a
    /// 1 ns timer slack (which the kernel may lower to 0 for a real-time thread).
    public static func raise(priority: Int32) -> PresentThreadScheduling {
        var policy: Int32 = 0, foundPriority: Int32 = 0
        var slack: UInt = 0
        if pf_thread_scheduling(&policy, &foundPriority, &slack) != 0 { policy = SCHED_OTHER; slack = 0 }
        _ = pf_thread_set_timer_slack(1)
        var refusal = ""
        var raised = false
        if priority > 0, policy != SCHED_FIFO, policy != SCHED_RR {
            let result = pf_thread_set_fifo(priority)
            if result == 0 {
                raised = true
            } else {
                let why = -result == EPERM
                    ? "not permitted: RLIMIT_RTPRIO is \(priorityLimit); allow it with LimitRTPRIO=\(priority) or CAP_SYS_NICE"
                    : String(cString: strerror(-result))
                refusal = " (SCHED_FIFO \(priority) refused: \(why))"
            }
        }
        // Described as the kernel reports it now (recent kernels run real-time threads with no
        // timer slack at all).
        var nowPolicy: Int32 = 0, nowPriority: Int32 = 0
        var nowSlack: UInt = 0
        _ = pf_thread_scheduling(&nowPolicy, &nowPriority, &nowSlack)
        let realtime = nowPolicy == SCHED_FIFO || nowPolicy == SCHED_RR
        let name = nowPolicy == SCHED_FIFO ? "SCHED_FIFO \(nowPriority)" : nowPolicy == SCHED_RR ? "SCHED_RR \(nowPriority)" : "SCHED_OTHER"
        return .init(raisedHere: raised, savedSlackNs: slack, isRealtime: realtime,
                     description: "\(name)\(realtime && !raised ? " (inherited)" : ""), timer slack \(nowSlack) ns\(refusal)")
    }

    private init(raisedHere: Bool, savedSlackNs: UInt, isRealtime: Bool, description: String) {
        self.raisedHere = raisedHere
        self.savedSlackNs = savedSlackNs
        self.isRealtime = isRealtime
        self.description = description
    }

    /// Puts back the policy and timer slack `raise` found (call on the same thread).
    public func restore() {
        if raisedHere { _ = pf_thread_set_fifo(0) }
        _ = pf_thread_set_timer_slack(savedSlackNs)
    }
}
