import Foundation
import FFmpegOracle
import Testing
import VideoFrames

/// Static HDR metadata from the mastering-display and content-light-level SEI, through
/// libavcodec's frame side data, against the values given to the encoder.
@Suite("HDR side data of the libavcodec rung")
struct HDRSideDataTests {
    /// libx265's ST 2086 notation: G, B, R and white point in 0.00002 units, L(max, min) in
    /// 0.0001 cd/m²; max-cll is MaxCLL,MaxFALL in cd/m².
    static let x265 = "keyint=4:bframes=0:repeat-headers=1:info=0:log-level=none:hdr10=1"
        + ":colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc"
        + ":master-display=G(8500,39850)B(6550,2300)R(35400,14600)WP(15635,16450)L(10000000,50)"
        + ":max-cll=1000,400"
    static let expected = HDRStaticMetadata(
        red: .init(x: 35_400, y: 14_600), green: .init(x: 8_500, y: 39_850), blue: .init(x: 6_550, y: 2_300),
        whitePoint: .init(x: 15_635, y: 16_450), maxMasteringLuminance: 1_000, minMasteringLuminance: 50,
        maxCLL: 1_000, maxFALL: 400)

    /// One scratch directory per test (the tests run in parallel).
    static func directory(_ test: String) -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("hdr-side-data-\(ProcessInfo.processInfo.processIdentifier)-\(test)")
    }

    @Test(.enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason))
    func masteringDisplayAndContentLightLevelEqualTheEncoderParameters() throws {
        let dir = Self.directory("hdr10")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (bytes, _) = try FFmpeg.encodeTestStream(name: "hdr10", in: dir, sizes: ["192x108"], frames: 6,
                                                     pixelFormat: "yuv420p10le", x265: Self.x265)
        let (frames, errors) = try decodeAll(bytes)
        #expect(errors.isEmpty, "\(errors)")
        #expect(frames.count == 6)
        for f in frames {
            #expect(f.colour.primaries == 9 && f.colour.transfer == 16)
            #expect(f.hdr == Self.expected)
        }
    }

    @Test(.enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason))
    func aStreamWithoutTheSEIHasNoMetadata() throws {
        let dir = Self.directory("pq-no-sei")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (bytes, _) = try FFmpeg.encodeTestStream(
            name: "pq-no-sei", in: dir, sizes: ["192x108"], frames: 2, pixelFormat: "yuv420p10le",
            x265: "keyint=4:bframes=0:info=0:log-level=none:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc")
        let (frames, _) = try decodeAll(bytes)
        #expect(frames.count == 2)
        #expect(frames.allSatisfy { $0.hdr == nil && $0.colour.transfer == 16 })
    }
}
