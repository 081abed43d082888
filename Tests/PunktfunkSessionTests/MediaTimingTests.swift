import Testing
import PunktfunkTestHost

/// The test host's video capture grid (the A/V skew check's marked frames) and its audio jitter
/// burst.
@Suite struct MediaTimingTests {
    @Test func slotsAtThirtyFramesPerSecondMeetTheAudioMarkers() {
        let grid = VideoFrameGrid(anchorNs: 1_000_000_000, fps: 30)
        // A marker every 100 packets of 5 ms = every 15th frame, to the ns.
        #expect(grid.captureNs(15) == 1_500_000_000)
        #expect(grid.captureNs(1) == 1_033_333_333)
        #expect(grid.captureNs(3) == 1_100_000_000)      // every 3rd frame is on the 5 ms grid
        #expect(grid.nextDueNs == 1_000_000_000)
    }

    @Test func aLateCallerGetsTheNewestSlotAndNoBurst() {
        var grid = VideoFrameGrid(anchorNs: 0, fps: 30)
        #expect(grid.take(nowNs: 0) == 0)
        #expect(grid.take(nowNs: 10_000_000) == nil)       // slot 1 (33.3 ms) not due yet
        #expect(grid.nextDueNs == 33_333_333)
        #expect(grid.take(nowNs: 33_333_333) == 33_333_333)
        // 100 ms late: slots 2 and 3 pass, slot 4 (133.3 ms) is the newest due.
        #expect(grid.take(nowNs: 140_000_000) == 133_333_333)
        #expect(grid.index == 5)
        #expect(grid.take(nowNs: 140_000_001) == nil)
        // On a slot to the ns.
        #expect(grid.take(nowNs: 166_666_667) == 166_666_667)
    }

    @Test func aMarkersSlotIsTakenHoweverLate() {
        // Anchored on a marker's due time and sent 80 ms late: the marker's own slot still goes,
        // then the newest due slot (skipping 33.3 ms).
        var grid = VideoFrameGrid(anchorNs: 500_000_000, fps: 30)
        #expect(grid.takeNext() == 500_000_000)
        #expect(grid.take(nowNs: 580_000_000) == 566_666_667)
        #expect(grid.nextDueNs == 600_000_000)
    }

    @Test func theBurstCoversItsSpanOnly() throws {
        let burst = try #require(AudioJitterBurst(parsing: "16:1:20"))
        #expect(burst == AudioJitterBurst(startNs: 16_000_000_000, durationNs: 1_000_000_000, jitterNs: 20_000_000))
        #expect(burst.bound(sinceFirstNs: 15_999_999_999, steadyJitterNs: 2_000_000) == 2_000_000)
        #expect(burst.bound(sinceFirstNs: 16_000_000_000, steadyJitterNs: 2_000_000) == 20_000_000)
        #expect(burst.bound(sinceFirstNs: 16_999_999_999, steadyJitterNs: 2_000_000) == 20_000_000)
        #expect(burst.bound(sinceFirstNs: 17_000_000_000, steadyJitterNs: 2_000_000) == 2_000_000)
        #expect(AudioJitterBurst(parsing: "16:0:20") == nil)
        #expect(AudioJitterBurst(parsing: "16:1") == nil)
        #expect(AudioJitterBurst(parsing: "-1:1:20") == nil)
        #expect(AudioJitterBurst(parsing: "a:1:20") == nil)
    }
}
