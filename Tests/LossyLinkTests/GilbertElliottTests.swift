import Testing
@testable import LossyLink

/// The burst-loss chain against its formulas: long-run loss π_bad·lossBad + π_good·lossGood with
/// π_bad = p/(p + r), and mean burst 1/r steps (per packet, or per ms when time-driven).
@Suite struct GilbertElliottTests {
    /// Lengths of the runs of `true` in a sequence.
    static func runs(_ drops: some Sequence<Bool>) -> [Int] {
        var out: [Int] = []
        var current = 0
        for drop in drops {
            if drop { current += 1 } else if current > 0 { out.append(current); current = 0 }
        }
        if current > 0 { out.append(current) }
        return out
    }

    static func mean(_ values: [Int]) -> Double { Double(values.reduce(0, +)) / Double(values.count) }

    @Test func perPacketLossAndBurstMatchTheFormulas() {
        let parameters = GilbertElliott.Parameters(p: 0.01, r: 0.2)
        var model = GilbertElliott(parameters, seed: 7)
        let drops = (0..<1_000_000).map { _ in model.shouldDrop(now: 0) }
        let loss = Double(drops.count { $0 }) / Double(drops.count)
        #expect(abs(parameters.stationaryLoss - 0.01 / 0.21) < 1e-12)
        #expect(abs(loss / parameters.stationaryLoss - 1) < 0.03, "loss \(loss) vs \(parameters.stationaryLoss)")
        let burst = Self.mean(Self.runs(drops))  // lossBad 1, lossGood 0: a run of drops is a stay in bad
        #expect(abs(burst / parameters.meanBurstSteps - 1) < 0.03, "burst \(burst) vs \(parameters.meanBurstSteps)")
    }

    @Test func lossInBothStatesMatchesTheStationaryMix() {
        let parameters = GilbertElliott.Parameters(p: 0.05, r: 0.3, lossGood: 0.01, lossBad: 0.6)
        var model = GilbertElliott(parameters, seed: 11)
        var dropped = 0, bad = 0
        for _ in 0..<1_000_000 {
            if model.shouldDrop(now: 0) { dropped += 1 }
            if model.isBad { bad += 1 }
        }
        let expected = 0.05 / 0.35 * 0.6 + 0.3 / 0.35 * 0.01
        #expect(abs(parameters.stationaryLoss - expected) < 1e-12)
        #expect(abs(Double(dropped) / 1e6 / expected - 1) < 0.03)
        #expect(abs(Double(bad) / 1e6 / parameters.stationaryBad - 1) < 0.03)
    }

    @Test func averageAndBurstConstructor() throws {
        let parameters = try #require(GilbertElliott.Parameters(averageLoss: 0.02, meanBurst: 20, unit: .millisecond))
        #expect(abs(parameters.stationaryLoss - 0.02) < 1e-12)
        #expect(abs(parameters.meanBurstSteps - 20) < 1e-9)
        #expect(parameters.lossGood == 0 && parameters.lossBad == 1 && parameters.unit == .millisecond)
        #expect(GilbertElliott.Parameters(averageLoss: 1, meanBurst: 20, unit: .packet) == nil)
        #expect(GilbertElliott.Parameters(averageLoss: 0.02, meanBurst: 0.5, unit: .packet) == nil)
        let independent = GilbertElliott.Parameters.independent(loss: 0.1)
        #expect(abs(independent.stationaryLoss - 0.1) < 1e-12)
    }

    /// Time-driven: 2 % in bursts of 20 ms, sampled every 0.5 ms and every 0.25 ms; a burst's
    /// duration in ms (dropped packets × spacing) averages 20 ms at both rates.
    @Test(arguments: [500_000, 250_000] as [UInt64])
    func timeDrivenBurstsLastTheAskedMilliseconds(spacingNs: UInt64) throws {
        let parameters = try #require(GilbertElliott.Parameters(averageLoss: 0.02, meanBurst: 20, unit: .millisecond))
        var model = GilbertElliott(parameters, seed: 3)
        let packets = 1_000_000_000_000 / Int(spacingNs)  // 1000 s of traffic
        let drops = (0..<packets).map { model.shouldDrop(now: 5_000_000_000 + UInt64($0) * spacingNs) }
        let loss = Double(drops.count { $0 }) / Double(packets)
        #expect(abs(loss / 0.02 - 1) < 0.1, "loss \(loss)")
        let durationsMs = Self.runs(drops).map { Double($0) * Double(spacingNs) / 1e6 }
        let meanMs = durationsMs.reduce(0, +) / Double(durationsMs.count)
        #expect(abs(meanMs / 20 - 1) < 0.1, "mean burst \(meanMs) ms over \(durationsMs.count) bursts")
    }

    /// Sparse packets (one per 50 ms) see the chain advanced many steps at once (closed form); the
    /// loss they see is still the stationary 2 %, and 50 ms apart they are nearly independent.
    @Test func sparsePacketsSeeTheStationaryLoss() throws {
        let parameters = try #require(GilbertElliott.Parameters(averageLoss: 0.02, meanBurst: 20, unit: .millisecond))
        var model = GilbertElliott(parameters, seed: 5)
        let drops = (0..<200_000).map { model.shouldDrop(now: UInt64($0) * 50_000_000) }
        let loss = Double(drops.count { $0 }) / Double(drops.count)
        #expect(abs(loss / 0.02 - 1) < 0.1, "loss \(loss)")
    }

    @Test func sameSeedSamePattern() {
        let parameters = GilbertElliott.Parameters(p: 0.1, r: 0.3)
        var a = GilbertElliott(parameters, seed: 42), b = GilbertElliott(parameters, seed: 42)
        var c = GilbertElliott(parameters, seed: 43)
        let pa = (0..<1000).map { _ in a.shouldDrop(now: 0) }
        #expect(pa == (0..<1000).map { _ in b.shouldDrop(now: 0) })
        #expect(pa != (0..<1000).map { _ in c.shouldDrop(now: 0) })
    }

    @Test func chainThatNeverMovesNeverLeavesItsState() {
        var always = GilbertElliott(.init(p: 1, r: 0, lossGood: 1, lossBad: 1), seed: 1)
        #expect((0..<100).allSatisfy { _ in always.shouldDrop(now: 0) })
        var never = GilbertElliott(.init(p: 0, r: 0), seed: 1)
        #expect(!(0..<100).contains { _ in never.shouldDrop(now: 0) })
    }
}
