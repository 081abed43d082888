/// Per-AU host-side timing, tag 0xCF (data-plane.md §7.5; punktfunk/2 kind 0x08), only with
/// `VIDEO_CAP_HOST_TIMING`:
///
/// - 13 B: `CF ‖ pts_ns u64 ‖ host_us u32`
/// - 25 B: … ‖ `queue_us u32 ‖ encode_us u32 ‖ pace_us u32`
/// - 29 B: older hosts append one more i32, ignored.
///
/// A partial stage tail (14…24 bytes) decodes as the 13-byte form.
public struct HostTiming: TaggedDatagram, Hashable {
    /// Per-stage split of `hostUs`, µs from the same capture anchor; the residual
    /// (seal/FEC + channel wait) is `hostUs − queueUs − encodeUs − paceUs`.
    public struct Stages: Hashable, Sendable {
        /// Capture delivery → encoder submit.
        public var queueUs: UInt32
        /// Encoder submit → bitstream ready.
        public var encodeUs: UInt32
        /// First byte to the socket → last packet sent.
        public var paceUs: UInt32
        public init(queueUs: UInt32, encodeUs: UInt32, paceUs: UInt32) {
            self.queueUs = queueUs
            self.encodeUs = encodeUs
            self.paceUs = paceUs
        }
    }

    public static let tag: UInt8 = 0xCF
    public static let baseLength = 13
    public static let stagesLength = 25

    /// The AU's `pts_ns` (join key); rewritten onto the session media clock on punktfunk/2.
    public var ptsNs: UInt64
    /// Host time for the frame, capture → sent, µs.
    public var hostUs: UInt32
    /// nil from hosts that predate the stage tail.
    public var stages: Stages?

    public init(ptsNs: UInt64, hostUs: UInt32, stages: Stages? = nil) {
        self.ptsNs = ptsNs
        self.hostUs = hostUs
        self.stages = stages
    }

    public func encode(into w: inout WireWriter) {
        w.writeByte(Self.tag)
        w.writeLE(ptsNs)
        w.writeLE(hostUs)
        guard let stages else { return }
        w.writeLE(stages.queueUs)
        w.writeLE(stages.encodeUs)
        w.writeLE(stages.paceUs)
    }

    public static func decode(from r: inout WireReader) throws(WireError) -> HostTiming {
        try r.readTag(tag)
        try r.need(baseLength - 1)
        var t = HostTiming(ptsNs: try r.readLE(), hostUs: try r.readLE())
        if r.remaining >= stagesLength - baseLength {
            t.stages = Stages(queueUs: try r.readLE(), encodeUs: try r.readLE(), paceUs: try r.readLE())
        }
        return t
    }
}
