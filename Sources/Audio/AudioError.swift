/// Why an audio operation failed. `description` is one sentence.
///
/// Set-up errors (`unknownLayout`, `invalidLayout`, `unsupportedCodec`, `unsupportedPCM`, `opus`
/// from a create call) come from building a decoder. Input errors (`invalidOpusPacket`,
/// `oversize`, `pcmLength`, `unexpectedPacket`) mean one packet was skipped and counted in
/// `DecodeCounters.malformedPackets`; the decoder stays usable. `concealDuration` is a caller
/// error and changes nothing.
public enum AudioError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A libopus call returned an error code (OPUS_BAD_ARG = -1, OPUS_INTERNAL_ERROR = -3, …).
    case opus(call: String, code: Int32)
    /// The session's `audio_layout` wire id is one this build does not know. Decoding Opus
    /// with a guessed coupling would put sound on the wrong speakers (data-plane.md §5.1).
    case unknownLayout(UInt8)
    /// A multistream layout libopus cannot build.
    case invalidLayout(channels: Int, streams: Int, coupledStreams: Int, mapping: [UInt8])
    /// The session's `audio_codec` id is neither Opus (0) nor PCM (2).
    case unsupportedCodec(UInt8)
    /// PCM with a depth other than 16/24 bits, a rate outside 8–384 kHz, or no channels.
    case unsupportedPCM(channels: Int, rateHz: Int, bits: Int)
    /// libopus rejected the packet's framing: a bad TOC, frame count or frame lengths
    /// (OPUS_INVALID_PACKET), or a multistream packet that does not split into the session's
    /// streams.
    case invalidOpusPacket(bytes: Int)
    /// The packet holds more frames (samples per channel) than `limit`: 120 ms at the
    /// decoder's rate, or what the output buffer holds when that is less.
    case oversize(frames: Int, limit: Int)
    /// A PCM payload that is not a whole number of frames (`frameBytes` = channels × bytes per
    /// sample): odd bytes, or a channel count other than the session's.
    case pcmLength(bytes: Int, frameBytes: Int)
    /// An audio datagram this decoder does not take (pad audio, mic, or the other codec's tag).
    case unexpectedPacket(tag: UInt8)
    /// `conceal(frames:)` with a negative count, or (Opus) one that is not a multiple of
    /// 2.5 ms — 120 frames at 48 kHz, the PLC granule libopus accepts.
    case concealDuration(frames: Int)

    public var description: String {
        switch self {
        case .opus(let call, let code): return "\(call) failed with Opus error \(code)."
        case .unknownLayout(let id): return "Audio layout id \(id) is unknown to this build."
        case .invalidLayout(let c, let s, let k, let m):
            return "No Opus multistream layout has \(c) channels, \(s) streams, \(k) coupled and mapping \(m)."
        case .unsupportedCodec(let id): return "Audio codec id \(id) is not Opus (0) or PCM (2)."
        case .unsupportedPCM(let channels, let rate, let bits):
            return "PCM with \(channels) channels at \(rate) Hz and \(bits) bits is not supported."
        case .invalidOpusPacket(let bytes): return "An Opus packet of \(bytes) bytes has invalid framing."
        case .oversize(let frames, let limit): return "A packet of \(frames) frames exceeds the limit of \(limit)."
        case .pcmLength(let bytes, let frameBytes):
            return "A PCM payload of \(bytes) bytes is not a whole number of \(frameBytes)-byte frames."
        case .unexpectedPacket(let tag): return "Audio datagram 0x\(String(tag, radix: 16)) is not for this decoder."
        case .concealDuration(let frames): return "Cannot conceal \(frames) frames (needs a multiple of 2.5 ms)."
        }
    }
}
