import FFmpegOracle
import Foundation
import HEVC
import Testing
import VideoDecode
import VideoFrames

/// A clock the test advances by hand (monotonic ns).
final class FakeClock: @unchecked Sendable {
    var now: UInt64 = 1_000_000_000
    func read() -> UInt64 { now }
}

/// What a ladder did over a stream.
struct LadderRun {
    var pictures: [DecodedPicture] = []
    var keyframeRequests = 0
    var keyframeRequestsAt: [Int] = []
    var warnings: [String] = []
}

func runLadder(_ ladder: DecoderLadder, _ aus: [[UInt8]], clock: FakeClock, stepNanos: UInt64,
               damage: (Int, inout [UInt8]) -> Void = { _, _ in }) -> LadderRun {
    var run = LadderRun()
    var index = 0
    ladder.onKeyframeRequest = { run.keyframeRequests += 1; run.keyframeRequestsAt.append(index) }
    ladder.onWarning = { run.warnings.append($0) }
    for (i, original) in aus.enumerated() {
        index = i
        var au = original
        damage(i, &au)
        clock.now += stepNanos
        let out = ladder.decode(accessUnit: au, pts: Int64(i))
        run.pictures += out
        for p in out { p.release() }
    }
    run.pictures += ladder.flush()
    return run
}

@Suite("Decoder ladder: keyframe asks, demotion, idle until IRAP")
struct DecoderLadderTests {
    static let enabled = FFmpeg.isAvailable && VARecordingDriver.isAvailable
    static let reason: Comment = "needs ffmpeg with libx265 and the VA recording driver (cc, libva-dev)"

    /// The fake driver fails every picture after the second: each failure asks for a keyframe;
    /// the fourth failure, 1.0 s after the first, demotes to libavcodec, which starts at the
    /// next IRAP and decodes the rest.
    @Test(.enabled(if: enabled, reason))
    func vaapiErrorsOverOneSecondDemoteToSoftware() throws {
        let g = try VAFixture.all[1].load()  // lowdelay-40, IRAP every 4 access units
        let aus = AccessUnitSplitter.split(g.bytes)
        let device = VARecordingDriver.Device(config: ["fail_end_picture_after": "2"])
        let clock = FakeClock()
        SoftwareDecoder.setLibraryLogging(enabled: false)
        let ladder = DecoderLadder(configuration: .init(openVADisplay: { try device.connect() }),
                                   clock: clock.read)
        #expect(ladder.activeRung == .vaapi)
        let run = runLadder(ladder, aus, clock: clock, stepNanos: 100_000_000)
        // Failures at access units 2 (t 0.3 s), 4, 8, 12 (t 1.3 s): 1.0 s spread at the fourth.
        #expect(ladder.demotions.map(\.from) == [.vaapi])
        #expect(ladder.activeRung == .software)
        #expect(run.keyframeRequestsAt == [2, 4, 8, 12, 12], "one per error, one when the new rung starts")
        let gpu = run.pictures.filter { if case .dmaBuf = $0 { true } else { false } }.map(\.pts)
        let cpu = run.pictures.filter { if case .cpu = $0 { true } else { false } }.map(\.pts)
        #expect(gpu == [0, 1])
        #expect(cpu == (16..<40).map(Int64.init), "software rung idles until the IRAP at 16")
    }

    /// Errors closer together than one second ask for keyframes but do not demote.
    @Test(.enabled(if: enabled, reason))
    func errorsWithinOneSecondDoNotDemote() throws {
        let g = try VAFixture.all[1].load()
        let aus = AccessUnitSplitter.split(g.bytes)
        let device = VARecordingDriver.Device(config: ["fail_end_picture_after": "0"])
        let clock = FakeClock()
        let ladder = DecoderLadder(configuration: .init(openVADisplay: { try device.connect() }),
                                   clock: clock.read)
        let run = runLadder(ladder, aus, clock: clock, stepNanos: 20_000_000)  // 40 AUs in 0.8 s
        #expect(ladder.demotions.isEmpty)
        #expect(ladder.activeRung == .vaapi)
        #expect(run.keyframeRequestsAt == [0, 4, 8, 12, 16, 20, 24, 28, 32, 36])
        #expect(run.pictures.isEmpty)
        #expect(ladder.errorTimes.count == 10)
    }

