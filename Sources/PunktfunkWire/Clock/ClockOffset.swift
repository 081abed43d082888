/// One NTP-style clock round (control-plane.md §4.1): `t1` client send, `t2` host receive,
/// `t3` host send, `t4` client receive — Unix-epoch ns; t2/t3 on the host's clock (the session
/// media clock on punktfunk/2, data-plane.md §8.6).
public struct ClockSample: Hashable, Sendable {
    public var t1: UInt64
    public var t2: UInt64
    public var t3: UInt64
    public var t4: UInt64

    public init(t1: UInt64, t2: UInt64, t3: UInt64, t4: UInt64) {
        self.t1 = t1
        self.t2 = t2
        self.t3 = t3
        self.t4 = t4
    }

    /// Round-trip time without host processing, ns: `max(0, (t4 − t1) − (t3 − t2))`, computed in
    /// 128 bits and truncated to 64 (the reference's `as u64`).
    public var rtt: UInt64 {
        let v = (Int128(t4) - Int128(t1)) - (Int128(t3) - Int128(t2))
        return UInt64(truncatingIfNeeded: Swift.max(0, v))
    }

    /// Host − client, ns: `((t2 − t1) + (t3 − t4)) / 2`, computed in 128 bits, division
    /// truncating toward zero, truncated to 64. `host_time = client_time + offset`.
    public var offset: Int64 {
        Int64(truncatingIfNeeded: ((Int128(t2) - Int128(t1)) + (Int128(t3) - Int128(t4))) / 2)
    }

    public var estimate: ClockEstimate { ClockEstimate(offset: offset, rtt: rtt) }
}

/// A clock estimate: the offset to apply and the RTT it was measured at.
public struct ClockEstimate: Hashable, Sendable {
    /// Host − client, ns.
    public var offset: Int64
    /// ns.
    public var rtt: UInt64

    public init(offset: Int64, rtt: UInt64) {
        self.offset = offset
        self.rtt = rtt
    }
}

/// Connect-time clock sync rules (control-plane.md §4.1).
public enum ClockSync {
    /// Probe rounds per batch, connect-time and re-sync alike.
    public static let rounds = 8
    /// How long one round waits for its echo before the rounds end, ns.
    public static let echoTimeoutNs: UInt64 = 2_000_000_000

    /// The minimum-RTT sample (least queueing; skips the first round's host setup latency);
    /// the first of equals. nil when no round was answered — the caller then assumes a shared
    /// clock (offset 0) and disables re-sync.
    public static func best<S: Sequence>(of samples: S) -> ClockSample? where S.Element == ClockSample {
        samples.min { $0.rtt < $1.rtt }
    }
}
