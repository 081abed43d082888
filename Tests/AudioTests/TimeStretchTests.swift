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

    /// Relative frequency offset of `f0` in the left channel: the slope of its phase over
    /// Hann-weighted 100 ms blocks (long enough that a chord's other notes fall outside).
    private func fundamentalOffset(_ x: [Float], f0: Double) -> Double {
        let block = 4_800
        var phases: [Double] = []
        var b = 0
        while (b + block) * 2 <= x.count {
            var re = 0.0, im = 0.0
            for i in 0..<block {
                let w = 0.5 - 0.5 * cos(2 * Double.pi * (Double(i) + 0.5) / Double(block))
                let arg = 2 * Double.pi * f0 * Double(b + i) / 48_000
                re += w * Double(x[2 * (b + i)]) * cos(arg)
                im -= w * Double(x[2 * (b + i)]) * sin(arg)
            }
            var v = atan2(im, re)
            if let last = phases.last {
                while v - last > Double.pi { v -= 2 * Double.pi }
                while v - last < -Double.pi { v += 2 * Double.pi }
            }
            phases.append(v)
            b += block
        }
        let n = Double(phases.count), mx = (n - 1) / 2, my = phases.reduce(0, +) / n
        var num = 0.0, den = 0.0
        for (k, v) in phases.enumerated() {
            num += (Double(k) - mx) * (v - my)
            den += (Double(k) - mx) * (Double(k) - mx)
        }
        return num / den / (2 * Double.pi * Double(block)) * 48_000 / f0
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
        // Nothing is lost or made up: what was commanded is done, or still owed (a debt waiting,
        // or a seam's overshoot being paid back by single frames).
        #expect(st.heldFrames == 0 && removed == 1200 + st.owedFrames)
        #expect(st.counters.removedFrames >= removed - st.counters.slowSplicedFrames)
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
        #expect(st.heldFrames == 0 && inserted == 1200 - st.owedFrames)
        #expect(st.counters.insertedFrames >= inserted - st.counters.slowSplicedFrames)
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

    /// A chord has no common period below ~18 ms (A major: 871 frames); the 10 ms correlation
    /// window finds it, where a 2.5 ms one took lags that fit one note and moved the others'
    /// phase (0.59 % off on Wi-Fi). Removing or inserting it keeps every note's phase.
    @Test(arguments: [-2, 2])
    func aChordKeepsItsFundamental(perPeriod: Int) {
        let chord = TestSignal.chord([220, 277.18, 329.63])
        let (out, st) = run(chord, periods: 1_000, perPeriod: perPeriod)
        let seams = perPeriod < 0 ? st.counters.accelerations : st.counters.expansions
        let frames = perPeriod < 0 ? st.counters.removedFrames : st.counters.insertedFrames
        #expect(seams >= 2)
        #expect(st.counters.fallbackSplicedFrames == 0 && st.counters.aperiodicSplicedFrames == 0)
        // Every seam is one common period, 871 ± 3 frames (18.15 ms).
        #expect(abs(frames - 871 * seams) <= 3 * seams, "\(seams) seams, \(frames) frames")
        // The splice of the same debt: 0.83 %; here the fundamental holds within 0.1 %.
        let offset = fundamentalOffset(out, f0: 220)
        #expect(abs(offset) < 0.001, "\(offset * 100) %")
    }

    /// Clock drift (±200 ppm: a frame every ~21 periods) is paid as it comes by single spliced
    /// frames, one per 8 periods at most, without waiting for half a pitch period (5 ms at
    /// 100 Hz, which would be latency): the debt stays below two frames and the pitch moves by
    /// the drift itself (0.02 %), not by the old splice's 0.83 %.
    @Test(arguments: [-1, 1])
    func driftIsPaidAsItComes(sign: Int) {
        var st = TimeStretch(channels: 2, maxPushFrames: 240)
        var period = [Float](repeating: 0, count: 480)
        var out = [Float](repeating: 0, count: st.maxPullFrames * 2)
        var all: [Float] = []
        var worstDebt = 0
        for p in 0..<2_000 {
            period.withUnsafeMutableBufferPointer { TestSignal.tone(100).render(from: Int64(p * 240), frames: 240, into: $0) }
            period.withUnsafeBufferPointer { st.push($0, frames: 240, stretch: p % 21 == 20 ? sign : 0) }
            let n = out.withUnsafeMutableBufferPointer { st.pull(into: $0, lookaheadFrames: 480) }
            all += out[0..<(n * 2)]
            worstDebt = max(worstDebt, abs(st.debt))
        }
        #expect(worstDebt <= 1)
        #expect(st.counters.slowSplicedFrames == 2_000 / 21)
        #expect(st.counters.accelerations + st.counters.expansions + st.counters.fallbackSplicedFrames == 0)
        let f = zeroCrossingHz(all)
        #expect(abs(f / 100 - 1) < 0.001, "\(f) Hz")
    }

    /// A seam may land the delay up to half a period below the *target*, not only below the owed
    /// debt: the jitter buffer stops asking once the delay after the debt is within its 0.5 ms
    /// deadband (24 frames) of the target, which can leave 226 frames owed on a 100 Hz tone —
    /// short of the 240 (half of 480) a seam needed, paid at 25 frames/s by the slow splice. With
    /// the delay still 24 frames above the target, the period goes now; without, it waits.
    @Test(arguments: [0, 24])
    func aDebtWithinTheDeadbandOfHalfAPeriodTakesIt(delayError: Int) {
        var st = TimeStretch(channels: 2, maxPushFrames: 240)
        st.slowSpliceInterval = 0
        var period = [Float](repeating: 0, count: 480)
        var out = [Float](repeating: 0, count: st.maxPullFrames * 2)
        for p in 0..<20 {
            period.withUnsafeMutableBufferPointer { TestSignal.tone(100).render(from: Int64(p * 240), frames: 240, into: $0) }
            period.withUnsafeBufferPointer { st.push($0, frames: 240, stretch: p == 10 ? -226 : 0, delayErrorFrames: p >= 10 ? delayError : 0) }
            _ = out.withUnsafeMutableBufferPointer { st.pull(into: $0, lookaheadFrames: 2_000) }
        }
        if delayError == 0 {
            #expect(st.counters.accelerations == 0 && st.debt == -226)
        } else {
            #expect(st.counters.accelerations == 1 && st.counters.removedFrames == 480 && st.debt == 0)
        }
    }

    /// While the delay is far above the target (the start-up target walking down faster than
    /// the jitter buffer asks), a period goes before the debt reaches half of it: 100 frames
    /// owed with the delay 200 frames above the target allow a lag up to 600. The 380 frames it
    /// removes beyond the debt: below the jitter buffer's rate limit, the 180 that took the delay
    /// below the target are owed back (the jitter buffer sees the other 200 and asks for less);
    /// at the limit, where it cannot ask for less, all 380 are. A command of the other sign pays
    /// an overshoot first; one of the same sign makes it debt.
    @Test(arguments: [false, true])
    func aDelayFarAboveTheTargetTakesAPeriodEarly(atLimit: Bool) {
        var st = TimeStretch(channels: 2, maxPushFrames: 240)
        st.slowSpliceInterval = 0
        var period = [Float](repeating: 0, count: 480)
        var out = [Float](repeating: 0, count: st.maxPullFrames * 2)
        func push(_ p: Int, _ stretch: Int) {
            period.withUnsafeMutableBufferPointer { TestSignal.tone(100).render(from: Int64(p * 240), frames: 240, into: $0) }
            period.withUnsafeBufferPointer { st.push($0, frames: 240, stretch: stretch, delayErrorFrames: p >= 10 ? 200 : 0,
                                                     atLimit: atLimit && p >= 10) }
        }
        for p in 0..<20 {
            push(p, p == 10 ? -100 : 0)
            _ = out.withUnsafeMutableBufferPointer { st.pull(into: $0, lookaheadFrames: 2_000) }
        }
        #expect(st.counters.accelerations == 1 && st.counters.removedFrames == 480)
        #expect(st.debt == 0 && st.overshoot == (atLimit ? 380 : 180) && st.owedFrames == st.overshoot)
        push(20, -2)
        #expect(st.debt == 0 && st.overshoot == (atLimit ? 378 : 178))
        push(21, 3)
        #expect(st.debt == (atLimit ? 381 : 181) && st.overshoot == 0)
    }

    /// Start-up under clock drift (the doc's "not met" before): the 100 Hz tone's delay is no
    /// worse than today's splice (p95 over 60 s: the 20 ms start-up target walking down to 5 ms;
    /// it was higher while a 226-frame debt waited for the 240 a seam needed).
    @Test(arguments: [200.0, -200.0])
    func startUpUnderDriftIsNoSlowerThanTheSplice(ppm: Double) {
        var scenario = AudioScenario.cleanLAN(seconds: 60)
        scenario.dacPpm = ppm
        let trace = AudioTrace(scenario, seed: 17)
        let splice = SignalSimulation.run(trace, signal: .tone(100), method: .splice, phaseSeed: 0)
        let pitch = SignalSimulation.run(trace, signal: .tone(100), method: .pitch, phaseSeed: 0)
        #expect(pitch.delayPercentileMs(0.95) <= splice.delayPercentileMs(0.95) + 0.1,
                "\(pitch.delayPercentileMs(0.95)) ms against \(splice.delayPercentileMs(0.95)) ms")
        #expect(pitch.delayPercentileMs(0.5) <= splice.delayPercentileMs(0.5) + 0.1)
        // A 10 ms seam may land the delay up to 5 ms below the 5 ms target: one late period here
        // (the previous rule, landing up to half a period below the debt, did the same on other seeds).
        #expect(pitch.concealed <= 1 && pitch.pitchErrorMaxPercent <= 0.1)
    }

    /// Noise has no pitch to keep: the periodicity verdict (best correlation < 0.5) splices
    /// the debt at once, as today's splice does, instead of letting it wait and add delay.
    @Test func noiseIsPaidAtOnce() {
        let (out, st) = run(.noise, periods: 800, perPeriod: -2)
        #expect(st.counters.accelerations == 0)
        #expect(st.counters.fallbackSplicedFrames == 0)
        // 1600 frames commanded; only the first periods (too little history to judge) wait,
        // paid meanwhile by the slow splice.
        #expect(st.counters.aperiodicSplicedFrames + st.counters.slowSplicedFrames == 1600)
        #expect(st.counters.aperiodicSplicedFrames >= 1580)
        #expect(st.debt == 0)
        #expect(out.count / 2 == 800 * 240 - 1600)
        // One verdict per pull until confirmed, then at most one per 20 pulls, and no seam search at all.
        #expect(st.counters.searches <= 800 / st.verdictHoldPulls + st.aperiodicConfirmPulls)
    }

    /// A 5 ms transient over a tone (the VM check's 3 kHz marker, here every 115 ms so the
    /// verdicts meet it at every phase) is not noise: a search whose span reaches it may find no
    /// period, but the verdict "no pitch" needs that for `aperiodicConfirmPulls` pulls in a row,
    /// so the debt still goes in whole periods of the tone. (Judged on one search, 119 of the
    /// 2 000 frames were spliced plainly here, each verdict holding 100 ms.)
    @Test func aMarkerOverAToneIsNotNoise() {
        let (out, st) = run(.markedTone(997, everyPackets: 23), periods: 1_000, perPeriod: -2)
        #expect(st.counters.aperiodicSplicedFrames == 0 && st.counters.fallbackSplicedFrames == 0, "\(st.counters)")
        #expect(st.counters.accelerations > 0)
        let offset = fundamentalOffset(out, f0: 997)
        #expect(abs(offset) < 0.001, "\(offset * 100) %")
    }

    /// Noise is still judged, only later by the confirmation: a tone that turns to noise has its
    /// debt spliced once the tone's last verdict (taken up to `verdictHoldPulls` before the
    /// change) has run out and `aperiodicConfirmPulls` judgements in a row found no pitch.
    @Test func noiseAfterAToneIsJudgedAfterTheConfirmation() {
        var st = TimeStretch(channels: 2, maxPushFrames: 240)
        var period = [Float](repeating: 0, count: 480)
        var out = [Float](repeating: 0, count: st.maxPullFrames * 2)
        var firstAperiodic: Int?
        for p in 0..<200 {
            let signal: TestSignal = p < 100 ? .tone(997) : .noise
            period.withUnsafeMutableBufferPointer { signal.render(from: Int64(p * 240), frames: 240, into: $0) }
            period.withUnsafeBufferPointer { st.push($0, frames: 240, stretch: p >= 100 ? -2 : 0) }
            _ = out.withUnsafeMutableBufferPointer { st.pull(into: $0, lookaheadFrames: 2_000) }
            if firstAperiodic == nil && st.counters.aperiodicSplicedFrames > 0 { firstAperiodic = p }
        }
        let earliest = 100 + st.aperiodicConfirmPulls - 1, latest = earliest + st.verdictHoldPulls
        #expect(firstAperiodic.map { (earliest...latest).contains($0) } == true, "\(String(describing: firstAperiodic))")
        #expect(st.counters.aperiodicSplicedFrames >= 150)
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
        #expect(out.count / 2 == 50 * 240 - st.counters.removedFrames - st.counters.slowSplicedFrames)
    }

    @Test func heldFramesComeOnlyFromAudioAtHand() {
        var st = TimeStretch(channels: 2, maxPushFrames: 240)
        var period = [Float](repeating: 0, count: 480)
        var out = [Float](repeating: 0, count: st.maxPullFrames * 2)
        period.withUnsafeMutableBufferPointer { TestSignal.tone(250).render(from: 0, frames: 240, into: $0) }
        period.withUnsafeBufferPointer { st.push($0, frames: 240, stretch: -250) }
        // 250 frames owed: a removal (a period of up to 2 × 250 frames) wants 501 + 120 frames;
        // with 480 at hand it waits for them.
        #expect(out.withUnsafeMutableBufferPointer { st.pull(into: $0, lookaheadFrames: 480) } == 0)
        #expect(st.heldFrames == 240)
        // With only 100 at hand it does not wait: the search uses what is there.
        var other = TimeStretch(channels: 2, maxPushFrames: 240)
        period.withUnsafeBufferPointer { other.push($0, frames: 240, stretch: -250) }
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