    /// A rung that starts mid-stream is fed nothing until an IRAP picture.
    @Test(.enabled(if: enabled, reason), arguments: [DecoderRungKind.vaapi, .software])
    func midStreamStartIdlesUntilIRAP(_ kind: DecoderRungKind) throws {
        let g = try VAFixture.all[1].load()
        let aus = Array(AccessUnitSplitter.split(g.bytes).dropFirst(5))  // starts at access unit 5
        let device = VARecordingDriver.Device()
        let clock = FakeClock()
        SoftwareDecoder.setLibraryLogging(enabled: false)
        let ladder = DecoderLadder(configuration: .init(rungs: [kind],
                                                        openVADisplay: { try device.connect() }),
                                   clock: clock.read)
        #expect(ladder.awaitingIRAP)
        let run = runLadder(ladder, aus, clock: clock, stepNanos: 16_000_000)
        #expect(!ladder.awaitingIRAP)
        #expect(ladder.activeRung == kind)
        // Input index 3 is access unit 8, the first IRAP.
        #expect(run.pictures.map(\.pts) == (3..<35).map(Int64.init))
        #expect(run.keyframeRequests == 0)
    }

    /// Truncated and damaged access units through the software-only ladder: keyframe asks on
    /// errors, never a trap, the last rung is kept, and decoding resumes after the damage.
    @Test(.enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason))
    func corruptStreamOnTheSoftwareRung() throws {
        let g = try VAFixture.all[1].load()
        let aus = AccessUnitSplitter.split(g.bytes)
        let clock = FakeClock()
        SoftwareDecoder.setLibraryLogging(enabled: false)
        let ladder = DecoderLadder(configuration: .init(rungs: [.software]), clock: clock.read)
        let run = runLadder(ladder, aus, clock: clock, stepNanos: 400_000_000) { i, au in
            if (5...7).contains(i) || (13...15).contains(i) { au = Array(au.prefix(9)) }  // NAL headers only
        }
        #expect(ladder.activeRung == .software)
        #expect(ladder.demotions.isEmpty, "nothing below the last rung")
        #expect(run.keyframeRequests >= 1, "errors ask for a keyframe")
        #expect(run.keyframeRequests == run.warnings.count)
        #expect(Set(run.pictures.map(\.pts)).isSuperset(of: Set((16..<40).map(Int64.init))))
    }

    /// A stream the VA driver cannot decode at all (Main10 without the profile) demotes at the
    /// first picture; libavcodec takes over at the next IRAP.
    @Test(.enabled(if: enabled, reason))
    func unsupportedProfileDemotesAtOnce() throws {
        let g = try DecodeFixture.all[1].load()  // main10, IRAP every 4, 6 frames
        let device = VARecordingDriver.Device(config: ["main10": "0"])
        let clock = FakeClock()
        SoftwareDecoder.setLibraryLogging(enabled: false)
        let ladder = DecoderLadder(configuration: .init(openVADisplay: { try device.connect() }), clock: clock.read)
        let run = runLadder(ladder, AccessUnitSplitter.split(g.bytes), clock: clock, stepNanos: 1_000_000)
        #expect(ladder.demotions.map(\.from) == [.vaapi])
        #expect(ladder.activeRung == .software)
        #expect(run.pictures.map(\.pts) == [4, 5])
        #expect(run.keyframeRequestsAt == [0, 0])
    }

    /// No VA device: the ladder starts on libavcodec and says why.
    @Test func missingVADeviceStartsOnSoftware() {
        let ladder = DecoderLadder(configuration: .init(openVADisplay: { throw VAAPIError.noRenderNode }))
        #expect(ladder.unavailableRungs.map(\.rung) == [.vaapi])
        #expect(ladder.activeRung == .software)
        #expect(ladder.awaitingIRAP)
    }
}

@Suite("Decoder ladder: parameter sets sent once")
struct DecoderLadderParameterSetTests {
    /// The stream carries VPS/SPS/PPS only in its first access unit. After the VA rung fails and
    /// libavcodec takes over at a later IRAP, the ladder hands it the parameter sets it saw.
    @Test(.enabled(if: DecoderLadderTests.enabled, DecoderLadderTests.reason))
    func demotedRungGetsTheParameterSets() throws {
        let g = try VAFixture.all[1].load()  // lowdelay-40, headers repeated at every IRAP
        var aus = AccessUnitSplitter.split(g.bytes)
        for i in aus.indices.dropFirst() {
            aus[i] = AnnexB.nalUnits(in: aus[i]).filter { !(32...34).contains($0[0] >> 1 & 0x3F) }
                .flatMap { [0, 0, 0, 1] + $0 }
        }
        let device = VARecordingDriver.Device(config: ["fail_end_picture_after": "2"])
        let clock = FakeClock()
        SoftwareDecoder.setLibraryLogging(enabled: false)
        let ladder = DecoderLadder(configuration: .init(openVADisplay: { try device.connect() }), clock: clock.read)
        let run = runLadder(ladder, aus, clock: clock, stepNanos: 100_000_000)
        #expect(ladder.activeRung == .software)
        #expect(ladder.errorCount == 4, "the VA failures only; libavcodec decodes without errors")
        let cpu = run.pictures.filter { if case .cpu = $0 { true } else { false } }.map(\.pts)
        #expect(cpu == (16..<40).map(Int64.init))
    }
}
