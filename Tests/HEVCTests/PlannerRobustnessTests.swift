import Testing
import FFmpegOracle
@testable import HEVC

/// Parser + planner on damaged streams (NAL units dropped, duplicated, swapped, bit-flipped,
/// truncated; resets at random points) never trap, and every plan keeps the surface invariants
/// the VA-API rung relies on.
@Suite struct PlannerRobustnessTests {
    /// Runs one damaged stream and checks the invariants of every plan.
    /// - Returns: pictures planned and warnings reported, so a sweep can show it was not vacuous.
    @discardableResult
    static func exercise(_ nals: [[UInt8]], resets: Set<Int>,
                         sourceLocation: SourceLocation = #_sourceLocation) -> (pictures: Int, warnings: Int) {
        var pictures = 0, warnings = 0
        var parser = HEVCParser()
        let units = nals.compactMap { try? parser.parseNALUnit($0) }
        var planner = DecodePlanner(headroom: 2)
        for (k, au) in AccessUnits.group(units).enumerated() {
            if resets.contains(k) { _ = planner.reset(reason: .loss) }
            let plan = planner.plan(au)
            warnings += plan.warnings.count
            guard let p = plan.picture, let pool = planner.pool else { continue }
            pictures += 1
            let refs = Set(p.referenceFrames.map(\.surface))
            #expect(!refs.contains(p.surface), "target aliases a reference", sourceLocation: sourceLocation)
            #expect((0..<pool.capacity).contains(p.surface), sourceLocation: sourceLocation)
            for s in p.slices where s.header.sliceType != .i && !s.refPicList0.isEmpty {
                #expect(s.refPicList0.count == Int(s.header.numRefIdxL0ActiveMinus1) + 1, sourceLocation: sourceLocation)
                #expect((s.refPicList0 + s.refPicList1).allSatisfy { refs.contains($0.surface) }, sourceLocation: sourceLocation)
            }
        }
        _ = planner.finish()
        return (pictures, warnings)
    }

    static func damage(_ nals: [[UInt8]], seed: UInt64) -> (nals: [[UInt8]], resets: Set<Int>) {
        var rng = RobustnessTests.SplitMix(state: seed)
        var out = nals
        for _ in 0..<Int.random(in: 1...6, using: &rng) where !out.isEmpty {
            let k = Int.random(in: 0..<out.count, using: &rng)
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: out.remove(at: k)
            case 1: out.insert(out[k], at: k)
            case 2: if k + 1 < out.count { out.swapAt(k, k + 1) }
            case 3:
                let bit = Int.random(in: 0..<(min(out[k].count, 48) * 8), using: &rng)
                out[k][bit / 8] ^= 0x80 >> UInt8(bit % 8)
            default: out[k] = Array(out[k].prefix(Int.random(in: 0...out[k].count, using: &rng)))
            }
        }
        let resets = Set((0..<2).map { _ in Int.random(in: 0..<max(1, nals.count / 2), using: &rng) })
        return (out, resets)
    }

    @Test func committedFixtureDamaged() throws {
        let nals = AnnexB.nalUnits(in: try CommittedFixtureTests.load().bytes)
        var total = (pictures: 0, warnings: 0)
        for seed in 0..<300 as Range<UInt64> {
            let d = Self.damage(nals, seed: seed)
            let r = Self.exercise(d.nals, resets: d.resets)
            total = (total.pictures + r.pictures, total.warnings + r.warnings)
        }
        print("planner damage sweep (committed): \(total)")
        #expect(total.pictures > 150 && total.warnings > 50)
    }

    @Test(.enabled(if: FFmpeg.isAvailable, "needs ffmpeg with libx265 on PATH for the fixtures"), arguments: Fixture.planner)
    func generatedFixturesDamaged(_ fixture: Fixture) throws {
        let nals = AnnexB.nalUnits(in: try fixture.loadPlanner().bytes)
        var total = (pictures: 0, warnings: 0)
        for seed in 0..<60 as Range<UInt64> {
            let d = Self.damage(nals, seed: seed &* 7919 &+ UInt64(fixture.name.utf8.count))
            let r = Self.exercise(d.nals, resets: d.resets)
            total = (total.pictures + r.pictures, total.warnings + r.warnings)
        }
        print("planner damage sweep \(fixture.name): \(total)")
        #expect(total.pictures > 60 && total.warnings > 10, "\(fixture.name): \(total)")
        // Every whole-stream cut.
        for cut in stride(from: 0, to: nals.count, by: 3) { Self.exercise(Array(nals.prefix(cut)), resets: []) }
    }
}
