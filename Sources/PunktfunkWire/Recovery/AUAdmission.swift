/// Which access units reach the decoder after a loss, sans I/O: after a frame-index gap every
/// access unit names (directly or through its predecessors) the lost picture, so none is fed
/// until the host's re-entry point — a keyframe (0x04), an RFI anchor (0x20, which predicts only
/// from pictures decoded before the loss, still held by the decoder because nothing after them
/// was fed), or an intra-refresh wave start (0x10, which heals by overwriting; the gate keeps the
/// picture frozen until the wave completes). Stragglers (behind a frame already delivered) are
/// never fed.
///
/// Feeding nothing in between keeps the decoder's reference pictures exactly those of the last
/// good picture: an anchor then decodes as it would have without the loss.
public struct AUAdmission: Sendable {
    public enum Decision: Equatable, Sendable {
        /// Decode it.
        case feed
        /// Decode it, after restarting the decoder (a keyframe that ends a withheld stretch: the
        /// decoder starts from nothing, as the keyframe does).
        case restartThenFeed
        /// Keep it off the decoder.
        case withhold
    }

    public private(set) var withholding = false
    /// Access units withheld since the start, and stretches of withholding.
    public private(set) var withheld = 0
    public private(set) var stretches = 0

    public init() {}

    public mutating func admit(order: LossAsks.FrameOrder, userFlags flags: UInt32) -> Decision {
        switch order {
        case .straggler:
            withheld += 1
            return .withhold
        case .gap:
            if !withholding { stretches += 1 }
            withholding = true
        case .inOrder:
            break
        }
        guard withholding else { return .feed }
        if flags & LossAsks.keyframeFlag != 0 {
            withholding = false
            return .restartThenFeed
        }
        if flags & (LossAsks.recoveryAnchorFlag | LossAsks.recoveryPointFlag) != 0 {
            withholding = false
            return .feed
        }
        withheld += 1
        return .withhold
    }
}
