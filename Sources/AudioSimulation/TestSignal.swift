import Foundation
import PunktfunkWire

/// A seeded, sample-exact test signal for the sample-level playout simulation
/// (`SignalSimulation`): sample `t` (absolute, 48 kHz) of the host's stream is a pure function of
/// `t`, so packet N is samples `[240 N, 240 N + 240)` and an ideal concealment continues at
/// the next sample. Stereo: L = s(t), R = −0.6 · s(t) (noise: two independent draws).
public enum TestSignal: Sendable, Equatable {
    /// A sine of `hz` at half scale.
    case tone(Double)
    /// Sines at `hz` (each 0.2 of full scale), the lowest the fundamental judged.
    case chord([Double])
    /// A vowel-like voice: a 140 Hz glottal pulse train shaped by three formants (700, 1220,
    /// 2600 Hz), syllables at 4 Hz, and a 250 ms near-silent pause (−66 dBFS) every 2 s.
    case speechLike
    /// White noise at 0.3 of full scale (no fundamental).
    case noise
    /// The tone of the VM's audio check (pf-testhost `--audio-marker-every`): a sine of `hz` at
    /// half scale, every `everyPackets`-th 240-frame packet replaced by a 3 kHz marker at 0.9 of
    /// full scale starting at phase 0 (the tone runs on in phase behind it).
    case markedTone(Double, everyPackets: Int)

    public static let sampleRate = 48_000.0

    public var name: String {
        switch self {
        case .tone(let f): return f >= 1000 ? "tone \(format(f / 1000)) kHz" : "tone \(format(f)) Hz"
        case .chord(let f): return "chord " + f.map { format($0) }.joined(separator: "+") + " Hz"
        case .speechLike: return "speech-like (140 Hz)"
        case .noise: return "white noise"
        case .markedTone(let f, let every): return "tone \(format(f)) Hz + marker/\(every * 5) ms"
        }
    }

    /// The frequency whose drift is judged, Hz; nil for noise.
    public var fundamentalHz: Double? {
        switch self {
        case .tone(let f): return f
        case .chord(let f): return f.min()
        case .speechLike: return SpeechTable.f0
        case .noise: return nil
        case .markedTone(let f, _): return f
        }
    }

    /// The standard set: pure tones 100 Hz–8 kHz, an A-major chord, speech-like, noise, and the
    /// VM check's 997 Hz tone with a marker every 500 ms.
    public static let standard: [TestSignal] = [
        .tone(100), .tone(250), .tone(997), .tone(3000), .tone(8000),
        .chord([220, 277.18, 329.63]), .speechLike, .noise, .markedTone(997, everyPackets: 100),
    ]

    /// The marker's frequency, Hz (pf-testhost's `OpusToneSource.markerFrequencyHz`).
    public static let markerHz = 3_000.0

    /// Left-channel sample `t`.
    public func sample(_ t: Int64) -> Float {
        let x = Double(t) / Self.sampleRate
        switch self {
        case .tone(let f):
            return Float(0.5 * sin(2 * Double.pi * f * x))
        case .chord(let fs):
            var s = 0.0
            for (i, f) in fs.enumerated() { s += 0.2 * sin(2 * Double.pi * f * x + Double(i)) }
            return Float(s)
        case .speechLike:
            return SpeechTable.shared.sample(t)
        case .noise:
            return Self.noise(t, 1)
        case .markedTone(let f, let every):
            let packet = t / 240
            guard every > 0, packet % Int64(every) == 0 else { return Float(0.5 * sin(2 * Double.pi * f * x)) }
            return Float(0.9 * sin(2 * Double.pi * Self.markerHz * Double(t - 240 * packet) / Self.sampleRate))
        }
    }

    /// Writes `frames` stereo frames from sample `t` into `out` (interleaved L, R).
    public func render(from t: Int64, frames: Int, into out: UnsafeMutableBufferPointer<Float>) {
        for i in 0..<frames {
            let s = sample(t + Int64(i))
            out[2 * i] = s
            out[2 * i + 1] = self == .noise ? Self.noise(t + Int64(i), 2) : -0.6 * s
        }
    }

    static func noise(_ t: Int64, _ stream: UInt64) -> Float {
        var r = SplitMix64(seed: UInt64(bitPattern: t) &* 0x9E37_79B9_7F4A_7C15 ^ stream)
        return Float(Double(r.next() >> 11) * 0x1p-53 * 0.6 - 0.3)
    }

    private func format(_ v: Double) -> String {
        v == v.rounded() ? "\(Int(v))" : String(format: "%.2f", v).replacingOccurrences(of: ".00", with: "")
    }
}

/// One period of the speech-like voice, tabulated once (additive synthesis of 140 Hz harmonics
/// under three formant peaks), read with linear interpolation under the syllable envelope.
final class SpeechTable: Sendable {
    static let f0 = 140.0
    static let shared = SpeechTable()
    let table: [Float]

    init() {
        let n = 4096
        var t = [Float](repeating: 0, count: n + 1)
        let formants: [(Double, Double)] = [(700, 130), (1220, 170), (2600, 250)]
        var peak: Float = 0
        for k in 1...40 {
            let f = Double(k) * Self.f0
            var a = 0.0
            for (fc, bw) in formants { a += 1 / (1 + pow((f - fc) / bw, 2)) }
            a *= 1 / Double(k).squareRoot()
            for i in 0...n { t[i] += Float(a * sin(2 * Double.pi * Double(k) * Double(i) / Double(n) + 0.3 * Double(k))) }
        }
        for v in t { peak = max(peak, abs(v)) }
        table = t.map { $0 / peak * 0.6 }
    }

    func sample(_ t: Int64) -> Float {
        let rate = TestSignal.sampleRate
        let phase = (Double(t) * Self.f0 / rate).truncatingRemainder(dividingBy: 1) * Double(table.count - 1)
        let i = Int(phase)
        let f = Float(phase - Double(i))
        let v = table[i] * (1 - f) + table[i + 1] * f
        // Syllables at 4 Hz (0.25…1), and 250 ms of near-silence every 2 s.
        let seconds = Double(t) / rate
        let inCycle = seconds.truncatingRemainder(dividingBy: 2)
        if inCycle >= 1.75 { return v * 0.0008 }
        let env = 0.25 + 0.75 * abs(sin(Double.pi * 4 * seconds))
        return v * Float(env)
    }
}
