import Foundation
import LinkScenario

/// The rate loop against a bottleneck on the real path (issue 39): pf-testhost (its default
/// 30 Mbit/s, following SetBitrate with filler) → pf-relay (a 100 ms drop-tail queue at a capacity
/// schedule) → punktfunk-kiosk (headless, software rung), all from this binary's build folder. The
/// fixed-rate kiosk (`--bitrate-mode fixed`) is the baseline, over the same schedule in the same run.
/// Each figure is printed beside its target from the issue; every shown picture is judged by
/// libavcodec's clean decode of what the host sent.
struct RateBench {
    /// Seconds per stretch of the capacity schedule (40 in the full run).
    let stretch: Double

    func report() throws -> [String] {
        let bin = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let needed = ["pf-testhost", "pf-relay", "punktfunk-kiosk"]
        guard needed.allSatisfy({ FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent($0).path) }) else {
            return ["rate bench: skipped (build pf-testhost, pf-relay and punktfunk-kiosk in \(bin.path) first)"]
        }
        var lines: [String] = []
        let s = stretch
        var drop = RateScenario()
        drop.name = "rate-bench"
        drop.seconds = 3 * s
        drop.capacity = "0:40000,\(fmt(s)):10000,\(fmt(2 * s)):25000"
        let auto = try drop.run(binaries: bin)
        var fixedScenario = drop
        fixedScenario.bitrateMode = "fixed"
        let fixed = try fixedScenario.run(binaries: bin)
        lines.append("rate: capacity 40 → 10 → 25 Mbit/s at 0/\(fmt(s))/\(fmt(2 * s)) s, 100 ms drop-tail queue, host starts at 30 Mbit/s, 60 fps; "
                     + "auto = the rate loop, fixed = the baseline, same run")
        lines += table(auto: auto, fixed: fixed, s: s)

        var lossy = RateScenario()
        lossy.name = "rate-bench-loss"
        lossy.seconds = 1.5 * s
        lossy.capacity = "0:40000"
        lossy.randomLossPercent = 1
        lossy.kioskBitrateKbps = 30_000
        let loss = try lossy.run(binaries: bin)
        let lossMinutes = (lossy.seconds - 2) / 60
        lines.append(String(format: "rate: 1 %% random loss (FEC repairs it), capacity 40, ceiling = start 30 Mbit/s, %.0f s: %d cuts (%.1f a minute; target ≤ 1), median asked %.1f Mbit/s = %.2f× the start (target ≥ 0.7), %d broken pictures",
                            lossy.seconds, loss.cuts(from: 2, to: lossy.seconds), Double(loss.cuts(from: 2, to: lossy.seconds)) / lossMinutes,
                            loss.medianAskedKbps(from: 2, to: lossy.seconds) / 1000, loss.medianAskedKbps(from: 2, to: lossy.seconds) / 30_000,
                            loss.broken.count))

