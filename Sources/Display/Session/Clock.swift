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
}
