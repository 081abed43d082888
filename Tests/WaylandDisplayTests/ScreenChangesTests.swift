import Screen
import Testing
@testable import WaylandDisplay

@Suite struct ScreenChangesTests {
    static let hd = ScreenMode(width: 1280, height: 720, refreshMilliHz: 60_000)
    static let hdScale2 = ScreenMode(width: 2560, height: 1440, refreshMilliHz: 60_000)
    static let fhd = ScreenMode(width: 1920, height: 1080, refreshMilliHz: 60_000)

    @Test func aScaleChangeThroughAnIntermediateSizeEndsWhereItStarted() {
        // sway 1.7, `output HEADLESS-1 scale 2`: scale 2 at the old logical 1280x720, then 640x360.
        let batch: [ScreenChange] = [.modeChanged(output: "HEADLESS-1", from: Self.hd, to: Self.hdScale2),
                                     .modeChanged(output: "HEADLESS-1", from: Self.hdScale2, to: Self.hd)]
        #expect(ScreenChanges.coalesced(batch).isEmpty)
    }

    @Test func consecutiveModeChangesBecomeOneAfterTheOthers() {
        let batch: [ScreenChange] = [.modeChanged(output: "A", from: Self.hd, to: Self.hdScale2),
                                     .disconnected(output: "B"),
                                     .modeChanged(output: "A", from: Self.hdScale2, to: Self.fhd)]
        #expect(ScreenChanges.coalesced(batch) == [.disconnected(output: "B"),
                                                   .modeChanged(output: "A", from: Self.hd, to: Self.fhd)])
        #expect(ScreenChanges.coalesced([.lost(sentence: "gone")]) == [.lost(sentence: "gone")])
    }
}
