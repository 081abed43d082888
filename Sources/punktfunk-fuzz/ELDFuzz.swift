import Audio

/// An HDMI/DP sink's ELD, as the kiosk reads it from the card's `ELD` control: bytes the TV or
/// receiver chose. `AudioChannelCapability.fromELD` must never trap and answers nil (not an ELD
/// of version 2) or a channel count the wire carries — 2, 6 or 8 — with a reason.
enum ELDFuzz {
    static func run(_ bytes: [UInt8]) {
        guard let (channels, reason) = AudioChannelCapability.fromELD(bytes) else { return }
        precondition([2, 6, 8].contains(channels), "ELD gave \(channels) channels")
        precondition(!reason.isEmpty, "ELD decision without a reason")
    }
}
