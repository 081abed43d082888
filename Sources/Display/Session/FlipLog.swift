#if canImport(Glibc)
import Glibc
#endif

/// `--flip-log FILE`: one JSON line per completed flip, then a summary line. Owned `FILE*`,
/// closed by `close()` or deinit.
public final class FlipLog {
    private var file: UnsafeMutablePointer<FILE>?

    /// - Throws: `KMSError.ioctl("fopen …")` when the file cannot be created.
    public init(path: String) throws(KMSError) {
        guard let f = fopen(path, "w") else { throw .ioctl("fopen \(path)", errno: errno) }
        file = f
    }

    deinit { close() }

    /// `{"seq":S,"flip_ns":T,"frame":n,"ready_ns":R,"commit_ns":C,"pts_ns":P,"commit_call_ns":K,"event_ns":E,
    /// "asleep_ns":A,"commit_asleep_ns":…,"commit_due_ns":…,"commit_woke_ns":…}` — C is when the
    /// atomic commit returned and K when the presenter called it (C − K: the kernel held the
    /// call, as it does while an earlier commit's work is unfinished); P is the picture's pts (a
    /// session's: the host capture time on the host's realtime clock); E is when the presenter's
    /// poll returned with the flip's event and A when that poll began (A ≤ T: the presenter was
    /// waiting when the vblank came, so E − T is the kernel's and the scheduler's delay, not its
    /// own work); the commit fields are the blocking poll the commit followed (began, asked to
    /// end by, returned), absent when none did. All CLOCK_MONOTONIC ns.
    public func flip(_ r: FlipRecord) {
        var line = "{\"seq\":\(r.sequence),\"flip_ns\":\(r.flipNs),\"frame\":\(r.frame),\"ready_ns\":\(r.readyNs),"
            + "\"commit_ns\":\(r.commitNs),\"pts_ns\":\(r.ptsNs),\"commit_call_ns\":\(r.commitCallNs),\"event_ns\":\(r.event.wokeNs),\"asleep_ns\":\(r.event.asleepNs)"
        if let w = r.commitWake {
            line += ",\"commit_asleep_ns\":\(w.asleepNs),\"commit_due_ns\":\(w.dueNs),\"commit_woke_ns\":\(w.wokeNs)"
        }
        write(line + "}\n")
    }

    /// `{"pointer":{"x":X,"y":Y,"seq":S,"flip_ns":T}}` — a flip that put the box-drawn pointer's
    /// top-left at (X, Y) on the CRTC (a line of its own: the frame lines' readers skip it).
    public func pointer(x: Int, y: Int, sequence: UInt32, flipNs: UInt64) {
        write("{\"pointer\":{\"x\":\(x),\"y\":\(y),\"seq\":\(sequence),\"flip_ns\":\(flipNs)}}\n")
    }

    /// `{"summary":true,"committed":…,"dropped":…,"repeats":…,"latch_misses":…,"flips":…,
    /// "wake_stalls":…,"hold_guard_ns":…}` (the pacer's counters and its learned hold guard)
    public func summary(_ s: PacerStats, holdGuardNs: UInt64) {
        write("{\"summary\":true,\"committed\":\(s.committed),\"dropped\":\(s.dropped),\"repeats\":\(s.repeats),\"latch_misses\":\(s.latchMisses),\"flips\":\(s.flips),"
              + "\"wake_stalls\":\(s.wakeStalls),\"hold_guard_ns\":\(holdGuardNs)}\n")
    }

    public func close() {
        if let f = file { fclose(f) }
        file = nil
    }

    private func write(_ line: String) {
        guard let f = file else { return }
        fputs(line, f)
        fflush(f)
    }
}

/// One presenter sleep in poll: when it began, the time its timeout asked to be woken by, and
/// when it returned (CLOCK_MONOTONIC ns).
public struct PollWake: Sendable {
    public var asleepNs: UInt64
    public var dueNs: UInt64
    public var wokeNs: UInt64
}

/// A flip-log line: one completed flip and the times of the frame it showed.
public struct FlipRecord: Sendable {
    public var sequence: UInt32
    public var flipNs: UInt64
    public var frame: UInt64
    public var readyNs: UInt64
    public var commitCallNs: UInt64
    public var commitNs: UInt64
    public var ptsNs: Int64
    /// The poll that returned with this flip's event.
    public var event: PollWake
    /// The blocking poll the frame's commit followed, if any.
    public var commitWake: PollWake?
}
