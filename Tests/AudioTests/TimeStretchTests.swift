import Foundation
import Testing
import Audio
import AudioSimulation

/// `TimeStretch` (issue 22): whole pitch periods removed and inserted, the pitch unchanged.
@Suite struct TimeStretchTests {
    /// Runs `periods` 240-frame periods of `signal` through a stretcher, commanding `perPeriod`
    /// frames each (the jitter buffer's stretch), with `lookahead` frames always at hand.
    /// - Returns: the output (interleaved stereo) and the stretcher.
    private func run(_ signal: TestSignal, periods: Int, perPeriod: Int, lookahead: Int = 2_000) -> ([Float], TimeStretch) {
        var st = TimeStretch(channels: 2, maxPushFrames: 240)
        var period = [Float](repeating: 0, count: 480)
        var out = [Float](repeating: 0, count: st.maxPullFrames * 2)
        var all: [Float] = []
        for p in 0..<periods {
            period.withUnsafeMutableBufferPointer { signal.render(from: Int64(p * 240), frames: 240, into: $0) }
            period.withUnsafeBufferPointer { st.push($0, frames: 240, stretch: perPeriod) }
            let n = out.withUnsafeMutableBufferPointer { st.pull(into: $0, lookaheadFrames: p + 4 < periods ? lookahead : 0) }
            all += out[0..<(n * 2)]
        }
        return (all, st)
    }

    /// Frequency from the left channel's rising zero crossings (interpolated), Hz.
    private func zeroCrossingHz(_ x: [Float]) -> Double {
        var crossings: [Double] = []
        for i in 1..<(x.count / 2) where x[2 * i - 2] < 0 && x[2 * i] >= 0 {
            let a = Double(x[2 * i - 2]), b = Double(x[2 * i])
            crossings.append(Double(i - 1) + a / (a - b))
        }
        guard crossings.count > 2 else { return 0 }
        return Double(crossings.count - 1) / (crossings.last! - crossings.first!) * 48_000
    }

    private func largestStep(_ x: [Float]) -> Float {
        var worst: Float = 0
        for i in 2..<x.count { worst = max(worst, abs(x[i] - x[i - 2])) }
        return worst
    }

