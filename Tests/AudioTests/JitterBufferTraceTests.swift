import Testing
import Audio
import AudioSimulation

/// The adaptive jitter buffer on seeded traces (issue 13 item 8, unit part). Every run is also
/// checked by `AudioSimulation` itself (`violations`): each sequence number settled exactly once
/// and in order, nothing played that had not arrived, every arrival's late/duplicate verdict
/// against the packet's fate, no stall after playout started, quiet only past the concealment
/// bound, and the buffer's counters against what was output.
@Suite struct JitterBufferTraceTests {
    static let frameNs: Int64 = 5_000_000

    private func run(_ scenario: AudioScenario, seed: UInt64) -> (AudioSimulationResult, AudioTrace) {
        let trace = AudioTrace(scenario, seed: seed)
        return (AudioSimulation.runAdaptive(trace, phaseSeed: seed), trace)
    }

    /// Every packet the network lost inside the settled run was concealed exactly once: it is
    /// one of the buffer's lost packets (its own PLC period, or a waiting period it covered),
    /// and those add up with the concealed time.
    private func expectLossAccounted(_ r: AudioSimulationResult, _ trace: AudioTrace) {
        let first = r.settledFirst ?? 0
        let networkLost = (first..<r.settledEnd).filter { !trace.delivered[$0] }.count
        let recoveredFromRED = r.recoveredSeqs.filter { !trace.delivered[$0] }.count
        #expect(r.lostInNetwork == networkLost - recoveredFromRED)
        let s = r.stats!
        #expect(s.lostPackets == r.lostInNetwork + r.lostButDelivered)
        #expect(s.lostPackets == r.lostConcealed + r.lostCovered)
        #expect(r.late == r.lateArrivals)
        #expect(Int64(r.concealed + r.muted) * Self.frameNs == s.concealedNs + s.mutedNs)
        #expect(s.concealedNs + s.mutedNs >= Int64(s.lostPackets) * Self.frameNs + s.insertedNs)
    }

    @Test(arguments: 0..<3)
    func cleanLANPlaysEverythingWithinTenMilliseconds(seed: UInt64) {
        let (r, trace) = run(.cleanLAN(seconds: 60), seed: seed)
        #expect(r.violationCount == 0, "\(r.violations)")
        #expect(r.concealed + r.muted == 0)
        #expect(r.delayPercentileMs(0.5) <= 10)
        #expect(r.delayPercentileMs(1) <= 25)  // the start, at the 20 ms initial target
        #expect(r.late == 0 && r.duplicates == 0 && r.overflowDrops == 0)
        #expect(r.played == r.settledEnd - (r.settledFirst ?? 0))
        expectLossAccounted(r, trace)
    }

    @Test(arguments: [0.0, 0.01], 0..<2)
    func wifiBurstsGrowTheDelayQuicklyAndConcealLittle(loss: Double, seed: UInt64) {
        let (r, trace) = run(.wifi(seconds: 120, loss: loss), seed: seed)
        #expect(r.violationCount == 0, "\(r.violations)")
        #expect(r.concealedPercent <= loss * 100 + 0.5)
        #expect(r.delayPercentileMs(0.5) <= 40)
        #expect(r.delayPercentileMs(1) <= 120 + 5)  // bounded by the largest target
        #expect(r.overflowDrops == 0)
        expectLossAccounted(r, trace)
        // Bursts are ridden out, not dropped: nearly every packet that arrived is played.
        #expect(r.lostButDelivered <= r.played / 500)
    }

    @Test(arguments: [0.01, 0.05])
    func randomLossIsConcealedOncePerPacket(loss: Double) {
        var scenario = AudioScenario.cleanLAN(seconds: 120)
        scenario.lossFraction = loss
        let (r, trace) = run(scenario, seed: 7)
        #expect(r.violationCount == 0, "\(r.violations)")
        expectLossAccounted(r, trace)
        #expect(r.lostButDelivered == 0 && r.late == 0)
        // One PLC period per lost packet, and next to no waiting that stood for nobody.
        let s = r.stats!
        #expect(s.insertedNs <= Int64(r.periodsAfterStart / 1000) * Self.frameNs)
        #expect(abs(r.concealedPercent - Double(r.lostInNetwork) / Double(r.periodsAfterStart) * 100) < 0.1)
        #expect(r.delayPercentileMs(0.5) <= 10)
    }

    @Test func redRecoversIsolatedLosses() {
        var scenario = AudioScenario.cleanLAN(seconds: 120)
        scenario.lossFraction = 0.05
        scenario.red = true
        let (r, trace) = run(scenario, seed: 3)
        #expect(r.violationCount == 0, "\(r.violations)")
        expectLossAccounted(r, trace)
        // Both of two consecutive packets lost (0.25 %) cannot be recovered; the rest can, once
        // the first loss raised the target by a packet.
        #expect(r.recovered >= r.lostInNetwork * 8)
        #expect(r.concealedPercent <= 0.6)
        #expect(r.delayPercentileMs(0.5) <= 12)
    }