        var outage = RateScenario()
        outage.name = "rate-bench-outage"
        outage.seconds = 2.25 * s
        outage.capacity = "0:40000"
        outage.outages = ["150@\(fmt(0.75 * s))"]
        outage.kioskBitrateKbps = 30_000
        let out = try outage.run(binaries: bin)
        let at = [0.75 * s, 1.5 * s]
        let cutsNear = at.map { out.cuts(from: $0, to: $0 + 5) }
        let back = at.map { t in out.askedAtOrAbove(30_000 * 0.95, after: t + 0.2) }
        lines.append("rate: a 150 ms outage every \(fmt(0.75 * s)) s, capacity 40, ceiling = start 30 Mbit/s: cuts per outage "
                     + cutsNear.map(String.init).joined(separator: ", ") + " (target ≤ 1, aim 0); back at ≥ 95 % of the start "
                     + back.map { $0.map { String(format: "%.1f s", $0) } ?? "never" }.joined(separator: ", ")
                     + " after (target ≤ 10 s); frozen around each outage (±2 s) "
                     + at.map { String(format: "%.1f %%", 100 * out.frozenFraction(from: $0 - 2, to: $0 + 2)) }.joined(separator: ", ")
                     + "; \(out.broken.count) broken pictures")
        var dozing = RateScenario()
        dozing.name = "rate-bench-head"
        dozing.seconds = 0.5 * s
        dozing.capacity = "0:40000"
        dozing.doze = "5:2"
        dozing.kioskBitrateKbps = 30_000
        let head = try dozing.run(binaries: bin)
        let shaped = head.rateLines.first { $0.verdict == "shape" }.map { (head.seconds($0.monoNs) - 2) / 0.75 }
        lines.append("rate: head loss from 2 s on (a dozing receiver: each frame's first 2 datagrams lost, FEC repairs them): shape = 1 "
                     + (shaped.map { String(format: "%.1f windows", $0) } ?? "never") + " after it began (target ≤ 2), "
                     + "\(head.cuts(from: 0, to: dozing.seconds + 1)) cuts (target 0), \(head.broken.count) broken pictures")
        return lines
    }

    private func table(auto a: RateScenario.Outcome, fixed f: RateScenario.Outcome, s: Double) -> [String] {
        func pct(_ v: Double) -> String { String(format: "%5.1f %%", 100 * v) }
        func secs(_ v: Double?) -> String { v.map { String(format: "%5.2f s", $0) } ?? "  never" }
        func row(_ name: String, _ target: String, _ value: (RateScenario.Outcome) -> String) -> String {
            "  " + name.padding(toLength: 52, withPad: " ", startingAt: 0) + " auto " + value(a).padding(toLength: 15, withPad: " ", startingAt: 0)
                + " fixed " + value(f).padding(toLength: 15, withPad: " ", startingAt: 0) + " target " + target
        }
        let end = 3 * s
        let steady = [(10.0, s), (s + 10, 2 * s), (2 * s + 10, end)]
        let elsewhere: (RateScenario.Outcome) -> Double = { o in
            let spans = [(5.0, s), (s + 5, 2 * s), (2 * s + 5, end - 0.5)]
            let total = spans.reduce(0.0) { $0 + ($1.1 - $1.0) }
            return spans.reduce(0.0) { $0 + o.frozenFraction(from: $1.0, to: $1.1) * ($1.1 - $1.0) } / total
        }
        return [
            row("asked ≤ capacity after the drop", "≤ 2.5 s") { secs($0.askedAtOrBelow(10_000, after: s)) },
            row("host wire ≤ 1.1× capacity after the drop", "≤ 3 s") { secs($0.hostWireSettled(atOrBelow: 11_000, after: s, until: 2 * s)) },
            row("queueing delay p95 once adapted (drop+5 s … rise)", "≤ 30 ms") { String(format: "%5.1f ms", $0.queueDelayMs(0.95, from: s + 5, to: 2 * s)) },
            row("bottleneck drops once adapted", "≤ 0.5 %") { pct($0.dropFraction(from: s + 5, to: 2 * s)) },
            row("frozen in the 5 s after the drop", "≤ 30 % (aim 15)") { pct($0.frozenFraction(from: s, to: s + 5)) },
            row("frozen elsewhere", "≤ 2 %") { pct(elsewhere($0)) },
            row("broken pictures shown", "0") { "\($0.broken.count) of \($0.shown.count)" },
            row("asked ≥ 20 Mbit/s after 10 → 25", "≤ 25 s") { secs($0.askedAtOrAbove(20_000, after: 2 * s)) },
            row("utilisation at 25 Mbit/s once ≥ 20 asked (≤ 25 s)", "≥ 80 %") { o in
                pct(o.utilisation(from: 2 * s + min(25, o.askedAtOrAbove(20_000, after: 2 * s) ?? 25), to: end - 0.5))
            },
            row("most cuts in a steady 30 s", "≤ 2") { o in "\(steady.map { o.cuts(from: $0.0, to: min($0.0 + 30, $0.1)) }.max() ?? 0)" },
            row("longest run of windows asked > 1.15× capacity", "≤ 2") { "\($0.windowsAbove(1.15, from: 1, to: end))" },
            row("host wire, mean of each stretch (Mbit/s)", "—") { o in
                [(1.0, s), (s, 2 * s), (2 * s, end)].map { String(format: "%.1f", o.hostWireKbps(from: $0.0, to: $0.1) / 1000) }.joined(separator: "/")
            },
        ]
    }

    private func fmt(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(format: "%.2f", v) }
}
