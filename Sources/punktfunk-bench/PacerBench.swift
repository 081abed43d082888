import Display
import PacerSimulation

/// Page-flip pacer benchmark on synthetic traces (`PacerSimulation`): for each scenario, the
/// `FlipPacer` and the baseline "commit on arrival" policy run on the same traces (same seeds) in
/// the same process. Figures: mean and p99 added latency over the oracle (first vblank a frame
/// could latch at), avoidable drops (see `PacerSimulation`), drops, repeats (oracle repeats in
/// brackets: refreshes no frame could have filled), and the pacer's own counters. Targets: mean
/// added latency ≤ 0.3 ms and zero avoidable drops.
func runPacerBench(quick: Bool) -> [String] {
    let seeds = quick ? 2 : 40
    let frames = quick ? 600 : 3600
    var lines = ["Pacer (\(seeds) seeds × \(frames) frames per scenario; latch requirement 1 ms; added latency over the oracle)"]
    lines.append("  " + pad("scenario", 40) + pad("policy", 10) + pad("frames", 8) + pad("mean ms", 9) + pad("p99 ms", 8)
                 + pad("avoid.", 7) + pad("late", 6) + pad("preempt.", 9) + pad("drops", 7) + pad("repeats", 13) + "pacer counters")
    var worstMean = 0.0
    var avoidable = 0
    var lateWakes = 0
    var violations = 0
    for scenario in PacerScenario.standard(frames: frames) {
        let paced = PacerSimulation.run(scenario, seeds: seeds) { $0.flipPacer() }
        let baseline = PacerSimulation.run(scenario, seeds: seeds) { _ in CommitOnArrivalPacer() }
        let vblank = scenario.refreshNs != nil
        for (name, r) in [("pacer", paced), ("arrival", baseline)] {
            let s = r.policyStats
            let counters = name == "pacer"
                ? "drop \(s.dropped) rep \(s.repeats) miss \(s.latchMisses) (injected \(r.injectedLatchMisses))"
                : ""
            lines.append("  " + pad(name == "pacer" ? scenario.name : "", 40) + pad(name, 10) + pad("\(r.frames)", 8)
                         + pad(fixed(r.meanAddedLatencyMs, 3), 9) + pad(fixed(r.p99AddedLatencyMs, 2), 8)
                         + pad(vblank ? "\(r.avoidableDrops)" : "n/a", 7) + pad(vblank ? "\(r.guardExceededDrops + r.stallDrops)" : "n/a", 6) + pad(vblank ? "\(r.preemptedDrops)" : "n/a", 9) + pad("\(r.drops)", 7)
                         + pad(vblank ? "\(r.repeats) [\(r.oracleRepeats)]" : "-", 13) + counters)
            if r.violationCount > 0 {
                lines.append("    \(name): \(r.violationCount) invariant violations, first: \(r.violations.first ?? "")")
            }
        }
        if !vblank {
            let seconds = Double(paced.durationNs) / 1e9
            lines.append("    commits/s: pacer \(fixed(Double(paced.commits) / seconds, 1)), arrival \(fixed(Double(baseline.commits) / seconds, 1)), "
                         + "stream \(fixed(1e9 / Double(scenario.streamIntervalNs), 2)) fps; next() calls per frame: pacer \(fixed(Double(paced.nextCalls) / Double(paced.frames), 2))")
        }
        if vblank {
            worstMean = max(worstMean, paced.meanAddedLatencyMs)
            avoidable += paced.avoidableDrops
            lateWakes += paced.guardExceededDrops + paced.stallDrops
        }
        violations += paced.violationCount
    }
    lines.append("  pacer on vblank displays, wake-ups as \(WakeModel.realtimeBusy.name): worst mean added latency \(fixed(worstMean, 3)) ms (target ≤ 0.3), "
                 + "avoidable drops \(avoidable) (target 0), late-wake drops \(lateWakes), invariant violations \(violations)")
    // The same traces under each present-thread wake-up model (the ms-poll scenario keeps its own).
    lines.append("  by present-thread wake-up model (vblank scenarios; late-wake drops: wake-up later than the guard / later than 2 ms):")
    for model in [WakeModel.calm, .realtimeBusy, .normalBusy] {
        var worst = 0.0
        var dropsHere = 0
        var exceededHere = 0
        var stallsHere = 0
        var streamed = 0.0
        for var scenario in PacerScenario.standard(frames: frames) where scenario.refreshNs != nil && scenario.wake.name != WakeModel.millisecondPoll.name {
            scenario.wake = model
            let r = PacerSimulation.run(scenario, seeds: seeds) { $0.flipPacer() }
            worst = max(worst, r.meanAddedLatencyMs)
            dropsHere += r.avoidableDrops
            exceededHere += r.guardExceededDrops
            stallsHere += r.stallDrops
            streamed += Double(r.frames) / 60
        }
        lines.append("    " + pad(model.name, 34) + "worst mean \(fixed(worst, 3)) ms, avoidable drops \(dropsHere), "
                     + "late-wake drops \(exceededHere) / \(stallsHere) "
                     + "(\(fixed(Double(exceededHere + stallsHere) / streamed * 3600, 1)) per hour of 60 fps)")
    }
    return lines
}