    @Test(arguments: 0..<2)
    func reorderedAndDuplicatedPacketsAreCounted(seed: UInt64) {
        var scenario = AudioScenario.cleanLAN(seconds: 120)
        scenario.reorderFraction = 0.02
        scenario.duplicateFraction = 0.01
        let (r, trace) = run(scenario, seed: seed)
        #expect(r.violationCount == 0, "\(r.violations)")  // includes every verdict vs ground truth
        #expect(r.duplicates == r.duplicateArrivals && r.duplicates > 0)
        #expect(r.late == r.lateArrivals)
        #expect(r.lostInNetwork == 0)
        expectLossAccounted(r, trace)
        // Reordering raises the target to cover it: few packets end up late.
        #expect(r.lostButDelivered <= r.played / 1000 + 5)
        #expect(r.delayPercentileMs(0.99) <= 25)
    }

    @Test(arguments: 0..<2)
    func outageIsConcealedBrieflyThenQuietAndResyncs(seed: UInt64) {
        var scenario = AudioScenario.cleanLAN(seconds: 60)
        scenario.outageStartNs = 30_000_000_000
        let (r, trace) = run(scenario, seed: seed)
        #expect(r.violationCount == 0, "\(r.violations)")  // includes: PLC never past its bound
        expectLossAccounted(r, trace)
        #expect(r.lostInNetwork == 100)
        #expect(r.concealed == 16)  // 80 ms of PLC, then quiet
        #expect(r.muted >= 83 && r.muted <= 86)
        #expect(r.fadeOuts == 1 && r.fadeIns == 1)
        // Back at the old delay at once: the quiet periods stood for the lost packets.
        #expect(r.stats!.insertedNs <= 2 * Self.frameNs)
        #expect(r.overflowDrops == 0)
        #expect(r.delayAfterWarmupMaxNs <= 10_000_000)
    }

    /// ±200 ppm between the host's clock and the DAC's for a simulated hour: the level stays in
    /// a band around its target the whole time, without concealment.
    @Test(arguments: [200.0, -200.0])
    func dacDriftIsHeldForAnHour(ppm: Double) {
        var scenario = AudioScenario.cleanLAN(seconds: 3600)
        scenario.dacPpm = ppm
        let (r, trace) = run(scenario, seed: 11)
        #expect(r.violationCount == 0, "\(r.violations)")
        #expect(r.concealed + r.muted == 0)
        #expect(r.levelErrorMinNs >= -1_500_000 && r.levelErrorMaxNs <= 1_500_000)
        #expect(abs(r.delayDriftMs) < 0.5 && r.minuteMeanDelayMs.count >= 59)
        #expect(r.minuteDelaySpreadMs < 1)
        // The drift is what was stretched: 200 ppm of 48 kHz is 9.6 frames per second.
        let net = Double(r.insertedFrames - r.droppedFrames)
        let expected = ppm * 1e-6 * 48_000 * 3600
        #expect(abs(net - expected) < 0.05 * abs(expected) + 1500)  // + the start, from 20 ms to target
        expectLossAccounted(r, trace)
    }

    /// The same drift on the sender's side: the reference transit creeps with it.
    @Test(arguments: [200.0, -200.0])
    func hostClockDriftIsHeld(ppm: Double) {
        var scenario = AudioScenario.cleanLAN(seconds: 600)
        scenario.hostPpm = ppm
        let (r, _) = run(scenario, seed: 5)
        #expect(r.violationCount == 0, "\(r.violations)")
        #expect(r.concealed + r.muted == 0)
        #expect(r.levelErrorMinNs >= -1_500_000 && r.levelErrorMaxNs <= 1_500_000)
        #expect(abs(r.delayDriftMs) < 1)
    }

    /// The benchmark's baseline behaves as described: a constant ~60 ms, no drift control.
    @Test func fixedBaselineHoldsSixtyMillisecondsAndUnderrunsUnderDrift() {
        let clean = AudioTrace(.cleanLAN(seconds: 60), seed: 1)
        let b = AudioSimulation.runBaseline(clean, phaseSeed: 1)
        #expect(b.delayPercentileMs(0.5) >= 55 && b.delayPercentileMs(0.5) <= 61)
        #expect(b.concealed + b.muted == 0)
        var fast = AudioScenario.cleanLAN(seconds: 600)
        fast.dacPpm = 200
        let drained = AudioSimulation.runBaseline(AudioTrace(fast, seed: 1), phaseSeed: 1)
        #expect(drained.muted > 0)  // 0.2 ms/s drains 55 ms in under 5 minutes
    }
}
