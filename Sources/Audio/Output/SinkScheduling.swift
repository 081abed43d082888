internal import CPunktfunkLinux
#if canImport(Glibc)
import Glibc
#endif

/// Real-time scheduling for the audio sink thread: SCHED_FIFO below the present thread (a
/// missed audio period is an audible click, a missed flip a repeated frame, but the present
/// thread's hold deadlines are tighter). Refusal (no CAP_SYS_NICE, RLIMIT_RTPRIO too low) leaves
/// SCHED_OTHER and says why; `restore` undoes what `raise` did.
struct SinkScheduling {
    let raisedHere: Bool
    let description: String

    static func raise(priority: Int32) -> SinkScheduling {
        guard priority > 0 else { return .init(raisedHere: false, description: "SCHED_OTHER") }
        let rc = pf_thread_set_fifo(priority)
        if rc == 0 { return .init(raisedHere: true, description: "SCHED_FIFO \(priority)") }
        let why = -rc == EPERM ? "not permitted: RLIMIT_RTPRIO is \(pf_rtprio_limit())" : String(cString: strerror(-rc))
        return .init(raisedHere: false, description: "SCHED_OTHER (SCHED_FIFO \(priority) refused: \(why))")
    }

    func restore() { if raisedHere { _ = pf_thread_set_fifo(0) } }
}
