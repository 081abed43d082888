import Display

/// Page-flip pacer benchmark on synthetic traces (`PacerSimulation`): for each scenario, the
/// `FlipPacer` and the baseline "commit on arrival" policy run on the same traces (same seeds) in
/// the same process. Figures: mean and p99 added latency over the oracle (first vblank a frame
/// could latch at), avoidable drops (see `PacerSimulation`), drops, repeats (oracle repeats in
/// brackets: refreshes no frame could have filled), and the pacer's own counters. Targets: mean
/// added latency ≤ 0.3 ms and zero avoidable drops.
func runPacerBench(quick: Bool) -> [String] {
    let seeds = quick ? 2 : 8
    let frames = quick ? 600 : 3600
    var lines = ["Pacer (\(seeds) seeds × \(frames) frames per scenario; latch requirement 1 ms; added latency over the oracle)"]
    lines.append("  " + pad("scenario", 40) + pad("policy", 10) + pad("frames", 8) + pad("mean ms", 9) + pad("p99 ms", 8)
                 + pad("avoid.", 7) + pad("preempt.", 9) + pad("drops", 7) + pad("repeats", 13) + "pacer counters")
    var worstMean = 0.0
    var avoidable = 0
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
                         + pad(fmt(r.meanAddedLatencyMs, 3), 9) + pad(fmt(r.p99AddedLatencyMs, 2), 8)
                         + pad(vblank ? "\(r.avoidableDrops)" : "n/a", 7) + pad(vblank ? "\(r.preemptedDrops)" : "n/a", 9) + pad("\(r.drops)", 7)
                         + pad(vblank ? "\(r.repeats) [\(r.oracleRepeats)]" : "-", 13) + counters)
            if r.violationCount > 0 {
                lines.append("    \(name): \(r.violationCount) invariant violations, first: \(r.violations.first ?? "")")
            }
        }
        if !vblank {
            let seconds = Double(paced.durationNs) / 1e9
            lines.append("    commits/s: pacer \(fmt(Double(paced.commits) / seconds, 1)), arrival \(fmt(Double(baseline.commits) / seconds, 1)), "
                         + "stream \(fmt(1e9 / Double(scenario.streamIntervalNs), 2)) fps; next() calls per frame: pacer \(fmt(Double(paced.nextCalls) / Double(paced.frames), 2))")
        }
        if vblank {
            worstMean = max(worstMean, paced.meanAddedLatencyMs)
            avoidable += paced.avoidableDrops
        }
        violations += paced.violationCount
    }
    lines.append("  pacer on vblank displays: worst mean added latency \(fmt(worstMean, 3)) ms (target ≤ 0.3), "
                 + "avoidable drops \(avoidable) (target 0), invariant violations \(violations)")
    // The same traces without the 0.5 % scheduling tail: what remains is the policy's own cost.
    var calmWorst = 0.0
    var calmAvoidable = 0
    for var scenario in PacerScenario.standard(frames: frames) where scenario.refreshNs != nil {
        scenario.wakeTailFraction = 0
        let r = PacerSimulation.run(scenario, seeds: seeds) { $0.flipPacer() }
        calmWorst = max(calmWorst, r.meanAddedLatencyMs)
        calmAvoidable += r.avoidableDrops
    }
    lines.append("  same traces, no wake-up tail: worst mean added latency \(fmt(calmWorst, 3)) ms, avoidable drops \(calmAvoidable)")
    return lines
}

private func pad(_ s: String, _ width: Int) -> String { s + String(repeating: " ", count: max(1, width - s.count)) }

private func fmt(_ x: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let v = (x * scale).rounded() / scale
    var text = "\(v)"
    if let dot = text.firstIndex(of: ".") {
        let have = text.distance(from: dot, to: text.endIndex) - 1
        if have < decimals { text += String(repeating: "0", count: decimals - have) }
    } else if decimals > 0 {
        text += "." + String(repeating: "0", count: decimals)
    }
    return text
}
