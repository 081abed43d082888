/// What one `AudioDecoder` has done since it was built. Every `decode` call lands in exactly
/// one of `decodedPackets`, `dtxPackets` or `malformedPackets`; a RED copy decoded by
/// `decodeRedundantCopy` counts in `decodedPackets` and `redundantPackets` too.
public struct DecodeCounters: Hashable, Sendable {
    /// Packets that produced samples (primary packets and RED copies).
    public var decodedPackets: UInt64 = 0
    /// Frames (samples per channel) those packets produced.
    public var decodedFrames: UInt64 = 0
    /// Of `decodedPackets`, previous-frame copies from 0xD2 decoded in place of a lost packet.
    public var redundantPackets: UInt64 = 0
    /// Frames synthesised by `conceal(frames:)` (Opus PLC, or silence on PCM).
    public var concealedFrames: UInt64 = 0
    /// Empty payloads: DTX, nothing to play, decoder state untouched.
    public var dtxPackets: UInt64 = 0
    /// Packets skipped because they were malformed (an `AudioError` input case was thrown).
    public var malformedPackets: UInt64 = 0

    public init() {}
}
