import PunktfunkWire

/// What one session audio stream carries, as far as decoding goes: Opus with a multistream
/// layout (0xC9 / 0xD2, always 48 kHz) or raw PCM (0xD3) at the session's rate and depth.
/// A session uses one or the other, never both (data-plane.md §5.2).
public enum AudioStreamFormat: Hashable, Sendable, CustomStringConvertible {
    /// Opus, 48 kHz, channels and coupling from the layout.
    case opus(OpusLayout)
    /// Interleaved little-endian signed PCM, wire channel order, `bits` 16 or 24.
    case pcm(channels: Int, rateHz: Int, bits: Int)

    /// The Opus plane's only rate (data-plane.md §5.1, `SAMPLE_RATE_HZ`).
    public static let opusRateHz = 48_000

    /// Builds the format from the session fields a ServerHello carries: `audio_codec` (tag 22),
    /// `audio_channels` (17), `audio_layout` (26), `audio_rate_hz` (23), `audio_bits` (24).
    /// Opus ignores the rate and bits fields (it is always 48 kHz); PCM ignores the layout.
    /// Channel counts other than 6 and 8 are stereo.
    /// - Throws: `.unknownLayout` (Opus only), `.unsupportedCodec`, `.unsupportedPCM`.
    public init(codec: AudioCodec, channels: UInt8, layout: AudioLayout, rateHz: UInt32, bits: UInt8) throws(AudioError) {
        switch codec {
        case .opus:
            self = .opus(try OpusLayout(channels: channels, layout: layout))
        case .pcm:
            let pcm = AudioStreamFormat.pcm(channels: [6, 8].contains(channels) ? Int(channels) : 2, rateHz: Int(rateHz), bits: Int(bits))
            try pcm.validate()
            self = pcm
        default:
            throw .unsupportedCodec(codec.rawValue)
        }
    }

    /// The format of the session a ServerHello resolved.
    public init(serverHello h: ServerHello) throws(AudioError) {
        try self.init(codec: h.audioCodec, channels: h.audioChannels, layout: h.audioLayout,
                      rateHz: h.audioRateHz, bits: h.audioBits)
    }

    /// Checks what the enum cannot: PCM needs 1–255 channels, 16 or 24 bits and 8–384 kHz.
    /// (An `.opus` layout is valid by construction.)
    func validate() throws(AudioError) {
        if case .pcm(let channels, let rate, let bits) = self,
           !(1...255).contains(channels) || !(bits == 16 || bits == 24) || !(8_000...384_000).contains(rate) {
            throw .unsupportedPCM(channels: channels, rateHz: rate, bits: bits)
        }
    }

    /// Interleaved channels of the decoded output, wire order FL FR FC LFE RL RR SL SR.
    public var channels: Int {
        switch self {
        case .opus(let layout): return layout.channels
        case .pcm(let channels, _, _): return channels
        }
    }

    /// Frames (samples per channel) per second of the decoded output: 48 000 for Opus, the
    /// session rate for PCM. The decoder never resamples.
    public var sampleRate: Int {
        switch self {
        case .opus: return Self.opusRateHz
        case .pcm(_, let rate, _): return rate
        }
    }

    /// The longest packet accepted: 120 ms at `sampleRate` (the Opus maximum, and the same
    /// bound for PCM). 5760 frames on Opus.
    public var maxFramesPerPacket: Int { sampleRate * 120 / 1000 }

    public var description: String {
        switch self {
        case .opus(let layout): return "Opus 48000 Hz, \(layout)"
        case .pcm(let c, let r, let b): return "PCM \(r) Hz \(b)-bit, \(c) ch"
        }
    }
}
