/// How the wire's channel order reaches the device's (data-plane.md §5: FL FR FC LFE RL RR SL SR,
/// the first `channels` of them). ALSA names speaker positions with `SND_CHMAP_*` values; a device
/// that lets us set its channel map takes the wire order as is, otherwise samples are reordered
/// into ALSA's default order for that count (FL FR RL RR FC LFE SL SR — what HDMI codecs and
/// the `surround51`/`surround71` PCMs assume). Pure.
public enum ChannelRouting: Equatable, Sendable {
    /// Set this channel map on the device; samples go out in wire order.
    case setMap([UInt32])
    /// The device already uses the wire order (its fixed map equals it, or stereo): no map, no reorder.
    case asIs
    /// No map can be set: output channel `i` takes wire channel `permutation[i]`.
    case reorder([Int])

    /// `SND_CHMAP_*` values (alsa/pcm.h `enum snd_pcm_chmap_position`).
    public enum Position: UInt32, Sendable {
        case frontLeft = 3, frontRight = 4, rearLeft = 5, rearRight = 6, frontCenter = 7, lowFrequency = 8,
             sideLeft = 9, sideRight = 10
    }

    /// The wire's positions for `channels` (2, 6 or 8).
    public static func wireOrder(channels: Int) -> [Position] {
        Array([Position.frontLeft, .frontRight, .frontCenter, .lowFrequency, .rearLeft, .rearRight, .sideLeft, .sideRight]
            .prefix(channels))
    }

    /// ALSA's default positions for `channels` when no map is set.
    public static func alsaDefaultOrder(channels: Int) -> [Position] {
        Array([Position.frontLeft, .frontRight, .rearLeft, .rearRight, .frontCenter, .lowFrequency, .sideLeft, .sideRight]
            .prefix(channels))
    }

    /// What the device offers for `channels` channels, as `pf_alsa_chmap_offered` reports it.
    public enum Offer: Sendable {
        /// A settable (variable or paired) map.
        case settable
        /// A fixed map equal to the wire order.
        case fixedWireOrder
        /// No map reported, or only fixed maps in another order: ALSA's default order applies.
        case none
    }

    /// The routing for `channels` wire channels on a device offering `offer`.
    public static func plan(channels: Int, offer: Offer) -> ChannelRouting {
        let wire = wireOrder(channels: channels)
        let fallback = alsaDefaultOrder(channels: channels)
        switch offer {
        case .fixedWireOrder: return .asIs
        case .settable: return wire == fallback ? .asIs : .setMap(wire.map(\.rawValue))
        case .none:
            if wire == fallback { return .asIs }
            return .reorder(fallback.map { position in wire.firstIndex(of: position)! })
        }
    }

    /// Interleaved samples of `frames` frames reordered for output: `out[f][i] = wire[f][p[i]]`.
    /// `.asIs`/`.setMap` copy. No allocation.
    public func route(_ wire: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>, frames: Int, channels: Int) {
        precondition(wire.count >= frames * channels && out.count >= frames * channels)
        guard case .reorder(let p) = self else {
            out.baseAddress!.update(from: wire.baseAddress!, count: frames * channels)
            return
        }
        for f in 0..<frames {
            let base = f * channels
            for i in 0..<channels { out[base + i] = wire[base + p[i]] }
        }
    }
}
