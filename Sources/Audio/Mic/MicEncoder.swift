internal import COpus

/// The mic uplink's Opus encoder (data-plane.md §5.5): 10 ms frames (480 samples), mono, 48 kHz,
/// application VOIP, 48 kbit/s, in-band FEC on with an expected loss of 10 % (so a lost packet's
/// successor carries a low-rate copy the host can decode instead). Owns its encoder; encodes
/// into a caller-owned buffer, no allocation. Not thread-safe.
public final class MicEncoder {
    public static let frameSamples = 480
    public static let sampleRate: Int32 = 48_000
    public static let bitrate: Int32 = 48_000
    /// Largest packet written; Opus at 48 kbit/s stays far below it.
    public static let maxPacketBytes = 1_275
    private let encoder: OpaquePointer

    public init() throws(AudioError) {
        var error: Int32 = 0
        guard let encoder = opus_encoder_create(Self.sampleRate, 1, OPUS_APPLICATION_VOIP, &error), error == OPUS_OK else {
            throw .opus(call: "opus_encoder_create", code: error)
        }
        self.encoder = encoder
        pf_opus_set_bitrate(encoder, Self.bitrate)
        pf_opus_set_inband_fec(encoder, 1)
        pf_opus_set_packet_loss_perc(encoder, 10)
    }

    deinit { opus_encoder_destroy(encoder) }

    /// Encodes one 10 ms frame of mono samples. - Returns: the packet's length in `packet`.
    /// - Throws: `.opus` when libopus refuses (a buffer too small).
    public func encode(_ samples: UnsafeBufferPointer<Int16>, into packet: UnsafeMutableRawBufferPointer) throws(AudioError) -> Int {
        precondition(samples.count >= Self.frameSamples)
        let out = packet.bindMemory(to: UInt8.self)
        let n = opus_encode(encoder, samples.baseAddress!, Int32(Self.frameSamples), out.baseAddress!, Int32(out.count))
        guard n > 0 else { throw .opus(call: "opus_encode", code: n) }
        return Int(n)
    }
}
