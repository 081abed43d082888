internal import CPunktfunkLinux
import PunktfunkWire
import SystemClock
#if canImport(Glibc)
import Glibc
#endif

/// Measures how late the present loop's timed wait returns: `pf_poll_ns` (ppoll with a ns timeout,
/// no descriptors) for a duration drawn uniformly from 0.5–4 ms, `count` times, on the calling
/// thread; lateness = return time − deadline on CLOCK_MONOTONIC. This is the wake-up a held frame
/// depends on (`FlipPacer`'s hold deadline); `punktfunk-bench wake` feeds the results to the
/// pacer simulation's `WakeModel`s.
public enum TimedWaitLateness {
    /// Lateness of each wait, ns, in measurement order.
    public static func measure(count: Int, seed: UInt64) -> [UInt64] {
        var rng = SplitMix64(seed: seed)
        var lateness = [UInt64](repeating: 0, count: count)
        for i in 0..<count {
            let sleepNs = 500_000 + rng.next() % 3_500_000
            let deadline = MonotonicClock.nowNs() + sleepNs
            _ = pf_poll_ns(nil, 0, Int64(sleepNs))
            let woke = MonotonicClock.nowNs()
            lateness[i] = woke > deadline ? woke - deadline : 0
        }
        return lateness
    }
}
