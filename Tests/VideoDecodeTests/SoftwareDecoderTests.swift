import Foundation
import FFmpegOracle
import Testing
import HEVC
import VideoDecode
import VideoFrames

/// Decodes a whole stream the way `punktfunk-kiosk decode` does: split, decode per AU, flush.
func decodeAll(_ stream: [UInt8]) throws -> (frames: [DecodedFrame], errors: [DecodeError]) {
    SoftwareDecoder.setLibraryLogging(enabled: false)  // corrupted-stream tests would flood the log
    let decoder = try SoftwareDecoder()
    var frames: [DecodedFrame] = []
    var errors: [DecodeError] = []
    for (i, au) in AccessUnitSplitter.split(stream).enumerated() {
        do { frames += try decoder.decode(accessUnit: au, pts: Int64(i)) } catch { errors.append(error) }
    }
    frames += decoder.flush()
    return (frames, errors)
}

func checksums(_ lines: [String]) -> [String] {
    lines.map { String($0.split(separator: ",").last ?? "").trimmingCharacters(in: .whitespaces) }
}

@Suite("libavcodec rung vs ffmpeg framemd5")
struct SoftwareDecoderOracleTests {
    @Test(.enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason), arguments: DecodeFixture.all)
    func framemd5MatchesFFmpeg(_ fixture: DecodeFixture) throws {
        let g = try fixture.load()
        let (frames, errors) = try decodeAll(g.bytes)
        #expect(errors.isEmpty, "\(errors)")
        #expect(!g.ffmpegLines.isEmpty)
        let ours = frames.enumerated().map { FrameMD5.line(index: Int64($0.offset), frame: $0.element) }
        #expect(ours.count == g.ffmpegLines.count)
        #expect(checksums(ours) == checksums(g.ffmpegLines))
        // Whole lines too (dts, pts, duration, size columns).
        #expect(ours == g.ffmpegLines)
        // Header lines, with the time base from the first SPS as the decode command takes it.
        var parser = HEVCParser()
        let sps = parser.parseAnnexB(g.bytes).compactMap { r -> SequenceParameterSet? in
            if case .success(let u) = r, case .sps(let s) = u.payload { return s } else { return nil }
        }.first
        let first = try #require(frames.first)
        let header = FrameMD5.header(width: first.visibleWidth, height: first.visibleHeight,
                                     timeBase: try FrameMD5.timeBase(of: #require(sps)))
        #expect(header == g.ffmpegHeader)
    }

    @Test(.enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason))
    func colourMetadataFromTheStream() throws {
        let g = try DecodeFixture.all.first { $0.name == "main10-bt2020-pq" }!.load()
        let (frames, _) = try decodeAll(g.bytes)
        #expect(!frames.isEmpty)
        for f in frames {
            #expect(f.pixelFormat == .p010)
            #expect(f.colour.primaries == 9)
            #expect(f.colour.transfer == 16)
            #expect(f.colour.matrix == 9)
            #expect(!f.colour.fullRange)
        }
        let eight = try DecodeFixture.all.first { $0.name == "main-8bit" }!.load()
        let first = try #require(try decodeAll(eight.bytes).frames.first)
        #expect(first.pixelFormat == .nv12)
        // 108 rows are coded as 112 (8-sample minimum CU); the conformance window crops 4.
        #expect(first.height == 112 && first.crop.bottom == 4 && first.visibleHeight == 108)
        #expect(first.width == 192 && first.visibleWidth == 192)
    }

    /// 8-bit luma planes are lent from libavcodec's frame pool, not copied: a frame must keep its
    /// pixels while the decoder goes on decoding into its pool, and after the decoder is freed.
    @Test(.enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason))
    func lentLumaOutlivesTheDecoder() throws {
        let g = try DecodeFixture.all.first { $0.name == "main-8bit" }!.load()
        SoftwareDecoder.setLibraryLogging(enabled: false)
        var decoder: SoftwareDecoder? = try SoftwareDecoder()
        var kept: [(frame: DecodedFrame, md5: String)] = []
        for (i, au) in AccessUnitSplitter.split(g.bytes).enumerated() {
            for f in try decoder!.decode(accessUnit: au, pts: Int64(i)) { kept.append((f, FrameMD5.hex(FrameMD5.nativeBytes(of: f)))) }
        }
        for f in decoder!.flush() { kept.append((f, FrameMD5.hex(FrameMD5.nativeBytes(of: f)))) }
        decoder = nil
        #expect(kept.count == g.ffmpegLines.count)
        for (f, md5) in kept { #expect(FrameMD5.hex(FrameMD5.nativeBytes(of: f)) == md5) }
        #expect(kept.map(\.md5) == checksums(g.ffmpegLines))
    }

    @Test(.enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason))
    func resolutionChangeAndPTS() throws {
        let g = try DecodeFixture.all.first { $0.name == "resolution-change" }!.load()
        let (frames, _) = try decodeAll(g.bytes)
        #expect(frames.map(\.visibleWidth) == [192, 192, 192, 128, 128, 128])
        #expect(frames.map(\.pts) == [0, 1, 2, 3, 4, 5])
    }

    @Test(.enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason), arguments: [DecodeFixture.all[0], DecodeFixture.all[1]])
    func truncatedAndCorruptedStreamsNeverTrap(_ fixture: DecodeFixture) throws {
        let g = try fixture.load()
        let bytes = g.bytes
        // Truncations at a spread of points.
        for cut in stride(from: 1, to: bytes.count, by: max(1, bytes.count / 7)) {
            _ = try decodeAll(Array(bytes.prefix(cut)))
        }
        // Seeded bit flips (skipping nothing: parameter sets get hit too).
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 11 }
        for _ in 0..<4 {
            var damaged = bytes
            for _ in 0..<12 {
                let i = Int(next() % UInt64(damaged.count))
                damaged[i] ^= UInt8(1 << (next() % 8))
            }
            let (frames, _) = try decodeAll(damaged)
            for f in frames { #expect(f.planes.count == 2) }
        }
        // Garbage access units straight into the decoder.
        SoftwareDecoder.setLibraryLogging(enabled: false)
        let decoder = try SoftwareDecoder()
        for n in [1, 3, 5, 64, 1000] {
            let junk = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 1) }
            _ = try? decoder.decode(accessUnit: [0, 0, 1] + junk, pts: 0)
            _ = try? decoder.decode(accessUnit: junk, pts: 0)
        }
        _ = decoder.flush()
        #expect(try decoder.decode(accessUnit: [], pts: 0).isEmpty)
    }
}
