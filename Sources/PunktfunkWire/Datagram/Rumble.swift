/// Rumble command, tag 0xCA (data-plane.md §7.1; punktfunk/2 kind 0x05). Three lengths, each a
/// strict prefix of the next:
///
/// | form | bytes | layout |
/// |---|---|---|
/// | v1 | 7  | `CA ‖ pad u16 ‖ low u16 ‖ high u16` |
/// | v2 | 10 | v1 ‖ `seq u8 ‖ ttl_ms u16` |
/// | v3 | 14 | v2 ‖ `lt u16 ‖ rt u16` |
///
/// Decoding length-detects the tail: 7…9 bytes are v1 (a torn tail degrades to the levels),
/// 10…13 v2, ≥ 14 v3; extra bytes are ignored. Levels are 0…0xFFFF; `low == high == 0` stops.
/// Trigger levels absent from the wire are 0 ("silent"), never "unchanged".
public struct Rumble: TaggedDatagram, Hashable {
    /// The v2 envelope: a reorder gate and a lease.
    public struct Envelope: Hashable, Sendable {
        /// Per-pad wrapping counter; drop unless `GamepadSnapshot.isNewer(seq, than: last)`.
        public var seq: UInt8
        /// How long the level is authorized, ms; the host renews ongoing effects.
        public var ttlMs: UInt16
        public init(seq: UInt8, ttlMs: UInt16) { self.seq = seq; self.ttlMs = ttlMs }
    }

    /// Wire length of each form.
    public enum Version: Int, Sendable, CaseIterable {
        case v1 = 7
        case v2 = 10
        case v3 = 14
    }

    public static let tag: UInt8 = 0xCA

    public var pad: UInt16
    /// Low-frequency (heavy, left) motor.
    public var low: UInt16
    /// High-frequency (light, right) motor.
    public var high: UInt16
    /// nil on a v1 datagram: the client applies its own staleness policy.
    public var envelope: Envelope?
    /// Xbox impulse-trigger motors (v3); 0 when absent.
    public var leftTrigger: UInt16
    public var rightTrigger: UInt16

    public init(pad: UInt16, low: UInt16, high: UInt16, envelope: Envelope? = nil,
                leftTrigger: UInt16 = 0, rightTrigger: UInt16 = 0) {
        self.pad = pad
        self.low = low
        self.high = high
        self.envelope = envelope
        self.leftTrigger = leftTrigger
        self.rightTrigger = rightTrigger
    }

    /// The shortest form that carries every field: v1 without an envelope, v3 when a trigger
    /// level is non-zero, else v2. (Trigger levels cannot ride without an envelope; a v1
    /// encoding drops them.)
    public var version: Version {
        guard envelope != nil else { return .v1 }
        return leftTrigger != 0 || rightTrigger != 0 ? .v3 : .v2
    }

    public func encode(into w: inout WireWriter) { encode(as: version, into: &w) }

    /// Writes a specific form; a missing envelope is written as seq 0, ttl 0.
    public func encode(as form: Version, into w: inout WireWriter) {
        w.writeByte(Self.tag)
        w.writeLE(pad)
        w.writeLE(low)
        w.writeLE(high)
        guard form != .v1 else { return }
        w.writeByte(envelope?.seq ?? 0)
        w.writeLE(envelope?.ttlMs ?? 0)
        guard form == .v3 else { return }
        w.writeLE(leftTrigger)
        w.writeLE(rightTrigger)
    }

    public static func decode(from r: inout WireReader) throws(WireError) -> Rumble {
        try r.readTag(tag)
        try r.need(Version.v1.rawValue - 1)
        var rumble = Rumble(pad: try r.readLE(), low: try r.readLE(), high: try r.readLE())
        if r.remaining >= Version.v2.rawValue - Version.v1.rawValue {
            rumble.envelope = Envelope(seq: try r.readByte(), ttlMs: try r.readLE())
        }
        if rumble.envelope != nil, r.remaining >= Version.v3.rawValue - Version.v2.rawValue {
            rumble.leftTrigger = try r.readLE()
            rumble.rightTrigger = try r.readLE()
        }
        return rumble
    }
}
