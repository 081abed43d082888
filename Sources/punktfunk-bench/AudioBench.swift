import Audio
import AudioSimulation
import SystemClock

/// Audio jitter-buffer benchmark on synthetic traces (`AudioSimulation`, seeded): for each
/// scenario, the adaptive `AudioJitterBuffer` and the baseline fixed 60 ms buffer
/// (moonlight-embedded, `FixedDelayBaseline`) run on the same traces with the same DAC phase in
/// the same process. Figures: added playout delay p50/p99 (beyond the fastest possible
/// delivery), concealed % (PLC + quiet where audio was due), late/duplicate/overflow drops,
/// stretch frames, and for the drift runs the drift held: last-minute minus first-minute mean
/// delay and the spread of the per-minute means. Targets (issue 13 item 9): clean LAN p50 ≤ 10 ms
/// with zero concealment; Wi-Fi bursts with 1 % loss ≤ 1.5 % concealed with a delay under the
/// baseline's.
func runAudioBench(quick: Bool) -> [String] {
    let seeds = quick ? 2 : 10
    let seconds = quick ? 60.0 : 300.0
    let driftSeconds = quick ? 600.0 : 3600.0
    var lines = ["Audio jitter buffer (\(seeds) seeds × \(Int(seconds)) s per scenario, drift runs 1 × \(Int(driftSeconds)) s; 5 ms packets, 48 kHz)"]
    lines.append("  " + pad("scenario", 32) + pad("policy", 13) + pad("p50 ms", 8) + pad("p99 ms", 8) + pad("concealed", 11)
                 + pad("late", 6) + pad("dup", 5) + pad("overfl.", 8) + pad("stretch +/-", 14) + pad("drift held ms", 20) + "checks")
    for scenario in AudioScenario.standard(seconds: seconds, driftSeconds: driftSeconds) {
        let runs = scenario.dacPpm != 0 ? 1 : seeds
        var adaptive = AudioSimulationResult()
        var baseline = AudioSimulationResult()
        for seed in 0..<runs {
            let trace = AudioTrace(scenario, seed: UInt64(seed) &* 0x9E37_79B9 &+ 17)
            adaptive.merge(AudioSimulation.runAdaptive(trace, phaseSeed: UInt64(seed)))
            baseline.merge(AudioSimulation.runBaseline(trace, phaseSeed: UInt64(seed)))
        }
        for (name, r) in [("adaptive", adaptive), ("fixed 60 ms", baseline)] {
            let drift = scenario.dacPpm != 0
                ? "\(fixed(r.delayDriftMs, 2)) (band \(fixed(r.minuteDelaySpreadMs, 2)))" : "-"
            let checks = name == "adaptive" ? (r.violationCount == 0 ? "ok" : "\(r.violationCount) violations") : ""
            lines.append("  " + pad(name == "adaptive" ? scenario.name : "", 32) + pad(name, 13)
                         + pad(fixed(r.delayPercentileMs(0.5), 1), 8) + pad(fixed(r.delayPercentileMs(0.99), 1), 8)
                         + pad(fixed(r.concealedPercent, 3) + " %", 11) + pad("\(r.late)", 6) + pad("\(r.duplicates)", 5)
                         + pad("\(r.overflowDrops)", 8) + pad("\(r.insertedFrames)/\(r.droppedFrames)", 14) + pad(drift, 20) + checks)
            for v in r.violations.prefix(3) { lines.append("    \(v)") }
        }
    }
    lines += runAudioSignalBench(quick: quick)
    return lines
}

