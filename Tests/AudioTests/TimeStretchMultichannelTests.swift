import Foundation
import Testing
import Audio

/// `TimeStretch` on 5.1 / 7.1 (issue 34): the pitch is judged on the loudest channel, the seams
/// cut all channels at the same frame, so every channel keeps its own pitch and no channel's
/// samples move to another.
@Suite struct TimeStretchMultichannelTests {
    /// `periods` periods of a tone per channel (`hz[c]`, amplitude `level[c]`) through a stretcher
    /// commanding `perPeriod` frames each; returns the output and the stretcher.
    static func run(channels n: Int, hz: [Double], level: [Float], periods: Int, perPeriod: Int) -> ([Float], TimeStretch) {
        var st = TimeStretch(channels: n, maxPushFrames: 240)
        var period = [Float](repeating: 0, count: 240 * n)
        var out = [Float](repeating: 0, count: st.maxPullFrames * n)
        var all: [Float] = []
        for p in 0..<periods {
            for f in 0..<240 {
                let t = Double(p * 240 + f) / 48_000
                for c in 0..<n { period[f * n + c] = level[c] * Float(sin(2 * Double.pi * hz[c] * t)) }
            }
            period.withUnsafeBufferPointer { st.push($0, frames: 240, stretch: perPeriod) }
            let got = out.withUnsafeMutableBufferPointer { st.pull(into: $0, lookaheadFrames: p + 4 < periods ? 2_000 : 0) }
            all += out[0..<(got * n)]
        }
        return (all, st)
    }

    /// Rising zero crossings of channel `c`, Hz.
    static func zeroCrossingHz(_ x: [Float], channel c: Int, channels n: Int) -> Double {
        var crossings: [Double] = []
        for i in 1..<(x.count / n) where x[(i - 1) * n + c] < 0 && x[i * n + c] >= 0 {
            let a = Double(x[(i - 1) * n + c]), b = Double(x[i * n + c])
            crossings.append(Double(i - 1) + a / (a - b))
        }
        guard crossings.count > 2 else { return 0 }
        return Double(crossings.count - 1) / (crossings.last! - crossings.first!) * 48_000
    }

    /// The same 250 Hz tone on every channel at different levels (a common pitch, as a film's
    /// bed): whole periods come out of all channels at once; each channel keeps its pitch and its
    /// level ratio to channel 0 sample by sample.
    @Test(arguments: [6, 8])
    func aCommonPitchIsCutOnEveryChannelAtOnce(_ n: Int) {
        let level: [Float] = (0..<n).map { 0.8 - 0.08 * Float($0) }
        let (out, st) = Self.run(channels: n, hz: [Double](repeating: 250, count: n), level: level, periods: 600, perPeriod: -2)
        #expect(st.counters.accelerations > 0)
        #expect(st.counters.fallbackSplicedFrames == 0 && st.counters.aperiodicSplicedFrames == 0)
        let removed = 600 * 240 - out.count / n
        #expect(st.heldFrames == 0 && removed == 1200 + st.owedFrames)
        for c in 0..<n {
            let f = Self.zeroCrossingHz(out, channel: c, channels: n)
            #expect(abs(f - 250) / 250 < 0.001, "channel \(c): \(f) Hz")
        }
        for i in stride(from: 0, to: out.count, by: n) {
            for c in 1..<n where abs(out[i + c] - level[c] / level[0] * out[i]) > 1e-4 {
                Issue.record("frame \(i / n) channel \(c): \(out[i + c]) against \(out[i])")
                return
            }
        }
    }

    /// Dialogue in the centre only, the other channels nearly silent: the loudest channel carries
    /// the pitch, so its periods are found (not spliced as pitchless audio) and it keeps its pitch.
    @Test func thePitchOfTheLoudestChannelDecides() {
        var level = [Float](repeating: 0.0005, count: 6)
        level[2] = 0.5
        var hz = [Double](repeating: 3_000, count: 6)
        hz[2] = 180
        let (out, st) = Self.run(channels: 6, hz: hz, level: level, periods: 600, perPeriod: -2)
        #expect(st.counters.accelerations > 0)
        #expect(st.counters.aperiodicSplicedFrames == 0)
        let f = Self.zeroCrossingHz(out, channel: 2, channels: 6)
        #expect(abs(f - 180) / 180 < 0.001, "\(f) Hz")
    }
}
