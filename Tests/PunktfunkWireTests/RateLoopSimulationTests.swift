import XCTest
@testable import PunktfunkWire

/// The rate loop against `RateSimulation`'s 100 ms drop-tail bottleneck, 1080p60, host starting at
/// 30 Mbit/s. Targets are the benchmark's, stated in each test.
final class RateLoopSimulationTests: XCTestCase {
    private static let stepDown: RateSimulation.Result = {
        var s = RateSimulation.Scenario()
        s.durationMs = 110_000
        s.capacity = [(0, 40_000), (40_000, 10_000), (80_000, 25_000)]
        return RateSimulation.run(s)
    }()

    func testCapacityDropIsFollowedWithin2_5s() throws {
        let r = Self.stepDown
        let fit = try XCTUnwrap(r.firstFit(after: 40_000))
        XCTAssertLessThanOrEqual(fit - 40_000, 2_500)
        // Frozen ≤ 30 % of the 5 s after the drop.
        XCTAssertLessThanOrEqual(r.frozenShare(from: 40_000, to: 45_000, rttMs: 20), 0.30)
    }

    func testAdaptedStretchKeepsTheQueueShortAndLossless() {
        let r = Self.stepDown
        XCTAssertLessThanOrEqual(RateSimulation.Result.p95(r.queueDelays(from: 45_000, to: 80_000)), 30)
        XCTAssertLessThanOrEqual(r.dropShare(from: 45_000, to: 80_000), 0.005)
    }

    func testCapacityRiseIsFoundWithin25s() {
        let r = Self.stepDown
        let peak = r.asked[80_000..<105_000].max() ?? 0
        XCTAssertGreaterThanOrEqual(peak, 20_000)
        // ≥ 80 % utilisation once found.
        let tail = r.asked[100_000..<110_000].map(Double.init)
        XCTAssertGreaterThanOrEqual(tail.reduce(0, +) / Double(tail.count), 0.8 * 25_000)
    }

    func testSteadyStretchesCutRarelyAndNeverRideFarAboveCapacity() {
        let r = Self.stepDown
        XCTAssertLessThanOrEqual(r.maxCuts(inAny: 30_000, from: 5_000, to: 40_000), 2)
        XCTAssertLessThanOrEqual(r.maxCuts(inAny: 30_000, from: 43_000, to: 80_000), 2)
        // Never above 1.15× capacity for more than 2 windows.
        XCTAssertLessThanOrEqual(r.longestAbove(1.15), 1_500)
    }

    func testRepairedRandomLossDoesNotCut() {
        var s = RateSimulation.Scenario()
        s.durationMs = 120_000
        s.capacity = [(0, 40_000)]
        s.randomLossPPM = 10_000
        let r = RateSimulation.run(s)
        // ≤ 1 cut a minute, median rate ≥ 0.7× the start.
        XCTAssertLessThanOrEqual(r.cuts(from: 0, to: 120_000), 2)
        let sorted = r.asked.sorted()
        XCTAssertGreaterThanOrEqual(sorted[sorted.count / 2], 21_000)
        XCTAssertEqual(r.loop.lastDecision?.reason == .loss(ppm: 0), false)
    }

    func testShortOutagesAreNoCapacityVerdict() {
        var s = RateSimulation.Scenario()
        s.durationMs = 100_000
        s.capacity = [(0, 40_000)]
        s.outageEveryMs = 30_000
        s.outageFirstMs = 15_000
        let r = RateSimulation.run(s)
        for outage in stride(from: 15_000, to: 100_000, by: 30_000) {
            // ≤ 1 cut per outage (aim 0), and the rate back within 10 s.
            XCTAssertLessThanOrEqual(r.cuts(from: outage, to: outage + 5_000), 1, "outage at \(outage)")
            let before = r.asked[outage - 1]
            let back = r.asked[(outage + 10_000)..<min(outage + 10_001, r.asked.count)].first ?? 0
            XCTAssertGreaterThanOrEqual(Double(back), 0.9 * Double(before), "outage at \(outage)")
        }
        XCTAssertGreaterThanOrEqual(r.loop.outages, 3)
    }

    func testHeadLossShapesWithinTwoWindowsAndNeverCuts() {
        var s = RateSimulation.Scenario()
        s.durationMs = 10_000
        s.capacity = [(0, 100_000)]
        s.headLossPerWindow = 9
        let r = RateSimulation.run(s)
        XCTAssertEqual(r.windows.prefix(2).last?.shape, 1)
        XCTAssertEqual(r.loop.cuts, 0)
    }

    func testCeilingAndFloorHold() {
        var s = RateSimulation.Scenario()
        s.durationMs = 30_000
        s.capacity = [(0, 100_000)]
        s.configuration = .init(startKbps: 10_000, ceilingKbps: 20_000)
        let high = RateSimulation.run(s)
        XCTAssertEqual(high.asked.max(), 20_000)
        XCTAssertEqual(high.asked.last, 20_000)

        s.capacity = [(0, 1_200)]
        s.configuration = .init(startKbps: 10_000)
        let low = RateSimulation.run(s)
        XCTAssertEqual(low.asked.min(), RateLoop.floorKbps)
    }

    func testFixedModeRidesItsRate() {
        var s = RateSimulation.Scenario()
        s.durationMs = 20_000
        s.capacity = [(0, 10_000)]
        s.configuration = .init(startKbps: 30_000, mode: .fixed)
        let r = RateSimulation.run(s)
        XCTAssertEqual(Set(r.asked), [30_000])
        XCTAssertEqual(r.loop.asks, 0)
        XCTAssertEqual(r.loop.linkKbps, 0)
    }
}
