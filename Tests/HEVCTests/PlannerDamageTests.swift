import Foundation
import FFmpegOracle
import Testing
@testable import HEVC

/// `damaged`: a picture decoded from a missing reference (substituted or generated, 8.3.3), or
/// from a damaged one, until an IRAP picture; and the surfaces an IDR bumps out come back.
@Suite("planner damage", .enabled(if: FFmpeg.isAvailable, "needs ffmpeg with libx265 on PATH (Tests/tools/install-deps.sh)"))
struct PlannerDamageTests {
    /// 24 pictures, an IDR every 8, a 3-B pyramid: pictures wait for output at each IDR.
    static let pyramid: Result<[UInt8], Fixture.FixtureError> = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("planner-damage-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: dir) }
        return Result {
            try FFmpeg.encodeTestStream(name: "pyramid", in: dir, sizes: ["192x108"], frames: 24, pixelFormat: "yuv420p",
                                        x265: "keyint=8:min-keyint=8:bframes=3:b-pyramid=1:ref=3:open-gop=0:scenecut=0:"
                                            + "repeat-headers=1:info=0:log-level=none").bytes
        }.mapError { Fixture.FixtureError(description: "\($0)") }
    }()

    @Test func cleanStreamHasNoDamageAndIDRsFreeTheirSurfaces() throws {
        let run = PlannerRun(try Self.pyramid.get(), planner: DecodePlanner(headroom: 0))
        #expect(run.warnings.isEmpty, "\(run.warnings)")
        #expect(run.pictures.count == 24 && run.output.count == 24)
        #expect(!run.pictures.contains(where: \.damaged) && !run.output.contains(where: \.damaged))
    }

    @Test func damageSpreadsUntilTheNextIDR() throws {
        let aus = annexBAccessUnits(try Self.pyramid.get())
        let irap = aus.indices.filter { k in
            AnnexB.nalUnits(in: aus[k]).contains { (16...21).contains(($0[0] >> 1) & 0x3F) }
        }
        #expect(irap == [0, 8, 16])
        // Drop decode index 1, the first P picture: every later picture of the GOP uses it.
        let run = PlannerRun(aus.enumerated().filter { $0.offset != 1 }.flatMap(\.element), planner: DecodePlanner(headroom: 0))
        #expect(run.pictures.count == 23)
        #expect(run.pictures.map(\.damaged) == (0..<23).map { (1..<7).contains($0) })
        let damagedOutput = run.output.filter(\.damaged).map(\.decodeIndex)
        #expect(Set(damagedOutput) == Set(1..<7))
    }

    @Test func markDamagedTaintsWhatIsDecodedFromThePicture() throws {
        let aus = parsedAccessUnits(try Self.pyramid.get())
        var planner = DecodePlanner(headroom: 0)
        var damaged: [Bool] = []
        for (k, au) in aus.enumerated() {
            let plan = planner.plan(au)
            damaged.append(plan.picture?.damaged ?? true)
            if k == 9, let s = plan.picture?.surface { planner.markDamaged(surface: s) }  // the P after the 2nd IDR
        }
        #expect(damaged == (0..<24).map { (10..<16).contains($0) })
    }

    /// Issue 39: libx265's forced intra picture (`-forced-idr 0`: TRAIL_R, an I slice) lists the
    /// two pictures before it in its RPS with used_by_curr_pic_s0_flag = 1 (ffmpeg's trace in
    /// VideoDecodeTests/EncoderAnchorTests), and the P pictures after it take one of their two
    /// Curr entries into RefPicList0. With POC 18 lost, only 19 (whose list holds 18) is damaged:
    /// the anchor uses no list, and 21 uses only the anchor.
    @Test func anEntryNoSliceListUsesNeitherDamagesNorAsksForAKeyframe() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("planner-anchor-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let bytes = try FFmpeg.encodeTestStream(name: "anchor", in: dir, sizes: ["192x108"], frames: 40, pixelFormat: "yuv420p",
                                                x265: "keyint=600:min-keyint=600:bframes=0:scenecut=0:ref=1:repeat-headers=1:info=0:log-level=none",
                                                options: ["-forced-idr", "0", "-force_key_frames", "expr:eq(n,20)"]).bytes
        let aus = parsedAccessUnits(bytes)
        #expect(aus.count == 40)
        var planner = DecodePlanner(headroom: 1)
        var damaged: [Int] = []
        var keyframeWarnings: [PlannerWarning] = []
        var unused: [Int32] = []
        for (i, au) in aus.enumerated() where i != 18 {
            let plan = planner.plan(au)
            let picture = try #require(plan.picture)
            if picture.damaged { damaged.append(i) }
            if i >= 20 { keyframeWarnings += plan.warnings.filter(\.requestsKeyframe) }
            for case .unusedReferenceMissing(let poc) in plan.warnings { unused.append(poc) }
        }
        #expect(damaged == [19])
        #expect(keyframeWarnings.isEmpty, "\(keyframeWarnings)")
        #expect(unused == [18], "the anchor lists 18, which is missing and which no slice of it uses")
    }
}
