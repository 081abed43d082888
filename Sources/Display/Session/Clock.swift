#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in ns — the clock of DRM flip timestamps and of the pacer.
public enum MonotonicClock {
    public static func nowNs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// CLOCK_REALTIME − CLOCK_MONOTONIC now, ns (maps wall-clock stamps onto this clock).
    public static func realtimeMinusMonotonicNs() -> Int64 {
        var rt = timespec(), mono = timespec()
        clock_gettime(CLOCK_REALTIME, &rt)
        clock_gettime(CLOCK_MONOTONIC, &mono)
        return (Int64(rt.tv_sec) - Int64(mono.tv_sec)) * 1_000_000_000 + (Int64(rt.tv_nsec) - Int64(mono.tv_nsec))
    }
}
