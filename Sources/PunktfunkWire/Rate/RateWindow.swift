/// The signals of one closed Feedback report window (~750 ms, control-plane.md §5.2), as the
/// session counted them. The per-frame delay and arrival samples are not here: the loop takes
/// them frame by frame (`RateLoop.frameArrived`) and summarises them itself (`DelayTrack`).
///
/// Rates are wire rates (every media byte that arrived: video, parity, headers), because a
/// SetBitrate is a wire budget (`WireBudget`).
public struct RateWindow: Equatable, Sendable {
    /// Shards repaired by parity over the window, ppm (Feedback tag 2).
    public var lossPPM: UInt32
    /// Frames the window lost for good (no parity could rebuild them; aged out).
    public var unrecoverableFrames: UInt32
    /// Lost shards by position (tags 9/10/11): first 12 data shards / middle / last 12 + parity.
    public var head: UInt32
    public var mid: UInt32
    public var tail: UInt32
    /// Client socket / demux drops (tag 12): this box's buffers, not the link.
    public var socketDrops: UInt32
    /// Media wire bytes received in the window, and the window's length, ns. 0 bytes = not
    /// counted by the session: the loop uses the bytes its `frameArrived` calls carried.
    public var wireBytes: UInt64
    public var durationNs: UInt64
    /// The longest stretch without any media packet, ns. ≥ `RateLoop.outageGapNs` marks the
    /// window as holding an outage, whose dips say nothing about capacity.
    public var longestArrivalGapNs: UInt64
    /// Mean client decode time per frame, ns (0 = unknown).
    public var decodeNs: UInt64
    /// Mean host encode time per frame from host timing, ns (0 = unknown).
    public var encodeNs: UInt64

    public init(lossPPM: UInt32 = 0, unrecoverableFrames: UInt32 = 0, head: UInt32 = 0, mid: UInt32 = 0,
                tail: UInt32 = 0, socketDrops: UInt32 = 0, wireBytes: UInt64 = 0,
                durationNs: UInt64 = RateLoop.windowNs, longestArrivalGapNs: UInt64 = 0,
                decodeNs: UInt64 = 0, encodeNs: UInt64 = 0) {
        self.lossPPM = lossPPM
        self.unrecoverableFrames = unrecoverableFrames
        self.head = head
        self.mid = mid
        self.tail = tail
        self.socketDrops = socketDrops
        self.wireBytes = wireBytes
        self.durationNs = durationNs
        self.longestArrivalGapNs = longestArrivalGapNs
        self.decodeNs = decodeNs
        self.encodeNs = encodeNs
    }

    /// Delivered wire rate over the window, kbps (0 when the window counted no bytes).
    public var deliveredKbps: UInt32 { Self.kbps(bytes: wireBytes, overNs: durationNs) }

    /// `bytes` over `ns` as kbit/s, saturating; 0 for an empty span.
    @inline(__always)
    public static func kbps(bytes: UInt64, overNs ns: UInt64) -> UInt32 {
        guard ns > 0 else { return 0 }
        let (bits, o) = bytes.multipliedReportingOverflow(by: 8_000_000)
        if o { return UInt32.max }
        return UInt32(min(bits / ns, UInt64(UInt32.max)))
    }

    /// The waking-receiver signature: head ≥ 4 and head ≥ 3·(mid + tail) with no socket drops.
    /// A radio that sleeps between frames loses each frame's first packets while it wakes; the
    /// answer is frame shaping (Feedback tag 16), never the rate.
    public var isHeadSignature: Bool {
        socketDrops == 0 && head >= 4 && UInt64(head) >= 3 * (UInt64(mid) + UInt64(tail))
    }
}
