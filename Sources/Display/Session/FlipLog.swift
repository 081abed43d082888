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

    /// `{"seq":S,"flip_ns":T,"frame":n,"ready_ns":R,"commit_ns":C,"pts_ns":P}` — P is the
    /// picture's pts (a session's: the host capture time on the host's realtime clock).
    public func flip(sequence: UInt32, flipNs: UInt64, frame: UInt64, readyNs: UInt64, commitNs: UInt64, ptsNs: Int64) {
        write("{\"seq\":\(sequence),\"flip_ns\":\(flipNs),\"frame\":\(frame),\"ready_ns\":\(readyNs),\"commit_ns\":\(commitNs),\"pts_ns\":\(ptsNs)}\n")
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
