import Testing
@testable import Display
import PunktfunkWire
import PacerSimulation

/// Property tests of `FlipPacer` over the simulated traces of `PacerSimulation` (the same
/// scenarios `punktfunk-bench pacer` measures), plus the simulator's own building blocks.
@Suite struct PacerSimulationTests {
    static let scenarios = PacerScenario.standard(frames: 900)

    @Test(arguments: PacerSimulationTests.scenarios.indices)
    func invariantsHoldOnEveryScenario(index: Int) {
        let scenario = Self.scenarios[index]
        let paced = PacerSimulation.run(scenario, seeds: 3) { $0.flipPacer() }
        let baseline = PacerSimulation.run(scenario, seeds: 3) { _ in CommitOnArrivalPacer() }
        // No two commits in flight, no frame committed twice, no release of an on-screen or
        // in-flight buffer, no spin, no leaked frame.
        #expect(paced.violationCount == 0, "\(scenario.name): \(paced.violations)")
        #expect(baseline.violationCount == 0, "\(scenario.name): \(baseline.violations)")
        #expect(paced.displayed + paced.drops == paced.frames)
        #expect(paced.policyStats.committed == UInt64(paced.commits))
        #expect(paced.policyStats.dropped == UInt64(paced.drops))
        // `next` is called a bounded number of times per frame (a wake-up per event, no spinning).
        #expect(Double(paced.nextCalls) / Double(paced.frames) < 6)
        if scenario.refreshNs != nil {
            #expect(paced.meanAddedLatencyMs <= 0.3, "\(scenario.name): mean \(paced.meanAddedLatencyMs) ms")
            #expect(paced.meanAddedLatencyMs <= baseline.meanAddedLatencyMs + 0.01)
            // Every injected missed vblank on a commit the grid predicted is counted.
            #expect(paced.policyStats.latchMisses <= UInt64(paced.injectedLatchMisses))
        }
    }

    @Test(arguments: PacerSimulationTests.scenarios.indices)
    func noAvoidableDropsUnderAnyWakeUpModel(index: Int) {
        let base = Self.scenarios[index]
        guard base.refreshNs != nil else { return }  // avoidable drops are defined for vblank displays only
        // The ms-poll scenario keeps its own model (0–1 ms); the others run under each measured one.
        let models = base.wake.name == WakeModel.millisecondPoll.name ? [base.wake] : [.calm, .realtimeBusy, .normalBusy]
        for model in models {
            var scenario = base
            scenario.wake = model
            let paced = PacerSimulation.run(scenario, seeds: 3) { $0.flipPacer() }
            // Every frame that could have been shown and was not is a late-wake drop: its hold
            // deadline's wake-up ran past the latch point.
            #expect(paced.avoidableDrops == 0, "\(scenario.name), \(model.name): frames \(paced.avoidableDropIds)")
            if model.name == WakeModel.calm.name || model.name == WakeModel.millisecondPoll.name {
                // Bounded lateness: the learned guard covers every wake-up.
                #expect(paced.guardExceededDrops + paced.stallDrops == 0, "\(scenario.name), \(model.name)")
            }
        }
    }

