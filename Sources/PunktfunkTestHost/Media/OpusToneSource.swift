import Foundation
import COpus
import Audio

/// A test tone encoded as a stream of Opus packets, the audio a test host sends: a sine of
/// `frequencyHz` at `amplitude` (of full scale) on the left channel and its negation on the right,
/// 48 kHz stereo, `frameSamples` samples per channel per packet (240 = 5 ms, the punktfunk/2 Opus
/// frame, data-plane.md audio).
///
/// Invariants: packets are produced in sequence; the phase runs on across packets (no clicks).
/// Not thread-safe.
public final class OpusToneSource {
    public static let sampleRate: Int32 = 48_000
    public static let channels: Int32 = 2

    public let frameSamples: Int
    public let frequencyHz: Double
    public let amplitude: Double
    /// Every `markerEvery`-th packet (0, N, 2N, …; 0 = never) carries a marker instead of the
    /// tone: one packet of `markerFrequencyHz` at 0.9 of full scale, whose onset in a capture
    /// times the path (the tone resumes in phase after it).
    public let markerEvery: Int
    public static let markerFrequencyHz = 3_000.0
    private let encoder: OpaquePointer
    private var pcm: [Int16]
    private var packet = [UInt8](repeating: 0, count: 1500)
    private var sampleIndex = 0

    public init(frequencyHz: Double = 997, amplitude: Double = 0.5, frameSamples: Int = 240, bitrate: Int32 = 96_000,
                markerEvery: Int = 0) throws(AudioError) {
        var error: Int32 = 0
        guard let encoder = opus_encoder_create(Self.sampleRate, Self.channels, OPUS_APPLICATION_RESTRICTED_LOWDELAY, &error),
              error == OPUS_OK else { throw .opus(call: "opus_encoder_create", code: error) }
        self.encoder = encoder
        self.frameSamples = frameSamples
        self.frequencyHz = frequencyHz
        self.amplitude = amplitude
        self.markerEvery = markerEvery
        pcm = [Int16](repeating: 0, count: frameSamples * Int(Self.channels))
        pf_opus_set_bitrate(encoder, bitrate)
    }

    deinit { opus_encoder_destroy(encoder) }

    /// The next packet's PCM (interleaved L/R), as encoded by `nextPacket()`.
    public static func tone(frequencyHz: Double, amplitude: Double, startSample: Int, count: Int) -> [Int16] {
        var out = [Int16](repeating: 0, count: count * 2)
        let scale = amplitude * 32767
        for i in 0..<count {
            let phase = 2 * Double.pi * frequencyHz * Double(startSample + i) / Double(sampleRate)
            let l = Int16((scale * sin(phase)).rounded())
            out[2 * i] = l
            out[2 * i + 1] = l == Int16.min ? Int16.max : -l
        }
        return out
    }

    /// Encodes the next `frameSamples` of the tone (or the marker).
    public func nextPacket() throws(AudioError) -> [UInt8] {
        let index = sampleIndex / frameSamples
        pcm = markerEvery > 0 && index % markerEvery == 0
            ? Self.tone(frequencyHz: Self.markerFrequencyHz, amplitude: 0.9, startSample: 0, count: frameSamples)
            : Self.tone(frequencyHz: frequencyHz, amplitude: amplitude, startSample: sampleIndex, count: frameSamples)
        sampleIndex += frameSamples
        let n = pcm.withUnsafeBufferPointer { p in
            packet.withUnsafeMutableBufferPointer { out in
                opus_encode(encoder, p.baseAddress!, Int32(frameSamples), out.baseAddress!, Int32(out.count))
            }
        }
        guard n > 0 else { throw .opus(call: "opus_encode", code: n) }
        return Array(packet.prefix(Int(n)))
    }
}
