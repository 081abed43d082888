/// The Feedback datagram's ACK fields (tags 14/15, data-plane.md §8.7), sans I/O: the newest
/// frame the client decoded cleanly and, in the mask, which of the 16 frames before it it also
/// did (bit i = frame `last − 1 − i`). A host that references only confirmed frames after a loss
/// builds on these.
public struct DecodedAcks: Sendable, Equatable {
    public private(set) var last: UInt32?
    public private(set) var mask: UInt16 = 0

    public init() {}

    /// The ACK as the next datagram carries it (nil before any frame).
    public var ack: FeedbackDatagram.Ack? { last.map { .init(lastFrame: $0, mask: mask) } }

    /// `frame` was decoded cleanly (any order; a frame more than 16 behind the newest is ignored).
    public mutating func decoded(_ frame: UInt32) {
        guard let l = last else { last = frame; return }
        let ahead = frame &- l
        if ahead == 0 { return }
        if ahead < 0x8000_0000 {
            // Shift the old newest (and its mask) back by `ahead` frames.
            let shifted: UInt32 = ahead > 16 ? 0 : ((UInt32(mask) << 1 | 1) << (ahead - 1))
            mask = UInt16(truncatingIfNeeded: shifted)
            last = frame
        } else {
            let behind = l &- frame
            if behind <= 16 { mask |= 1 << (behind - 1) }
        }
    }
}
