import FFmpegOracle
import Foundation
import HEVC
import Testing
import VideoDecode
import VideoFrames

/// The VA-API rung's damage report over the recording driver: the planner conceals a missing
/// reference and marks that picture and the ones decoded from it, until the next IDR.
@Suite("VA-API rung reports damage (recording driver)")
struct VAAPIDamageTests {
    static let enabled = FFmpeg.isAvailable && VARecordingDriver.isAvailable
    static let reason: Comment = "needs ffmpeg with libx265 and the VA recording driver (cc, libva-dev)"

    @Test(.enabled(if: enabled, reason))
    func droppedAccessUnitDamagesUntilTheNextIDRThenRestart() throws {
        let aus = AccessUnitSplitter.split(try SoftwareDamageTests.lowDelay.get())
        let device = VARecordingDriver.Device()
        let ladder = DecoderLadder(configuration: .init(rungs: [.vaapi], openVADisplay: { try device.connect() }))
        #expect(ladder.activeRung == .vaapi)
        var damagedPTS: [Int64] = []
        var keyframeRequests = 0
        ladder.onKeyframeRequest = { keyframeRequests += 1 }
        for (i, au) in aus.enumerated() where i != 13 {
            let report = ladder.decodeReporting(accessUnit: au, pts: Int64(i))
            #expect(!report.failed && !report.skipped && report.damaged.count == report.pictures.count)
            damagedPTS += zip(report.pictures, report.damaged).filter(\.1).map(\.0.pts)
            for p in report.pictures { p.release() }
            if i == 24 { break }
        }
        #expect(damagedPTS == Array(14...19))
        // The planner warns for each picture whose RPS still names POC 13 (14, 15, 16, with 3
        // references); the pictures after those are damaged without a warning.
        #expect(keyframeRequests == 3)
        // restart(): the next pictures are skipped until the IDR at 20 is fed again, then clean.
        ladder.restart()
        var out: [Int64] = []
        for (i, au) in aus.enumerated() where i >= 17 {
            let report = ladder.decodeReporting(accessUnit: au, pts: Int64(i))
            #expect(report.skipped == (i < 20) && !report.failed && !report.anyDamaged)
            out += report.pictures.map(\.pts)
            for p in report.pictures { p.release() }
        }
        #expect(out == Array(20...29))
    }
}