    @Test(arguments: PacerSimulationTests.scenarios.indices)
    func everyRefreshThatCouldShowANewFrameShowsOne(index: Int) {
        var scenario = Self.scenarios[index]
        guard scenario.refreshNs != nil, scenario.missedVblankFraction == 0 else { return }
        scenario.wake = .calm
        let paced = PacerSimulation.run(scenario, seeds: 3) { $0.flipPacer() }
        // A late frame gives its refresh to a newer, on-time one instead of starting a chain of
        // late frames; refreshes without a new frame are those no frame could reach (oracle
        // repeats), give or take the refreshes before the grid is learned.
        #expect(paced.repeats <= paced.oracleRepeats + paced.oracleRepeats / 50 + 6,
                "\(scenario.name): repeats \(paced.repeats), oracle \(paced.oracleRepeats)")
        #expect(paced.p99AddedLatencyMs == 0, "\(scenario.name)")
    }

    @Test func pacerRemovesTheBaselinesExtraRefreshAtTheLatchPoint() {
        // 60 fps on 60 Hz with 2 ms jitter: the baseline commits on arrival and then holds the
        // next frame a whole refresh whenever arrivals straddle the latch point.
        let scenario = Self.scenarios[0]
        let paced = PacerSimulation.run(scenario, seeds: 4) { $0.flipPacer() }
        let baseline = PacerSimulation.run(scenario, seeds: 4) { _ in CommitOnArrivalPacer() }
        #expect(baseline.meanAddedLatencyMs > 1)
        #expect(paced.meanAddedLatencyMs * 10 < baseline.meanAddedLatencyMs)
    }

    @Test func missedVblanksAreCounted() {
        var scenario = PacerScenario(name: "vkms", frames: 1200, streamIntervalNs: PacerScenario.hz60,
                                     refreshNs: 16_665_000, jitterNs: 1_000_000)
        scenario.missedVblankFraction = 0.05
        scenario.wake = .calm
        scenario.tellNominalRefresh = false
        var pacer = scenario.flipPacer()
        let result = PacerSimulation.run(scenario, seed: 3, policy: &pacer)
        #expect(result.injectedLatchMisses > 20)
        // Only the commits issued before the grid was learned escape the count.
        #expect(result.policyStats.latchMisses + 2 >= UInt64(result.injectedLatchMisses))
        #expect(result.policyStats.latchMisses <= UInt64(result.injectedLatchMisses))
        #expect(pacer.refreshIntervalNs == 16_665_000)
    }

    @Test func repeatsMatchTheDisplayWhenTheStreamNeverPauses() {
        // 30 fps on 60 Hz: every frame shown for two refreshes; the pacer's count equals the
        // simulator's ground truth except for the refreshes before the grid was learned.
        var scenario = PacerScenario(name: "30 on 60", frames: 600, streamIntervalNs: 2 * PacerScenario.hz60,
                                     refreshNs: PacerScenario.hz60, jitterNs: 1_000_000)
        scenario.wake = .calm
        var pacer = scenario.flipPacer()
        let result = PacerSimulation.run(scenario, seed: 1, policy: &pacer)
        #expect(result.repeats >= 590)
        #expect(Int(result.policyStats.repeats) <= result.repeats)
        #expect(Int(result.policyStats.repeats) + 3 >= result.repeats)
        #expect(result.drops == 0)
    }

    @Test func immediateFlipDeviceCommitsAtTheStreamRate() {
        let scenario = PacerScenario(name: "bochs", frames: 1200, streamIntervalNs: PacerScenario.hz60,
                                     refreshNs: nil, jitterNs: 2_000_000)
        var pacer = scenario.flipPacer()
        let result = PacerSimulation.run(scenario, seed: 5, policy: &pacer)
        #expect(!pacer.hasRealVblank)
        #expect(result.violationCount == 0, "\(result.violations)")
        let perSecond = Double(result.commits) / (Double(result.durationNs) / 1e9)
        #expect(perSecond > 59 && perSecond < 61)
        #expect(result.commits == result.frames)
        #expect(Double(result.nextCalls) / Double(result.frames) < 4)
    }

    @Test func simulationIsDeterministicPerSeed() {
        let scenario = Self.scenarios[6]
        var a = scenario.flipPacer()
        var b = scenario.flipPacer()
        let first = PacerSimulation.run(scenario, seed: 9, policy: &a)
        let second = PacerSimulation.run(scenario, seed: 9, policy: &b)
        #expect(first.addedLatencyNs == second.addedLatencyNs)
        #expect(first.policyStats == second.policyStats)
    }

    @Test func wakeModelDrawsItsQuantiles() {
        let model = WakeModel.realtimeBusy
        for point in model.points.dropLast() { #expect(model.delayNs(at: point.p) == point.ns) }
        #expect(model.delayNs(at: 0.25) == (model.points[0].ns + model.points[1].ns) / 2)
        // Drawn through the simulator's generator, the sample's quantiles are the model's.
        var rng = SplitMix64(seed: 4)
        let draws = (0..<100_000).map { _ in model.delayNs(at: rng.unit()) }.sorted()
        for point in model.points where point.p > 0 && point.p <= 0.99 {
            let drawn = Double(draws[Int(point.p * 100_000)])
            #expect(abs(drawn - Double(point.ns)) <= 0.05 * Double(point.ns), "p\(point.p): \(drawn) vs \(point.ns)")
        }
    }

    @Test func splitMix64MatchesTheReferenceSequence() {
        // Reference output of splitmix64.c (Vigna) for state 0.
        var rng = SplitMix64(seed: 0)
        #expect(rng.next() == 0xE220_A839_7B1D_CDAF)
        #expect(rng.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(rng.next() == 0x06C4_5D18_8009_454F)
    }

    @Test func arrivalsAreInDecodeOrderWithBacklogsAfterStalls() {
        var scenario = PacerScenario(name: "stalls", frames: 2000, streamIntervalNs: PacerScenario.hz60,
                                     refreshNs: PacerScenario.hz60, jitterNs: 1_000_000)
        scenario.stallFraction = 0.02
        scenario.stallNs = 50_000_000
        var rng = SplitMix64(seed: 2)
        let ready = PacerSimulation.arrivals(scenario, rng: &rng)
        #expect(ready.count == 2000)
        var backToBack = 0
        for i in 1..<ready.count {
            #expect(ready[i] >= ready[i - 1] + PacerSimulation.backlogDecodeNs)
            if ready[i] - ready[i - 1] == PacerSimulation.backlogDecodeNs { backToBack += 1 }
        }
        #expect(backToBack > 20)
    }
}
