import Foundation
import FFmpegOracle
import Testing
@testable import HEVC

/// Starting mid-stream, losing data and resetting: the planner idles until an IRAP picture,
/// skips the RASL pictures of a CRA that starts decoding, and conceals lost references.
@Suite("planner recovery", .enabled(if: FFmpeg.isAvailable, "needs ffmpeg with libx265 on PATH (Tests/tools/install-deps.sh)"))
struct PlannerRecoveryTests {
    static func fixture(_ name: String) throws -> Fixture.Generated {
        try #require(Fixture.planner.first { $0.name == name }).loadPlanner()
    }

    /// Dropping the first IDR (its parameter sets kept, as a receiver joining late has them from
    /// an earlier repetition): nothing is decoded or output before the next IRAP picture.
    ///
    /// ffmpeg is only a partial oracle here: it decodes the P pictures before the IRAP anyway
    /// (with generated references), so only its output from the IRAP on is compared.
    @Test func midStreamStartWaitsForIRAP() throws {
        let g = try Self.fixture("lowdelay-p")
        let aus = annexBAccessUnits(g.bytes)
        let headers = AnnexB.nalUnits(in: aus[0]).filter { (32...34).contains(($0[0] >> 1) & 0x3F) }
        let cut = headers.flatMap { [0, 0, 0, 1] + $0 } + Array(aus.dropFirst().joined())
        let run = PlannerRun(cut)
        let firstDecoded = try #require(run.pictures.first)
        #expect(firstDecoded.noRaslOutputFlag && (16...21).contains(firstDecoded.nalUnitType))
        #expect(run.plans.prefix(3).allSatisfy { $0.picture == nil && $0.output.isEmpty })
        #expect(run.warnings == [.awaitingIRAP(nalUnitType: 1), .awaitingIRAP(nalUnitType: 1), .awaitingIRAP(nalUnitType: 1)])
        #expect(run.output.map(\.poc) == [4, 5, 6, 7])
        let ffmpeg = try outputOrderByFFmpeg(cut)
        #expect(run.outputAccessUnits == ffmpeg.filter { $0 >= 3 })
    }

    /// A CRA that starts decoding (its IDR GOP dropped): its RASL pictures are skipped with a
    /// `raslSkipped` notice; the rest is output exactly as ffmpeg outputs the cut stream.
    @Test func craStartSkipsRASL() throws {
        let g = try Self.fixture("open-gop-cra")
        let aus = annexBAccessUnits(g.bytes)
        let parsed = parsedAccessUnits(g.bytes)
        let craIndex = try #require(parsed.firstIndex { au in
            au.contains { $0.header.nalUnitType == 21 }
        })
        let cut = Array(aus[craIndex...].joined())
        let run = PlannerRun(cut)
        let skipped = run.warnings.filter { if case .raslSkipped = $0 { true } else { false } }
        #expect(!skipped.isEmpty)
        #expect(run.pictures.allSatisfy { $0.nalUnitType != 8 && $0.nalUnitType != 9 || !$0.noRaslOutputFlag })
        #expect(run.warnings.allSatisfy { !$0.requestsKeyframe }, "\(run.warnings)")
        #expect(run.outputAccessUnits == (try outputOrderByFFmpeg(cut)))
    }

    /// A lost P picture in a low-delay stream with 4 references: the pictures that name it get a
    /// `missingReference` warning and a substitute surface; decoding and output go on.
    @Test func lostReferenceIsSubstituted() throws {
        let g = try Self.fixture("lowdelay-p-ref4")
        var aus = parsedAccessUnits(g.bytes)
        aus.remove(at: 5)  // POC 5
        let result = planParsed(aus)
        let missing = result.warnings.compactMap { w -> (Int32, Int32?)? in
            if case .missingReference(let poc, let s) = w { (poc, s) } else { nil }
        }
        #expect(!missing.isEmpty && missing.allSatisfy { $0.0 == 5 && $0.1 != nil })
        #expect(result.plans.contains { $0.requestsKeyframe })
        #expect(result.output.map(\.poc) == [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11])
        for p in result.plans.compactMap(\.picture) {
            for e in p.slices.flatMap({ $0.refPicList0 }) {
                #expect(p.referenceFrames.contains { $0.surface == e.surface })
                #expect(e.surface != p.surface)
            }
        }
    }

    /// `reset(reason:)` outputs what was pending, then idles until the next IRAP picture.
    @Test func resetWaitsForNextIRAP() throws {
        let g = try Self.fixture("lowdelay-p")
        let aus = parsedAccessUnits(g.bytes)
        var planner = DecodePlanner()
        var output: [Int32] = []
        var skipped = 0
        for (k, au) in aus.enumerated() {
            if k == 2 { output += planner.reset(reason: .loss).output.map(\.poc) }
            let plan = planner.plan(au)
            if plan.picture == nil { skipped += 1 }
            output += plan.output.map(\.poc)
        }
        output += planner.finish().output.map(\.poc)
        #expect(skipped == 2)
        #expect(output == [0, 1, 4, 5, 6, 7])
        // Only the DPB's remaining references still use surfaces.
        #expect(planner.pool.map { $0.freeCount == $0.capacity - planner.dpb.count } == true)
        #expect(planner.dpb.pictures.allSatisfy { $0.isReference && !$0.neededForOutput })
    }

    /// ffmpeg's output order for a stream given as bytes.
    func outputOrderByFFmpeg(_ bytes: [UInt8]) throws -> [Int] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("planner-cut-\(UUID().uuidString).hevc")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try FFmpeg.outputOrder(of: url.path)
    }
}
