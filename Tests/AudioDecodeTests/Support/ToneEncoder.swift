import Audio
import COpus
import Foundation

/// A libopus multistream encoder for tests, set up as the host encodes (data-plane.md §5.1):
/// 48 kHz, RESTRICTED_LOWDELAY, 5 ms frames, input in wire channel order with the layout's
/// mapping. Bitrate is libopus' default (OPUS_AUTO, ~60 kb/s per channel at 5 ms).
final class ToneEncoder {
    let layout: OpusLayout
    let frequencies: [Double]
    let amplitude: Double
    let frameSamples: Int
    private let encoder: OpaquePointer
    private var sampleIndex = 0
    private var packet = [UInt8](repeating: 0, count: 8 * 1275)

    /// Channel `c` carries a sine of `frequencies[c]`.
    init(layout: OpusLayout, frequencies: [Double], amplitude: Double = 0.3, frameSamples: Int = 240) throws {
        precondition(frequencies.count == layout.channels)
        var error: Int32 = 0
        let encoder = layout.mapping.withUnsafeBufferPointer {
            opus_multistream_encoder_create(48_000, Int32(layout.channels), Int32(layout.streams),
                                            Int32(layout.coupledStreams), $0.baseAddress!,
                                            OPUS_APPLICATION_RESTRICTED_LOWDELAY, &error)
        }
        guard let encoder, error == OPUS_OK else { throw AudioError.opus(call: "opus_multistream_encoder_create", code: error) }
        self.encoder = encoder
        self.layout = layout
        self.frequencies = frequencies
        self.amplitude = amplitude
        self.frameSamples = frameSamples
    }

    /// Stereo (or any layout) with the default tones: 300 Hz + 150 Hz × channel.
    convenience init(layout: OpusLayout = .stereo) throws {
        try self.init(layout: layout, frequencies: (0..<layout.channels).map { 300 + 150 * Double($0) })
    }

    deinit { opus_multistream_encoder_destroy(encoder) }

    /// The next `frameSamples` frames of the tones, encoded.
    func nextPacket() throws -> [UInt8] {
        let pcm = Tone.interleaved(frequencies: frequencies, amplitude: amplitude, start: sampleIndex, frames: frameSamples)
        sampleIndex += frameSamples
        let n = pcm.withUnsafeBufferPointer { p in
            packet.withUnsafeMutableBufferPointer { out in
                opus_multistream_encode_float(encoder, p.baseAddress!, Int32(frameSamples), out.baseAddress!, Int32(out.count))
            }
        }
        guard n > 0 else { throw AudioError.opus(call: "opus_multistream_encode_float", code: n) }
        return Array(packet.prefix(Int(n)))
    }

    func packets(_ count: Int) throws -> [[UInt8]] { try (0..<count).map { _ in try nextPacket() } }
}

enum Tone {
    /// Interleaved sines, one frequency per channel, at 48 kHz.
    static func interleaved(frequencies: [Double], amplitude: Double, start: Int, frames: Int) -> [Float] {
        var out = [Float](repeating: 0, count: frames * frequencies.count)
        for i in 0..<frames {
            for (c, f) in frequencies.enumerated() {
                out[i * frequencies.count + c] = Float(amplitude * sin(2 * .pi * f * Double(start + i) / 48_000))
            }
        }
        return out
    }

    /// Goertzel magnitude of `frequency` in channel `channel` of interleaved `samples`
    /// (1.0 ≈ a full-scale sine of exactly that frequency).
    static func magnitude(of frequency: Double, channel: Int, channels: Int, in samples: [Float], rate: Double = 48_000) -> Double {
        let n = samples.count / channels
        let w = 2 * Double.pi * frequency / rate
        let coeff = 2 * cos(w)
        var s1 = 0.0, s2 = 0.0
        for i in 0..<n {
            let s0 = Double(samples[i * channels + channel]) + coeff * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = max(0, s1 * s1 + s2 * s2 - coeff * s1 * s2)
        return 2 * power.squareRoot() / Double(n)
    }
}

/// Deterministic PRNG for the property tests (SplitMix64).
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension AudioDecoder {
    /// Decodes `packets` in order into one interleaved array (test convenience; allocates).
    func decodeAll(_ packets: [[UInt8]]) throws -> [Float] {
        var out = [Float](repeating: 0, count: maxSamplesPerPacket)
        var all: [Float] = []
        for p in packets {
            let n = try decode(p, into: &out)
            all += out[0..<n * channels]
        }
        return all
    }
}
