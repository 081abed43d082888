import Foundation
import FFmpegOracle
import HEVC
import Testing
import VideoDecode
import VideoFrames

/// The libavcodec rung's damage report: libavcodec 5.1 conceals a missing reference silently
/// (a grey picture in its place, nothing on the AVFrame), so `ReferenceDamage` finds it.
@Suite("libavcodec rung reports damage")
struct SoftwareDamageTests {
    /// 30 P pictures, an IDR every 10 (AU 0, 10, 20), 3 references each.
    static let lowDelay: Result<[UInt8], DecodeFixture.FixtureError> = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("damage-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: dir) }
        return Result {
            try FFmpeg.encodeTestStream(name: "lowdelay", in: dir, sizes: ["192x108"], frames: 30, pixelFormat: "yuv420p",
                                        x265: "keyint=10:min-keyint=10:bframes=0:scenecut=0:repeat-headers=1:info=0:log-level=none").bytes
        }.mapError { DecodeFixture.FixtureError(description: "\($0)") }
    }()

    @Test(.enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason))
    func droppedAccessUnitDamagesUntilTheNextIDR() throws {
        let aus = AccessUnitSplitter.split(try Self.lowDelay.get())
        #expect(aus.count == 30)
        SoftwareDecoder.setLibraryLogging(enabled: false)
        let decoder = try SoftwareDecoder()
        var frames: [DecodedFrame] = []
        for (i, au) in aus.enumerated() where i != 3 {
            frames += try decoder.decode(accessUnit: au, pts: Int64(i))
        }
        frames += decoder.flush()
        #expect(frames.map(\.pts) == (0..<30).filter { $0 != 3 }.map(Int64.init))
        // AU 4 names POC 3 in its RPS; 5…9 use 4; AU 10 is an IDR.
        #expect(frames.filter(\.damaged).map(\.pts) == Array(4...9))
    }

    /// Reordered output (a B-pyramid): the damage follows each picture to its output slot, and
    /// ends at the next IDR picture.
    @Test(.enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason))
    func damageFollowsReorderedPictures() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("damage-b-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let bytes = try FFmpeg.encodeTestStream(name: "pyramid", in: dir, sizes: ["192x108"], frames: 24, pixelFormat: "yuv420p",
                                                x265: "keyint=8:min-keyint=8:bframes=3:b-pyramid=1:ref=3:open-gop=0:scenecut=0:"
                                                    + "repeat-headers=1:info=0:log-level=none").bytes
        let aus = AccessUnitSplitter.split(bytes)
        let irap = aus.indices.filter { AccessUnitSplitter.containsIRAP(aus[$0]) }
        #expect(irap.count == 3 && irap[0] == 0)
        // Clean, the three GOPs have no damage (each IDR bumps pictures out of the planner's DPB:
        // their surfaces must come back, or the third GOP finds the pool exhausted).
        let clean = try decodeAll(bytes)
        #expect(clean.errors.isEmpty && clean.frames.count == 24)
        #expect(clean.frames.filter(\.damaged).isEmpty)
        SoftwareDecoder.setLibraryLogging(enabled: false)
        let decoder = try SoftwareDecoder()
        var frames: [DecodedFrame] = []
        for (i, au) in aus.enumerated() where i != 1 {  // the first P picture, every B's reference
            frames += try decoder.decode(accessUnit: au, pts: Int64(i))
        }
        frames += decoder.flush()
        #expect(frames.count == 23)
        let damaged = frames.filter(\.damaged).map(\.pts)
        #expect(Set(damaged) == Set((2..<irap[1]).map(Int64.init)))
        // The output order is not the decoding order, and the flags moved with the pictures.
        #expect(frames.map(\.pts) != frames.map(\.pts).sorted())
    }

    @Test(.enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason))
    func theLadderReportsDamageAndAsksForOneKeyframe() throws {
        let aus = AccessUnitSplitter.split(try Self.lowDelay.get())
        SoftwareDecoder.setLibraryLogging(enabled: false)
        let ladder = DecoderLadder(configuration: .init(rungs: [.software]))
        var keyframeRequests = 0
        ladder.onKeyframeRequest = { keyframeRequests += 1 }
        var damagedPTS: [Int64] = []
        for (i, au) in aus.enumerated() where i != 13 {
            let report = ladder.decodeReporting(accessUnit: au, pts: Int64(i))
            #expect(report.damaged.count == report.pictures.count)
            #expect(!report.failed && !report.skipped)
            damagedPTS += zip(report.pictures, report.damaged).filter(\.1).map(\.0.pts)
        }
        #expect(damagedPTS == Array(14...19))
        #expect(keyframeRequests == 1)
        // A rung waiting for an IRAP picture skips on purpose.
        ladder.restart()
        let waiting = ladder.decodeReporting(accessUnit: aus[5], pts: 100)
        #expect(waiting.skipped && !waiting.failed && waiting.pictures.isEmpty)
    }

    /// No damage on a clean decode of any corpus stream (B-pyramids, open GOP with RASL pictures,
    /// long-term-free size changes, 10-bit, the check clips).
    @Test(.enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason), arguments: VAAPIOracle.names)
    func cleanCorpusStreamsHaveNoDamage(_ name: String) throws {
        let stream = try VAAPIOracle.stream(name)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: stream.path)))
        let (frames, errors) = try decodeAll(bytes)
        #expect(errors.isEmpty, "\(errors)")
        #expect(!frames.isEmpty)
        #expect(frames.filter(\.damaged).map(\.pts) == [])
    }

    /// `restart()` drops what libavcodec holds (B pictures waiting for output too); a stream fed
    /// from its IDR afterwards decodes exactly as ffmpeg decodes it alone.
    @Test(.enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason))
    func restartThenAStreamFromItsIDRIsBitExact() throws {
        let before = try DecodeFixture.all.first { $0.name == "b-frames-odd-size" }!.load()
        let g = try DecodeFixture.all.first { $0.name == "main-8bit" }!.load()
        SoftwareDecoder.setLibraryLogging(enabled: false)
        let decoder = try SoftwareDecoder()
        for (i, au) in AccessUnitSplitter.split(before.bytes).prefix(5).enumerated() {
            _ = try decoder.decode(accessUnit: au, pts: 1000 + Int64(i))
        }
        decoder.restart()
        var frames: [DecodedFrame] = []
        for (i, au) in AccessUnitSplitter.split(g.bytes).enumerated() {
            frames += try decoder.decode(accessUnit: au, pts: Int64(i))
        }
        frames += decoder.flush()
        #expect(frames.allSatisfy { !$0.damaged })
        let ours = frames.enumerated().map { FrameMD5.line(index: Int64($0.offset), frame: $0.element) }
        #expect(ours == g.ffmpegLines)
    }

    /// The same through the ladder, mid-stream: a restart, then the stream again from its IDR.
    @Test(.enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason))
    func ladderRestartMidStreamThenFromTheIDR() throws {
        let g = try DecodeFixture.all.first { $0.name == "b-frames-odd-size" }!.load()
        let aus = AccessUnitSplitter.split(g.bytes)
        SoftwareDecoder.setLibraryLogging(enabled: false)
        let ladder = DecoderLadder(configuration: .init(rungs: [.software]))
        for (i, au) in aus.prefix(4).enumerated() { _ = ladder.decodeReporting(accessUnit: au, pts: 1000 + Int64(i)) }
        ladder.restart()
        #expect(ladder.awaitingIRAP)
        var pictures: [DecodedPicture] = []
        for (i, au) in aus.enumerated() {
            let report = ladder.decodeReporting(accessUnit: au, pts: Int64(i))
            #expect(!report.anyDamaged && !report.failed)
            pictures += report.pictures
        }
        pictures += ladder.flush()
        let frames = pictures.compactMap { if case .cpu(let f) = $0 { f } else { nil } }
        #expect(frames.count == pictures.count)
        let ours = frames.enumerated().map { FrameMD5.line(index: Int64($0.offset), frame: $0.element) }
        #expect(checksums(ours) == checksums(g.ffmpegLines))
    }
}
