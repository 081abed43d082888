import Testing
@testable import Screen

@Suite struct StatsWindowTests {
    let second: UInt64 = 1_000_000_000

    @Test func noFiguresBeforeTheIntervalEnds() {
        var w = StatsWindow(startNs: 5 * second, counters: StatsCounters())
        w.frameOnGlass(flipNs: 5 * second + 10, originNs: 5 * second)
        #expect(w.roll(nowNs: 6 * second - 1, counters: StatsCounters()) == nil)
        #expect(w.roll(nowNs: 6 * second, counters: StatsCounters()) != nil)
    }

    @Test func sixtyFramesWithKnownLatencies() throws {
        // 60 frames in one second; frame i has latency (10 + i % 20) ms → values 10…29 ms, three each.
        var w = StatsWindow(startNs: 0, counters: StatsCounters(videoBytes: 1_000, decodedPictures: 7, decodeNs: 99, framesLost: 2))
        for i in 0..<60 {
            let flip = UInt64(i) * 16_666_667 + 50_000_000
            w.frameOnGlass(flipNs: flip, originNs: flip - UInt64(10 + i % 20) * 1_000_000)
        }
        let counters = StatsCounters(videoBytes: 1_000 + 1_250_000, decodedPictures: 7 + 60,
                                     decodeNs: 99 + 60 * 4_500_000, framesLost: 5)
        let closed = w.roll(nowNs: second, counters: counters)
        let f = try #require(closed)
        #expect(f.fps == 60)
        #expect(f.mbps == 10)                       // 1.25 MB in 1 s
        #expect(f.lost?.interval == 3 && f.lost?.total == 5)
        #expect(f.decodeMs == 4.5)
        // Nearest rank over 60 sorted samples: p50 = 30th = 19 ms, p95 = 57th = 28 ms.
        #expect(f.latencyP50Ms == 19)
        #expect(f.latencyP95Ms == 28)
    }

    @Test func figuresUseTheElapsedTimeAndTheIntervalRestarts() throws {
        var w = StatsWindow(startNs: 0, counters: StatsCounters())
        for i in 0..<30 { w.frameOnGlass(flipNs: UInt64(i) * 50_000_000, originNs: nil) }
        // Closed late: 30 frames over 1.5 s.
        let closed = w.roll(nowNs: 1_500_000_000, counters: StatsCounters(videoBytes: 375_000))
        let f = try #require(closed)
        #expect(f.fps == 20)
        #expect(f.mbps == 2)
        #expect(f.lost == nil)        // no network source
        #expect(f.decodeMs == nil)    // nothing decoded
        #expect(f.latencyP50Ms == nil && f.latencyP95Ms == nil)
        // The next interval starts at the close and sees only what came after.
        #expect(w.roll(nowNs: 2_400_000_000, counters: StatsCounters(videoBytes: 375_000)) == nil)
        let closedAgain = w.roll(nowNs: 2_500_000_000, counters: StatsCounters(videoBytes: 500_000))
        let g = try #require(closedAgain)
        #expect(g.fps == 0)
        #expect(g.mbps == 1)
    }

    @Test func flipsBeforeTheirOriginGiveNoSample() throws {
        var w = StatsWindow(startNs: 0, counters: StatsCounters())
        w.frameOnGlass(flipNs: 100, originNs: 200)
        w.frameOnGlass(flipNs: 3_000_000, originNs: 1_000_000)
        let closed = w.roll(nowNs: second, counters: StatsCounters())
        let f = try #require(closed)
        #expect(f.fps == 2)
        #expect(f.latencyP50Ms == 2 && f.latencyP95Ms == 2)
    }

    @Test func countersGoingBackwardsDoNotWrap() throws {
        // A new session after a resume restarts its counters: all of their value is new.
        var w = StatsWindow(startNs: 0, counters: StatsCounters(videoBytes: 10, framesLost: 40))
        let closed = w.roll(nowNs: second, counters: StatsCounters(videoBytes: 5, framesLost: 1))
        let f = try #require(closed)
        #expect(f.mbps == 40.0 / 1e6)   // 5 bytes
        #expect(f.lost?.interval == 1 && f.lost?.total == 1)
    }

    @Test func nearestRankPercentiles() {
        #expect(StatsWindow.nearestRank([7], 0.5) == 7)
        #expect(StatsWindow.nearestRank([7], 0.95) == 7)
        #expect(StatsWindow.nearestRank([1, 2, 3, 4], 0.5) == 2)
        #expect(StatsWindow.nearestRank([1, 2, 3, 4], 0.95) == 4)
        #expect(StatsWindow.nearestRank(Array(1...100), 0.95) == 95)
    }

    @Test func textLines() {
        var f = StatsFigures(fps: 59.94, mbps: 12.346)
        f.lost = (2, 17)
        f.decodeMs = 3.2
        f.latencyP50Ms = 25.04
        f.latencyP95Ms = 31.96
        #expect(f.lines(latencyLabel: "capture→glass") == [
            "fps     59.9",
            "Mb/s    12.35",
            "loss    2/s (total 17)",
            "decode  3.20 ms",
            "capture→glass p50 25.0 p95 32.0 ms",
        ])
        let empty = StatsFigures(fps: 0, mbps: 0)
        #expect(empty.lines(latencyLabel: "ready→glass")[2...] == ["loss    -", "decode  - ms", "ready→glass p50 - p95 - ms"])
        #expect(StatsFigures.placeholderLines(latencyLabel: "x").count == 5)
        #expect(StatsFigures.fixed(-0.04, 1) == "0.0")
        #expect(StatsFigures.fixed(-1.25, 1) == "-1.3")
        #expect(StatsFigures.fixed(.nan, 1) == "-")
    }

    @Test func captureClockMapsHostPtsToLocalMonotonic() {
        // Host media clock 2 s ahead of the client's realtime; realtime = monotonic + 1000 s.
        let clock = CaptureClock(offsetNs: 2 * Int64(second), realtimeMinusMonotonicNs: 1_000 * Int64(second))
        // Captured at host 1_005 s → client realtime 1_003 s → client monotonic 3 s.
        #expect(clock.localMonotonicNs(hostPtsNs: 1_005 * Int64(second)) == 3 * second)
        // Before the monotonic epoch, and overflow: no mapping.
        #expect(clock.localMonotonicNs(hostPtsNs: 1_001 * Int64(second)) == nil)
        let negative = CaptureClock(offsetNs: .min, realtimeMinusMonotonicNs: 0)
        #expect(negative.localMonotonicNs(hostPtsNs: 1) == nil)
    }

    @Test func manySamplesAreBounded() throws {
        var w = StatsWindow(startNs: 0, counters: StatsCounters())
        for i in 0..<(StatsWindow.maxSamples + 500) { w.frameOnGlass(flipNs: UInt64(i) + 1_000, originNs: 1_000) }
        let closed = w.roll(nowNs: second, counters: StatsCounters())
        let f = try #require(closed)
        #expect(f.fps == Double(StatsWindow.maxSamples + 500))
        // Only the first maxSamples latencies (0…1023 ns) were kept.
        #expect(f.latencyP95Ms == Double(StatsWindow.nearestRank(Array(0..<UInt64(StatsWindow.maxSamples)), 0.95)) / 1e6)
    }
}