    @Test(arguments: [100.0, 250.0, 997.0, 3000.0, 8000.0])
    func accelerateRemovesWholePeriodsAndKeepsThePitch(hz: Double) {
        let (out, st) = run(.tone(hz), periods: 600, perPeriod: -2)  // 3 s at the catch-up's 0.83 %
        let removed = 600 * 240 - out.count / 2
        #expect(st.counters.accelerations > 0)
        #expect(removed == st.counters.removedFrames + st.counters.fallbackSplicedFrames + st.counters.silenceSplicedFrames)
        #expect(removed >= 1200 - st.fallbackFrames - st.maxLag)  // the debt is paid, up to what still waits
        #expect(st.counters.fallbackSplicedFrames == 0)
        // The pitch holds (today's splice: +0.83 %), and the seams add no step beyond the tone's own.
        let f = zeroCrossingHz(out)
        #expect(abs(f - hz) / hz < 0.001, "\(f) Hz")
        #expect(largestStep(out) <= Float(0.5 * 2 * Double.pi * hz / 48_000) * 1.05 + 1e-4)
        // Stereo judged together: R stays −0.6 L through every seam.
        for i in stride(from: 0, to: out.count, by: 2) { #expect(abs(out[i + 1] + 0.6 * out[i]) < 1e-5) }
    }

    @Test(arguments: [100.0, 997.0, 8000.0])
    func expandInsertsWholePeriodsAndKeepsThePitch(hz: Double) {
        let (out, st) = run(.tone(hz), periods: 600, perPeriod: 2)
        let inserted = out.count / 2 - 600 * 240
        #expect(st.counters.expansions > 0)
        #expect(inserted == st.counters.insertedFrames)
        #expect(inserted >= 1200 - st.maxLag)
        #expect(st.counters.fallbackSplicedFrames == 0)
        let f = zeroCrossingHz(out)
        #expect(abs(f - hz) / hz < 0.001, "\(f) Hz")
        #expect(largestStep(out) <= Float(0.5 * 2 * Double.pi * hz / 48_000) * 1.05 + 1e-4)
    }

    @Test func splicingTheSameDebtShiftsThePitch() {
        // The reference the issue measured: 2 of 240 frames per period is 0.83 % sharp.
        var all: [Float] = []
        var period = [Float](repeating: 0, count: 488)
        for p in 0..<600 {
            period.withUnsafeMutableBufferPointer { TestSignal.tone(997).render(from: Int64(p * 240), frames: 240, into: $0) }
            let n = period.withUnsafeMutableBufferPointer { FrameStretch.apply(-2, to: $0, frames: 240, channels: 2) }
            all += period[0..<(n * 2)]
        }
        let f = zeroCrossingHz(all)
        #expect(abs(f / 997 - 240.0 / 238) < 0.001, "\(f) Hz")
    }

    @Test func noiseIsLeftAloneUntilTheDebtPassesTheBound() {
        let (out, st) = run(.noise, periods: 800, perPeriod: -2)
        #expect(st.counters.accelerations == 0)
        #expect(st.counters.lowCorrelation > 0)
        // 1600 frames commanded: up to the bound it waits, beyond it it is spliced as before.
        #expect(st.counters.fallbackSplicedFrames == 1600 - st.fallbackFrames)
        #expect(st.debt == -st.fallbackFrames)
        #expect(out.count / 2 == 800 * 240 - st.counters.fallbackSplicedFrames - st.heldFrames)
    }

    @Test func silenceIsSplicedAtOnce() {
        var st = TimeStretch(channels: 2, maxPushFrames: 240)
        let quiet = [Float](repeating: 0.0001, count: 480)
        var out = [Float](repeating: 0, count: st.maxPullFrames * 2)
        quiet.withUnsafeBufferPointer { st.push($0, frames: 240, stretch: -30) }
        #expect(out.withUnsafeMutableBufferPointer { st.pull(into: $0, lookaheadFrames: 5_000) } == 210)
        quiet.withUnsafeBufferPointer { st.push($0, frames: 240, stretch: 7) }
        #expect(out.withUnsafeMutableBufferPointer { st.pull(into: $0) } == 247)
        #expect(st.debt == 0 && st.counters.silenceSplicedFrames == 37 && st.counters.searches == 0)
    }

    @Test func withoutLookAheadNothingIsHeld() {
        let (out, st) = run(.tone(997), periods: 50, perPeriod: -2, lookahead: 0)
        #expect(st.heldFrames == 0)
        #expect(out.count / 2 == 50 * 240 - st.counters.removedFrames)
    }

    @Test func heldFramesComeOnlyFromAudioAtHand() {
        var st = TimeStretch(channels: 2, maxPushFrames: 240)
        var period = [Float](repeating: 0, count: 480)
        var out = [Float](repeating: 0, count: st.maxPullFrames * 2)
        period.withUnsafeMutableBufferPointer { TestSignal.tone(250).render(from: 0, frames: 240, into: $0) }
        period.withUnsafeBufferPointer { st.push($0, frames: 240, stretch: -500) }
        // 500 frames owed: a removal wants 500 + 120 frames; with 480 at hand it waits for them.
        #expect(out.withUnsafeMutableBufferPointer { st.pull(into: $0, lookaheadFrames: 480) } == 0)
        #expect(st.heldFrames == 240)
        // With only 100 at hand it does not wait: the search uses what is there.
        var other = TimeStretch(channels: 2, maxPushFrames: 240)
        period.withUnsafeBufferPointer { other.push($0, frames: 240, stretch: -500) }
        let n = out.withUnsafeMutableBufferPointer { other.pull(into: $0, lookaheadFrames: 100) }
        #expect(n + other.heldFrames + other.counters.removedFrames == 240)
    }

    /// The sample-level simulation: the clean LAN's start walks the delay from the 20 ms initial
    /// target down to 5 ms; during that catch-up today's splice plays 0.83 % sharp, the pitch
    /// stretcher within 0.1 %, with the same delay and no concealment.
    @Test func catchUpKeepsThePitchInTheSimulation() {
        let trace = AudioTrace(.cleanLAN(seconds: 8), seed: 3)
        let splice = SignalSimulation.run(trace, signal: .tone(997), method: .splice, phaseSeed: 3)
        let pitch = SignalSimulation.run(trace, signal: .tone(997), method: .pitch, phaseSeed: 3)
        #expect(!splice.pitchErrors.isEmpty && !pitch.pitchErrors.isEmpty)
        #expect(splice.pitchErrorMaxPercent > 0.5)
        #expect(pitch.pitchErrorMaxPercent <= 0.1)
        #expect(pitch.concealed == 0 && splice.concealed == 0)
        #expect(abs(pitch.delayPercentileMs(0.5) - splice.delayPercentileMs(0.5)) <= 2)
        #expect(pitch.stretch.accelerations > 0 && pitch.stretch.fallbackSplicedFrames == 0)
    }
}
