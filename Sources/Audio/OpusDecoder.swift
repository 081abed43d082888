internal import COpus

/// Decodes punktfunk/2 stereo Opus audio packets (0xC9 payloads) to interleaved 16-bit PCM.
/// `AudioDecoder` covers every session format (multistream, RED, PCM) with counters; this
/// stays for callers that want libopus' Int16 output.
///
/// Invariants: one decoder per stream (Opus is stateful); a lost packet is concealed with
/// `decodeLoss(samples:)`; corrupt input is a typed error and leaves the decoder usable.
public final class OpusDecoder {
    public let sampleRate: Int32
    public let channels: Int32
    private let decoder: OpaquePointer
    /// Room for the longest Opus frame (120 ms at 48 kHz).
    private var pcm: [Int16]

    public init(sampleRate: Int32 = 48_000, channels: Int32 = 2) throws(AudioError) {
        var error: Int32 = 0
        guard let decoder = opus_decoder_create(sampleRate, channels, &error), error == OPUS_OK else {
            throw .opus(call: "opus_decoder_create", code: error)
        }
        self.decoder = decoder
        self.sampleRate = sampleRate
        self.channels = channels
        pcm = [Int16](repeating: 0, count: Int(sampleRate) / 1000 * 120 * Int(channels))
    }

    deinit { opus_decoder_destroy(decoder) }

    /// Decodes one packet. - Returns: interleaved samples (count = frames × channels).
    public func decode(_ packet: [UInt8]) throws(AudioError) -> ArraySlice<Int16> {
        let maxFrames = Int32(pcm.count) / channels
        let n = packet.withUnsafeBufferPointer { p in
            pcm.withUnsafeMutableBufferPointer { out in
                opus_decode(decoder, p.baseAddress, Int32(p.count), out.baseAddress!, maxFrames, 0)
            }
        }
        guard n >= 0 else { throw .opus(call: "opus_decode", code: n) }
        return pcm[0..<Int(n * channels)]
    }
}
