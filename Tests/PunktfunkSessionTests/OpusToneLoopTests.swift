import Foundation
import Testing
import Audio
import PunktfunkTestHost

/// The test host's replayed tone, judged by libopus' own decoder against the tone's definition and
/// against what a continuous encoder sends.
@Suite struct OpusToneLoopTests {
    @Test func periodIsWhereToneAndMarkersComeRound() {
        // 997 Hz × 240 samples / 48 kHz = 4.985 cycles a packet: 200 packets hold 997 cycles.
        #expect(OpusToneLoop.period(frequencyHz: 997, frameSamples: 240, markerEvery: 100) == 200)
        #expect(OpusToneLoop.period(frequencyHz: 997, frameSamples: 240, markerEvery: 0) == 200)
        #expect(OpusToneLoop.period(frequencyHz: 997, frameSamples: 240, markerEvery: 300) == 600)
        #expect(OpusToneLoop.period(frequencyHz: 1000, frameSamples: 240, markerEvery: 0) == 1)
        #expect(OpusToneLoop.period(frequencyHz: 997, frameSamples: 240, markerEvery: 7, maxPeriod: 1_000) == nil)
        #expect(OpusToneLoop.period(frequencyHz: 997.3, frameSamples: 240, markerEvery: 0, maxPeriod: 300) == nil)  // 2 000 packets
    }

    /// pf-testhost's `--audio --audio-marker-every 100` tone over five periods: decoded, the replay
    /// is as close to the tone (markers included) as a continuous encoding of the same packets,
    /// over the whole and in its worst 5 ms, seams included.
    @Test func replayDecodesAsCloseToTheToneAsAContinuousEncoding() throws {
        let loop = try #require(try OpusToneLoop(try OpusToneSource(markerEvery: 100)))
        #expect(loop.period == 200 && loop.lead.count == 200)
        let continuous = try OpusToneSource(markerEvery: 100)
        let count = loop.lead.count + 5 * loop.period
        var replayed: [[UInt8]] = [], encoded: [[UInt8]] = []
        for _ in 0..<count {
            replayed.append(loop.nextPacket())
            encoded.append(try continuous.nextPacket())
        }
        #expect(Array(replayed.prefix(loop.lead.count)) == Array(encoded.prefix(loop.lead.count)))
        let tone = Self.tone(packets: count)
        let judged = loop.lead.count..<count
        let r = try Self.snr(Self.decode(replayed), tone, packets: judged)
        let c = try Self.snr(Self.decode(encoded), tone, packets: judged)
        #expect(r.whole >= c.whole - 0.5, "replay \(r.whole) dB against the tone, continuous encoding \(c.whole) dB")
        #expect(r.worst >= c.worst - 1, "worst 5 ms: replay \(r.worst) dB, continuous encoding \(c.worst) dB")
        #expect(c.whole > 20)
    }

    /// The signal `OpusToneSource(markerEvery: 100)` encodes, as floats (±1 full scale), stereo.
    static func tone(packets: Int) -> [Float] {
        var out: [Float] = []
        out.reserveCapacity(packets * 480)
        for i in 0..<packets {
            let marker = i % 100 == 0
            let pcm = OpusToneSource.tone(frequencyHz: marker ? OpusToneSource.markerFrequencyHz : 997, amplitude: marker ? 0.9 : 0.5,
                                          startSample: marker ? 0 : i * 240, count: 240)
            out += pcm.map { Float($0) / 32767 }
        }
        return out
    }

    static func decode(_ packets: [[UInt8]]) throws -> [Float] {
        let decoder = try AudioDecoder(format: .opus(.stereo))
        var buffer = [Float](repeating: 0, count: 5_760 * 2), out: [Float] = []
        for packet in packets {
            let frames = try decoder.decode(packet, into: &buffer)
            out += buffer[0..<(frames * 2)]
        }
        return out
    }

    /// SNR of `decoded` against `tone` delayed by the encoder's 2.5 ms look-ahead (120 samples,
    /// RESTRICTED_LOWDELAY), dB: over `packets` and in the worst one, leaving out the two packets
    /// either side of each marker (its onset and end are clicks the codec smears, on both sides alike).
    static func snr(_ decoded: [Float], _ tone: [Float], packets: Range<Int>) -> (whole: Double, worst: Double) {
        let delay = 120 * 2
        var signal = 0.0, noise = 0.0, worst = Double.infinity
        for p in packets where (p % 100) > 2 && (p % 100) < 98 {
            var s = 0.0, n = 0.0
            for j in (p * 480)..<((p + 1) * 480) {
                let ref = Double(tone[j - delay]), e = Double(decoded[j]) - ref
                s += ref * ref
                n += e * e
            }
            signal += s
            noise += n
            worst = min(worst, 10 * log10(s / max(n, 1e-20)))
        }
        return (10 * log10(signal / max(noise, 1e-20)), worst)
    }
}
