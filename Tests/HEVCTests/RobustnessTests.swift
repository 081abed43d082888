import Testing
import FFmpegOracle
@testable import HEVC

/// Truncated, bit-flipped and random input never traps: every NAL unit either parses or throws
/// an `HEVCError` (the typed throw makes "or something else" impossible).
@Suite struct RobustnessTests {
    /// Deterministic generator (SplitMix64) so a failure reproduces.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Parses every unit with a parser primed by the intact parameter sets, so corrupted slices
    /// get past the parameter-set lookup and exercise the slice header syntax.
    static func exercise(_ nals: [[UInt8]], primedWith clean: [[UInt8]]) -> (parsed: Int, failed: Int) {
        var parser = HEVCParser(tracing: true)
        for nal in clean where (try? NALUnitHeader(nal)).map({ (32...34).contains($0.nalUnitType) }) == true {
            _ = try? parser.parseNALUnit(nal)
        }
        var parsed = 0, failed = 0
        for nal in nals {
            do throws(HEVCError) { _ = try parser.parseNALUnit(nal); parsed += 1 } catch { failed += 1 }
        }
        return (parsed, failed)
    }

    @Test(.enabled(if: FFmpeg.isAvailable, "needs ffmpeg with libx265 on PATH for the fixtures"), arguments: Fixture.all)
    func truncationsAndBitFlipsNeverTrap(_ fixture: Fixture) throws {
        let g = try fixture.load()
        let nals = AnnexB.nalUnits(in: g.bytes)
        var rng = SplitMix(state: 0x5EED ^ UInt64(fixture.name.utf8.count))
        var variants: [[UInt8]] = []
        // Every prefix of the first 48 bytes of each distinct unit (headers live there).
        for nal in nals.prefix(6) {
            for n in 0..<min(nal.count, 48) { variants.append(Array(nal.prefix(n))) }
        }
        // Random single and multiple bit flips within the first 64 bytes.
        for _ in 0..<600 {
            var nal = nals[Int.random(in: 0..<nals.count, using: &rng)]
            let flips = Int.random(in: 1...4, using: &rng)
            for _ in 0..<flips {
                let bit = Int.random(in: 0..<(min(nal.count, 64) * 8), using: &rng)
                nal[bit / 8] ^= 0x80 >> UInt8(bit % 8)
            }
            if Bool.random(using: &rng) { nal = Array(nal.prefix(Int.random(in: 0...nal.count, using: &rng))) }
            variants.append(nal)
        }
        let result = Self.exercise(variants, primedWith: nals)
        #expect(result.parsed + result.failed == variants.count)
        #expect(result.failed > 0)
        // Whole-stream cuts: the Annex-B splitter and the parser agree on any prefix.
        var parser = HEVCParser()
        for cut in stride(from: 0, to: g.bytes.count, by: max(1, g.bytes.count / 40)) {
            _ = parser.parseAnnexB(Array(g.bytes.prefix(cut)))
        }
    }

    @Test func randomBytesNeverTrap() {
        var rng = SplitMix(state: 42)
        var variants: [[UInt8]] = []
        for _ in 0..<3000 {
            let count = Int.random(in: 0...40, using: &rng)
            var nal = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Steer half of them to parameter set and slice types with a valid header.
            if nal.count >= 2, Bool.random(using: &rng) {
                let type = [32, 33, 34, 1, 19, 21].randomElement(using: &rng)!
                nal[0] = UInt8(type << 1)
                nal[1] = 1
            }
            variants.append(nal)
        }
        let result = Self.exercise(variants, primedWith: [])
        #expect(result.parsed + result.failed == variants.count)
        var parser = HEVCParser()
        _ = parser.parseAnnexB((0..<5000).map { _ in UInt8.random(in: 0...3, using: &rng) })
    }
}
