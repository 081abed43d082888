import FFmpegOracle
import Foundation
import HEVC
import Testing
import VideoDecode
import VideoFrames

/// Filler data NAL units (FD_NUT, nal_unit_type 38, H.265 7.3.2.8 / 7.4.3.8), as the test host
/// appends them to grow an AU to its rate budget (issue 39), change no picture: libavcodec skips
/// them (ffmpeg's framemd5 of the stream with filler = that of the stream without), and so do our
/// splitter (same AU boundaries and keyframes), parser + DecodePlanner (same plans) and the
/// software rung, alone and through the ladder (same md5 per picture, no damage, no keyframe ask).
@Suite("filler data NAL units are harmless", .enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason))
struct FillerDataTests {
    /// `00 00 00 01 4C 01`, 0xFF × n, `80` — the bytes `HostFrameBudget.fillerNAL` writes.
    static func filler(payload n: Int) -> [UInt8] { [0, 0, 0, 1, 38 << 1, 1] + [UInt8](repeating: 0xFF, count: n) + [0x80] }

    /// Each AU with a filler NAL unit right after its last slice; sizes vary by AU (0 to 40 000
    /// bytes of 0xFF), and `betweenSlices` adds one after every slice of a multi-slice picture.
    static func padded(_ aus: [[UInt8]], betweenSlices: Bool = false) -> [[UInt8]] {
        aus.enumerated().map { i, au in
            let vcl = AnnexB.nalUnitRanges(in: au).filter { (au[$0.lowerBound] >> 1) & 0x3F < 32 }
            let cuts = betweenSlices ? vcl.map(\.upperBound) : [vcl.last?.upperBound ?? au.count]
            var out: [UInt8] = []
            var at = 0
            for (k, cut) in cuts.enumerated() {
                out += au[at..<cut]
                out += filler(payload: [0, 1, 997, 40_000][(i + k) % 4])
                at = cut
            }
            return out + au[at...]
        }
    }

    static func framemd5(_ bytes: [UInt8], name: String) throws -> [String] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("filler-\(getpid())-\(name).hevc").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let out = try FFmpeg.run(["-hide_banner", "-v", "error", "-f", "hevc", "-i", path, "-autoscale", "0", "-f", "framemd5", "-"])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stderr.isEmpty, "ffmpeg complained: \(out.stderr)")
        return out.stdout.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
    }

    /// (a) `ffmpeg -f hevc -i X -f framemd5 -` is line for line the same with and without filler.
    @Test(arguments: DecodeFixture.all)
    func libavcodecSkipsFiller(_ fixture: DecodeFixture) throws {
        let g = try fixture.load()
        let aus = AccessUnitSplitter.split(g.bytes)
        let withFiller = Self.padded(aus, betweenSlices: fixture.name == "two-slices").flatMap { $0 }
        #expect(withFiller.count > g.bytes.count + 40_000)
        let plain = try Self.framemd5(aus.flatMap { $0 }, name: "\(fixture.name)-plain")
        #expect(plain == g.ffmpegLines)
        #expect(try Self.framemd5(withFiller, name: "\(fixture.name)-filler") == plain)
    }

    /// (b) The splitter cuts the padded stream into the same AUs (each one the original plus its
    /// filler), with the same keyframes; the parser reads FD_NUT as an unparsed unit; the planner
    /// plans the same pictures, outputs and references; the software rung and the ladder give
    /// the same md5 per picture as ffmpeg, with no damage and no keyframe ask.
    @Test(arguments: DecodeFixture.all)
    func splitterPlannerAndSoftwareRungSkipFiller(_ fixture: DecodeFixture) throws {
        let g = try fixture.load()
        let aus = AccessUnitSplitter.split(g.bytes)
        let paddedAUs = Self.padded(aus, betweenSlices: fixture.name == "two-slices")
        let stream = paddedAUs.flatMap { $0 }
        // Splitter.
        let split = AccessUnitSplitter.split(stream)
        #expect(split == paddedAUs)
        #expect(AccessUnitSplitter.splitPreservingBytes(stream) == paddedAUs)
        #expect(AccessUnitSplitter.keyframeIndices(split) == AccessUnitSplitter.keyframeIndices(aus))
        // Parser + planner: the same plan for every AU.
        var plainParser = HEVCParser(), fillerParser = HEVCParser()
        var plainPlanner = DecodePlanner(), fillerPlanner = DecodePlanner()
        for (a, b) in zip(aus, split) {
            let plainUnits = plainParser.parseAnnexB(a).compactMap { try? $0.get() }
            let fillerResults = fillerParser.parseAnnexB(b)
            #expect(fillerResults.allSatisfy { if case .success = $0 { true } else { false } }, "every NAL unit parses")
            let fillerUnits = fillerResults.compactMap { try? $0.get() }
            #expect(fillerUnits.count > plainUnits.count)
            let p = plainPlanner.plan(plainUnits), q = fillerPlanner.plan(fillerUnits)
            #expect(q.warnings == p.warnings && q.warnings.isEmpty, "\(q.warnings)")
            #expect(q.picture?.poc == p.picture?.poc && q.picture?.surface == p.picture?.surface)
            #expect(q.picture?.nalUnitType == p.picture?.nalUnitType)
            #expect(q.output.map(\.poc) == p.output.map(\.poc) && q.output.map(\.surface) == p.output.map(\.surface))
            #expect(q.releasedSurfaces == p.releasedSurfaces && q.sessionFormat == p.sessionFormat)
            #expect(fillerPlanner.dpb == plainPlanner.dpb)
        }
        #expect(fillerPlanner.finish().output.map(\.poc) == plainPlanner.finish().output.map(\.poc))
        // Software rung (split → decode per AU → flush, as `punktfunk-kiosk decode` does).
        let (frames, errors) = try decodeAll(stream)
        #expect(errors.isEmpty, "\(errors)")
        let ours = frames.enumerated().map { FrameMD5.line(index: Int64($0.offset), frame: $0.element) }
        #expect(ours == g.ffmpegLines)
        #expect(frames.allSatisfy { !$0.damaged })
        // The ladder's software rung: no damage, no keyframe ask, the same checksums.
        SoftwareDecoder.setLibraryLogging(enabled: false)
        let ladder = DecoderLadder(configuration: .init(rungs: [.software]))
        var asks = 0
        ladder.onKeyframeRequest = { asks += 1 }
        var pictures: [DecodedPicture] = []
        for (i, au) in split.enumerated() {
            let report = ladder.decodeReporting(accessUnit: au, pts: Int64(i))
            #expect(!report.anyDamaged && !report.failed && !report.skipped)
            pictures += report.pictures
        }
        pictures += ladder.flush()
        let cpu = pictures.compactMap { if case .cpu(let f) = $0 { f } else { nil } }
        #expect(cpu.count == g.ffmpegLines.count && asks == 0)
        #expect(checksums(cpu.enumerated().map { FrameMD5.line(index: Int64($0.offset), frame: $0.element) }) == checksums(g.ffmpegLines))
    }
}
