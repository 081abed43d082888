import Glibc

/// CLOCK_MONOTONIC in nanoseconds, ngtcp2's timestamp unit. Only pumps call it.
public enum QuicClock {
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
