import Foundation

/// What a `RateScenario` run says about the rate loop, on the relay's time line (seconds from its
/// first client datagram, when its capacity schedule starts). Each figure reads one process's own
/// log: the asked rate from the host's SetBitrate lines and the kiosk's rate log, the host's wire
/// rate from its per-second line, queueing delay, drops and delivery from the relay's queue log,
/// frozen and broken pictures from the picture log against libavcodec's clean decode.
extension RateScenario.Outcome {
    /// Seconds from the relay's origin.
    public func seconds(_ monoNs: UInt64) -> Double { Double(Int64(bitPattern: monoNs &- originNs)) / 1e9 }

    /// The bottleneck's capacity at `t`, kbps.
    public func capacityKbps(at t: Double) -> Double {
        scenario.schedule.last { $0.atS <= t }?.kbps ?? scenario.schedule.first?.kbps ?? 0
    }

    /// The asked rate in force at `t` (the newest SetBitrate the host received by then; the host's
    /// start rate before any), kbps.
    public func askedKbps(at t: Double) -> Double {
        setBitrates.last { seconds($0.monoNs) <= t }?.kbps ?? Double(scenario.hostStartKbps)
    }

    /// Seconds from `t` until the asked rate is ≤ `kbps` (nil: never in the run).
    public func askedAtOrBelow(_ kbps: Double, after t: Double) -> Double? {
        if askedKbps(at: t) <= kbps { return 0 }
        return setBitrates.first { seconds($0.monoNs) >= t && $0.kbps <= kbps }.map { seconds($0.monoNs) - t }
    }

    /// Seconds from `t` until the asked rate is ≥ `kbps` (nil: never).
    public func askedAtOrAbove(_ kbps: Double, after t: Double) -> Double? {
        if askedKbps(at: t) >= kbps { return 0 }
        return setBitrates.first { seconds($0.monoNs) >= t && $0.kbps >= kbps }.map { seconds($0.monoNs) - t }
    }

    /// Seconds from `t` to the end of the first whole host second whose wire rate, and every one
    /// after it until `until`, is ≤ `kbps` (nil: never settled).
    public func hostWireSettled(atOrBelow kbps: Double, after t: Double, until: Double) -> Double? {
        let span = hostWire.filter { seconds($0.monoNs) > t && seconds($0.monoNs) <= until }
        guard let k = span.indices.first(where: { i in span[i...].allSatisfy { $0.kbps <= kbps } }) else { return nil }
        return seconds(span[k].monoNs) - t
    }

    /// Queue samples (every 100 ms) in `[from, to)`.
    func queueSamples(_ from: Double, _ to: Double) -> [RateScenario.QueueSample] {
        queue.filter { seconds($0.monoNs) >= from && seconds($0.monoNs) < to }
    }

    /// Queueing delay's nearest-rank percentile `q` over `[from, to)`, ms.
    public func queueDelayMs(_ q: Double, from: Double, to: Double) -> Double {
        let v = queueSamples(from, to).map(\.queueMs).sorted()
        guard !v.isEmpty else { return 0 }
        return v[min(v.count, max(1, Int((q * Double(v.count)).rounded(.up)))) - 1]
    }

    /// Datagrams the bottleneck dropped over those it took in `[from, to)` (its sent bytes over the
    /// mean datagram size, plus the drops).
    public func dropFraction(from: Double, to: Double) -> Double {
        let samples = queueSamples(from, to)
        let drops = Double(samples.reduce(0) { $0 + $1.drops })
        let sent = samples.reduce(0.0) { $0 + $1.sentKbps * 100 / 8 / meanPacketBytes }
        return drops + sent > 0 ? drops / (drops + sent) : 0
    }

    /// What left the bottleneck over its capacity in `[from, to)`.
    public func utilisation(from: Double, to: Double) -> Double {
        let samples = queueSamples(from, to)
        guard !samples.isEmpty else { return 0 }
        let used = samples.reduce(0.0) { $0 + $1.sentKbps }
        let capacity = samples.reduce(0.0) { $0 + capacityKbps(at: seconds($1.monoNs)) }
        return capacity > 0 ? used / capacity : 0
    }

    /// The share of the frames the host sent in `[from, to)` whose picture never reached the
    /// screen (held by the re-anchor gate, withheld, or never complete): the picture was frozen.
    public func frozenFraction(from: Double, to: Double) -> Double {
        let shownFrames = Set(shown.map(\.frame))
        let span = sent.filter { seconds($0.monoNs) >= from && seconds($0.monoNs) < to }
        guard !span.isEmpty else { return 0 }
        return Double(span.filter { !shownFrames.contains($0.frame) }.count) / Double(span.count)
    }

    /// Rate-loop cuts logged in `[from, to)`.
    public func cuts(from: Double, to: Double) -> Int {
        rateLines.filter { $0.verdict == "cut" && seconds($0.monoNs) >= from && seconds($0.monoNs) < to }.count
    }

    /// The longest run of consecutive windows in `[from, to)` whose asked rate was above `factor`
    /// × the capacity.
    public func windowsAbove(_ factor: Double, from: Double, to: Double) -> Int {
        var longest = 0, run = 0
        for line in rateLines where seconds(line.monoNs) >= from && seconds(line.monoNs) < to {
            run = line.asked > factor * capacityKbps(at: seconds(line.monoNs)) ? run + 1 : 0
            longest = max(longest, run)
        }
        return longest
    }

    /// The median asked rate over the windows of `[from, to)`, kbps.
    public func medianAskedKbps(from: Double, to: Double) -> Double {
        let v = rateLines.filter { seconds($0.monoNs) >= from && seconds($0.monoNs) < to }.map(\.asked).sorted()
        return v.isEmpty ? askedKbps(at: from) : v[v.count / 2]
    }

    /// The mean of the host's per-second wire rate over `[from, to)`, kbps.
    public func hostWireKbps(from: Double, to: Double) -> Double {
        let v = hostWire.filter { seconds($0.monoNs) > from && seconds($0.monoNs) <= to }.map(\.kbps)
        return v.isEmpty ? 0 : v.reduce(0, +) / Double(v.count)
    }
}