/// Issue 22: the same jitter buffer with real samples (`SignalSimulation`): test signals through
/// the Wi-Fi catch-up and the two drift traces, today's splice (`FrameStretch`) against the
/// pitch-period stretcher (`TimeStretch`). Figures: added delay p50/p99 and concealed % (as
/// above), the fundamental's offset during catch-up (largest and mean over the judged 1 s windows),
/// the largest step inside a seam over the input's largest step, and what the stretcher did.
/// Then the stretcher's worst case per period: one full correlation search (2.5–15 ms, stereo).
func runAudioSignalBench(quick: Bool, signalFilter: String? = nil, seeds wifiSeeds: Int? = nil) -> [String] {
    let seeds = wifiSeeds ?? (quick ? 1 : 8)
    let seconds = quick ? 60.0 : 120.0
    let driftSeconds = quick ? 120.0 : 300.0
    var lines = ["", "Audio catch-up with samples (issue 22; \(seeds) seeds × \(Int(seconds)) s Wi-Fi, drift 1 × \(Int(driftSeconds)) s): splice = FrameStretch 1–2 frames/period, pitch = TimeStretch"]
    lines.append("  " + pad("trace", 22) + pad("signal", 26) + pad("method", 7) + pad("p50 ms", 8) + pad("p99 ms", 8) + pad("concealed", 11)
                 + pad("pitch max (mean) %", 20) + pad("windows", 8) + pad("seam jump", 10) + "seams: accel/expand (frames), silence/fallback/aperiodic/slow frames, low-corr/searches")
    var traces: [AudioScenario] = [.wifi(seconds: seconds)]
    for ppm in [200.0, -200.0] {
        var d = AudioScenario.cleanLAN(seconds: driftSeconds)
        d.name = "LAN, DAC \(ppm > 0 ? "+" : "")\(Int(ppm)) ppm"
        d.dacPpm = ppm
        traces.append(d)
    }
    for scenario in traces {
        let runs = scenario.dacPpm != 0 ? 1 : seeds
        for signal in TestSignal.standard where signalFilter.map({ signal.name.contains($0) }) ?? true {
            for method in [SignalSimulation.Method.splice, .pitch] {
                var r = SignalSimulation.Result()
                for seed in 0..<runs {
                    let trace = AudioTrace(scenario, seed: UInt64(seed) &* 0x9E37_79B9 &+ 17)
                    r.merge(SignalSimulation.run(trace, signal: signal, method: method, phaseSeed: UInt64(seed)))
                }
                let pitch = signal.fundamentalHz == nil || r.pitchErrors.isEmpty ? "-"
                    : "\(fixed(r.pitchErrorMaxPercent, 3)) (\(fixed(r.pitchErrorMeanPercent, 3)))"
                let st = r.stretch
                let what = method == .splice ? "\(r.splicedFrames) frames spliced"
                    : "\(st.accelerations)/\(st.expansions) (\(st.removedFrames)/\(st.insertedFrames)), \(st.silenceSplicedFrames)/\(st.fallbackSplicedFrames)/\(st.aperiodicSplicedFrames)/\(st.slowSplicedFrames), \(st.lowCorrelation)/\(st.searches)"
                lines.append("  " + pad(method == .splice ? scenario.name : "", 22) + pad(method == .splice ? signal.name : "", 26) + pad(method == .splice ? "splice" : "pitch", 7)
                             + pad(fixed(r.delayPercentileMs(0.5), 1), 8) + pad(fixed(r.delayPercentileMs(0.99), 1), 8)
                             + pad(fixed(r.concealedPercent, 3) + " %", 11) + pad(pitch, 20) + pad("\(r.pitchErrors.count)", 8)
                             + pad(r.seamSteps.isEmpty ? "-" : fixed(r.seamJumpRatio, 2), 10) + what)
            }
        }
    }
    lines += timeStretchWorstCase(quick: quick)
    return lines
}

/// The stretcher's worst pull: two full searches — the periodicity verdict (backward, judged
/// every pull here) and the forward search for a removal — over 240-frame periods of stereo
/// noise with a debt past the largest lag and look-ahead at hand, neither threshold reachable
/// (so nothing is paid but the fallback's splice, and every pull searches again).
func timeStretchWorstCase(quick: Bool) -> [String] {
    var st = TimeStretch(channels: 2, maxPushFrames: 240)
    st.correlationThreshold = 2
    st.aperiodicThreshold = -2
    st.verdictHoldPulls = 0
    var period = [Float](repeating: 0, count: 480)
    var out = [Float](repeating: 0, count: st.maxPullFrames * 2)
    var t: Int64 = 0
    var times: [Double] = []
    let iterations = quick ? 2_000 : 20_000
    times.reserveCapacity(iterations)
    for i in 0..<(iterations + 16) {
        period.withUnsafeMutableBufferPointer { TestSignal.noise.render(from: t, frames: 240, into: $0) }
        t += 240
        let start = MonotonicClock.nowNs()
        period.withUnsafeBufferPointer { st.push($0, frames: 240, stretch: i == 0 ? -(st.maxLag + 40) : -2) }
        _ = out.withUnsafeMutableBufferPointer { st.pull(into: $0, lookaheadFrames: 10_000) }
        let ns = MonotonicClock.nowNs() - start
        if i >= 16 { times.append(Double(ns) / 1e3) }
    }
    times.sort()
    let lags = st.maxLag - st.minLag + 2  // minLag…maxLag + 1: a peak at maxLag needs its right neighbour
    let macs = 2 * lags * st.correlationWindow * st.channels
    return ["", "TimeStretch worst pull (48 kHz stereo: the periodicity verdict and a removal's search, each \(lags) lags × \(st.correlationWindow) frames × 2 channels, = \(macs) multiply-adds; noise, neither threshold reachable): "
            + "p50 \(fixed(times[times.count / 2], 1)) µs, p99 \(fixed(times[times.count * 99 / 100], 1)) µs, max \(fixed(times.last!, 1)) µs over \(times.count) pulls "
            + "(\(st.counters.searches) searches, held \(st.heldFrames) frames)"]
}
