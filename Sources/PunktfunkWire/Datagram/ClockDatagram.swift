/// Clock sample datagram, punktfunk/2 kind 0x04 (data-plane.md §8.5): tagged fields, a probe
/// `{1: t1 u64}` from the client, an echo `{1: t1, 2: t2, 3: t3}` from the host. All stamps are
/// ns; t2/t3 are already on the session media clock (§8.6). Unknown tags are skipped; any other
/// combination of 1/2/3 is malformed.
public enum ClockDatagram: Hashable, Sendable {
    /// Client send time.
    case probe(t1: UInt64)
    /// The probe's t1, host receive time t2, host send time t3.
    case echo(t1: UInt64, t2: UInt64, t3: UInt64)

    /// The tagged-field body (without the kind byte).
    public var body: [UInt8] {
        var f = FieldWriter()
        switch self {
        case .probe(let t1):
            f.uint(1, t1)
        case let .echo(t1, t2, t3):
            f.uint(1, t1)
            f.uint(2, t2)
            f.uint(3, t3)
        }
        return f.bytes
    }

    public init(fields: TaggedFields) throws(WireError) {
        let t1: UInt64 = try fields.requiredUInt(1)
        let t2: UInt64? = try fields.uint(2)
        let t3: UInt64? = try fields.uint(3)
        switch (t2, t3) {
        case (nil, nil): self = .probe(t1: t1)
        case let (t2?, t3?): self = .echo(t1: t1, t2: t2, t3: t3)
        default: throw .malformed("clock echo needs both t2 and t3")
        }
    }

    public init(body: [UInt8]) throws(WireError) {
        try self.init(fields: try TaggedFields(body))
    }

    /// The complete sample once the echo arrived at client time `t4`; nil for a probe.
    public func sample(receivedAt t4: UInt64) -> ClockSample? {
        guard case let .echo(t1, t2, t3) = self else { return nil }
        return ClockSample(t1: t1, t2: t2, t3: t3, t4: t4)
    }
}
