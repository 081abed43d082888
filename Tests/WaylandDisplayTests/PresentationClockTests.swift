import Testing
@testable import WaylandDisplay

@Suite struct PresentationClockTests {
    @Test func monotonicIsTheIdentity() {
        let map = PresentationClockMap(clockID: PresentationClockMap.monotonicID, monotonicBeforeNs: 100,
                                       clockNs: 5, monotonicAfterNs: 200)
        #expect(map.offsetNs == 0)
        #expect(map.monotonic(123_456) == 123_456)
        #expect(map.clockName == "MONOTONIC")
    }

    @Test func monotonicRawIsShiftedByTheBracketMidpoint() {
        // weston headless: clock_id 4. RAW read as 1_000 between MONOTONIC 5_000 and 5_100.
        let map = PresentationClockMap(clockID: PresentationClockMap.monotonicRawID, monotonicBeforeNs: 5_000,
                                       clockNs: 1_000, monotonicAfterNs: 5_100)
        #expect(map.offsetNs == 4_050)
        #expect(map.monotonic(2_000) == 6_050)
        #expect(map.clockName == "MONOTONIC_RAW")
    }

    @Test func clockAheadOfMonotonicGivesNegativeOffset() {
        let map = PresentationClockMap(clockID: 7, monotonicBeforeNs: 1_000, clockNs: 9_000, monotonicAfterNs: 1_000)
        #expect(map.offsetNs == -8_000)
        #expect(map.monotonic(10_000) == 2_000)
        #expect(map.monotonic(0) == 0)        // "no time" stays 0
        #expect(map.monotonic(100) == 0)      // before the epoch clamps
    }

    @Test func presentedTimestampSplitsSeconds() {
        #expect(PresentationClockMap.nanoseconds(secondsHigh: 0, secondsLow: 12, nanoseconds: 345) == 12_000_000_345)
        #expect(PresentationClockMap.nanoseconds(secondsHigh: 1, secondsLow: 0, nanoseconds: 0) == (1 << 32) * 1_000_000_000)
    }
}
