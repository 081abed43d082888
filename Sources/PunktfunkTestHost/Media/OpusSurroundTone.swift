import Foundation
import COpus
import Audio

/// The test host's multichannel sound: a different sine on every channel, encoded as Opus
/// multistream packets of `frameSamples` (240 = 5 ms) at 48 kHz in the session's layout, so a
/// capture can tell by FFT which wire channel landed on which speaker.
///
/// Channels are in the wire order FL FR FC LFE RL RR SL SR (data-plane.md §5.1); channel `i`
/// carries `frequenciesHz[i]`. The encoder is libopus' multistream encoder built with the
/// layout's own streams, coupling and mapping (the §5.1 table, `OpusLayout`), i.e. exactly what
/// the client's decoder is built from — the surround encoder (mapping family 1) would assign its
/// coupled streams in Vorbis order, which for 7.1 puts the side pair where the host's "standard"
/// layout has the rear pair. RESTRICTED_LOWDELAY like the host (CELT only, no in-band FEC).
///
/// The packets are encoded once and replayed (`OpusToneLoop`'s reasoning: under TCG a live
/// multistream encoder would measure the test host, not the kiosk): `settlePackets` as encoded,
/// then one common period of all tones over and over. Not thread-safe.
public final class OpusSurroundTone {
    /// Per wire channel: FL 500, FR 900, FC 1300, LFE 70, RL 1700, RR 2900, SL 4400, SR 6200 Hz.
    /// Each sits inside one CELT band (edges every 200 Hz to 1.6 kHz, then 2, 2.4, 2.8, 3.2, 4,
    /// 4.8, 5.6, 6.8 kHz) with at least one empty band between any two, so the codec's in-band
    /// noise around one tone never lands on another; no tone is an integer multiple of another.
    /// All complete whole cycles in 20 packets (100 ms), the LFE's 70 Hz setting that period.
    public static let frequenciesHz: [Double] = [500, 900, 1_300, 70, 1_700, 2_900, 4_400, 6_200]

    public let layout: OpusLayout
    public let frameSamples: Int
    public let amplitude: Double
    /// The signal's period, packets (every tone completes whole cycles in it).
    public let period: Int
    private let lead: [[UInt8]]
    private let cycle: [[UInt8]]
    private var index = 0

    /// - Parameters:
    ///   - layout: the session's layout (channels 2, 6 or 8).
    ///   - amplitude: each channel's peak, of full scale.
    public init(layout: OpusLayout, frameSamples: Int = 240, amplitude: Double = 0.3, settlePackets: Int = 20) throws(AudioError) {
        self.layout = layout
        self.frameSamples = frameSamples
        self.amplitude = amplitude
        let freqs = Array(Self.frequenciesHz.prefix(layout.channels))
        var p = 1
        while p < 1_000, !freqs.allSatisfy({ f in
            let cycles = f * Double(p * frameSamples) / 48_000
            return abs(cycles - cycles.rounded()) < 1e-9
        }) { p += 1 }
        period = p

        var error: Int32 = 0
        let encoder = layout.mapping.withUnsafeBufferPointer { m in
            opus_multistream_encoder_create(48_000, Int32(layout.channels), Int32(layout.streams), Int32(layout.coupledStreams),
                                            m.baseAddress!, OPUS_APPLICATION_RESTRICTED_LOWDELAY, &error)
        }
        guard let encoder, error == OPUS_OK else { throw .opus(call: "opus_multistream_encoder_create", code: error) }
        defer { opus_multistream_encoder_destroy(encoder) }
        // The host's High tier (data-plane.md §5.1): 448 kbps for 6 channels, 768 for 8.
        pf_opus_ms_set_bitrate(encoder, layout.channels == 8 ? 768_000 : layout.channels == 6 ? 448_000 : 256_000)

        var sample = 0
        var packet = [UInt8](repeating: 0, count: 4_000)
        func next() throws(AudioError) -> [UInt8] {
            let pcm = Self.pcm(channels: layout.channels, amplitude: amplitude, startSample: sample, count: frameSamples)
            sample += frameSamples
            let n = pcm.withUnsafeBufferPointer { p in
                packet.withUnsafeMutableBufferPointer { out in
                    opus_multistream_encode(encoder, p.baseAddress!, Int32(frameSamples), out.baseAddress!, Int32(out.count))
                }
            }
            guard n > 0 else { throw .opus(call: "opus_multistream_encode", code: n) }
            return Array(packet.prefix(Int(n)))
        }
        // The lead is a whole number of periods, so the cycle starts at the signal's phase 0.
        let settle = (settlePackets + p - 1) / p * p
        var lead: [[UInt8]] = [], cycle: [[UInt8]] = []
        for _ in 0..<settle { lead.append(try next()) }
        for _ in 0..<p { cycle.append(try next()) }
        self.lead = lead
        self.cycle = cycle
    }

    /// Interleaved wire-order PCM of `count` frames from `startSample`: channel `c` is
    /// `amplitude · sin(2π f_c t)`.
    public static func pcm(channels: Int, amplitude: Double, startSample: Int, count: Int) -> [Int16] {
        var out = [Int16](repeating: 0, count: count * channels)
        let scale = amplitude * 32_767
        for i in 0..<count {
            let t = Double(startSample + i) / 48_000
            for c in 0..<channels {
                out[i * channels + c] = Int16((scale * sin(2 * Double.pi * frequenciesHz[c] * t)).rounded())
            }
        }
        return out
    }

    /// The next packet: the lead, then the cycle over and over.
    public func nextPacket() -> [UInt8] {
        defer { index += 1 }
        if index < lead.count { return lead[index] }
        return cycle[(index - lead.count) % cycle.count]
    }
}
