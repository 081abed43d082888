#if canImport(Glibc)
import Glibc
#endif

/// The system clocks, read in one place.
///
/// `nowNs()` is CLOCK_MONOTONIC in ns: the clock of ngtcp2 timestamps, DRM flip events
/// (DRM_CAP_TIMESTAMP_MONOTONIC) and the pacer. Only pumps and loops read it; the pure layers
/// (PunktfunkWire, the pacer, the handshake state machines) take `now` as an argument.
public enum MonotonicClock {
    /// CLOCK_MONOTONIC now, ns.
    public static func nowNs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// CLOCK_REALTIME now, ns since the Unix epoch (the wall clock of control-plane.md §4.1).
    public static func realtimeNs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
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
