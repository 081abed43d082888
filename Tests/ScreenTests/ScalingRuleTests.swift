import Foundation
import Testing
import FFmpegOracle
@testable import Screen

/// The scaling rule (`PlaneGeometry.place`) against FFmpeg's own fit: a white RGB picture of the
/// stream's size (RGB: a YUV 4:2:0 source would be cut to even sizes) through `scale=W:H:force_original_aspect_ratio=decrease` (libavfilter's
/// scale_eval: each extent rounded to nearest from the other) and `pad=W:H:(ow-iw)/2:(oh-ih)/2`
/// on black, the white rectangle's bounds read back from the gray frame.
@Suite struct ScalingRuleTests {
    struct OracleFailure: Error { var why: String }

    /// (picture, screen) pairs: up and down, wider and taller, equal aspect, odd sizes, extremes.
    static let cases: [(picture: (Int, Int), screen: (Int, Int))] = [
        ((640, 360), (1920, 1080)),    // the demo on a 1080p TV: up, equal aspect
        ((640, 360), (1024, 768)),     // up, wider: letterbox
        ((640, 360), (1080, 1920)),    // up onto a rotated panel
        ((1280, 720), (3840, 2160)),   // a capped host on a 4K TV
        ((2560, 1440), (3840, 2160)),  // a 1440p encoder on a 4K TV (×1.5)
        ((1920, 1080), (1280, 800)),   // down, wider
        ((1080, 1920), (1280, 800)),   // down, taller: pillarbox
        ((1000, 1000), (1280, 720)),   // square, up: pillarbox
        ((320, 240), (1024, 768)),     // 4:3 on 4:3: exact ×3.2
        ((320, 240), (1280, 800)),     // 4:3 up onto 16:10
        ((2560, 1080), (1920, 1080)),  // 21:9 on 16:9
        ((1920, 1200), (1280, 720)),   // 16:10 down onto 16:9
        ((101, 51), (200, 100)),       // odd leftovers
        ((333, 199), (1366, 768)),     // odd both ways
        ((1921, 1081), (1366, 768)),   // just off 16:9
        ((719, 401), (1024, 600)),
        ((3000, 7), (1280, 800)),      // a sliver
        ((7, 3000), (1280, 800)),
        ((1, 1), (1921, 1079)),
        ((1280, 800), (1280, 800)),    // exactly the screen
    ]

    /// FFmpeg's placement of the picture on the screen: the white rectangle's (x, y, w, h), after
    /// its fit (`scaled`) or its pad alone.
    static func ffmpegFit(_ p: (Int, Int), on s: (Int, Int), scaled: Bool = true) throws -> PixelRect {
        let fit = scaled ? "scale=\(s.0):\(s.1):force_original_aspect_ratio=decrease," : ""
        let filter = fit + "pad=\(s.0):\(s.1):(ow-iw)/2:(oh-ih)/2:black,format=gray"
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-fit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = dir.appendingPathComponent("frame.gray")
        let out = try FFmpeg.run(["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "color=white:size=\(p.0)x\(p.1):d=1,format=rgb24",
                                  "-frames:v", "1", "-vf", filter, "-f", "rawvideo", "-y", raw.path])
        guard out.status == 0 else { throw OracleFailure(why: out.stderr) }
        let bytes = [UInt8](try Data(contentsOf: raw))
        guard bytes.count == s.0 * s.1 else { throw OracleFailure(why: "\(bytes.count) bytes for \(s.0)x\(s.1)") }
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        for y in 0..<s.1 {
            for x in 0..<s.0 where bytes[y * s.0 + x] > 127 {
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        return PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
    }

    @Test(.enabled(if: FFmpeg.path != nil, "needs ffmpeg (Tests/tools/install-deps.sh)"), arguments: cases.indices)
    func fitIsFFmpegsFit(_ index: Int) throws {
        let (p, s) = Self.cases[index]
        let want = try Self.ffmpegFit(p, on: s)
        let got = PlaneGeometry.place(width: p.0, height: p.1, screenWidth: s.0, screenHeight: s.1, scaling: .fit)
        #expect(got == want, "\(p.0)x\(p.1) on \(s.0)x\(s.1)")
        // Two opposite edges touched.
        if let got { #expect((got.x == 0 && got.width == s.0) || (got.y == 0 && got.height == s.1)) }
    }

    @Test(.enabled(if: FFmpeg.path != nil, "needs ffmpeg (Tests/tools/install-deps.sh)"), arguments: cases.indices)
    func nativeIsFFmpegsPadWhenItFits(_ index: Int) throws {
        let (p, s) = Self.cases[index]
        let got = PlaneGeometry.place(width: p.0, height: p.1, screenWidth: s.0, screenHeight: s.1, scaling: .native)
        if p.0 <= s.0, p.1 <= s.1 {
            #expect(got == (try Self.ffmpegFit(p, on: s, scaled: false)), "fits: unscaled, padded")
        } else {
            #expect(got == (try Self.ffmpegFit(p, on: s)), "larger than the screen: scaled down as fit")
        }
    }

    @Test func emptySizesHaveNoPlace() {
        for scaling in PictureScaling.allCases {
            #expect(PlaneGeometry.place(width: 0, height: 5, screenWidth: 10, screenHeight: 10, scaling: scaling) == nil)
            #expect(PlaneGeometry.place(width: 5, height: 5, screenWidth: 10, screenHeight: -1, scaling: scaling) == nil)
        }
    }

    @Test func rescaledRectanglesKeepTheirTouchingEdges() {
        // 1920×1080 pixels of a 1280×720 surface (scale 1.5): a letterboxed 4:3 picture.
        let px = PlaneGeometry.place(width: 640, height: 480, screenWidth: 1920, screenHeight: 1080, scaling: .fit)!
        #expect(px == PixelRect(x: 240, y: 0, width: 1440, height: 1080))
        let l = PlaneGeometry.rescale(px, pixelWidth: 1920, pixelHeight: 1080, logicalWidth: 1280, logicalHeight: 720)
        #expect(l == PixelRect(x: 160, y: 0, width: 960, height: 720))
        // An edge at 1/3 of a unit rounds to the nearest; the far edge still meets the screen's.
        let odd = PlaneGeometry.rescale(PixelRect(x: 1, y: 0, width: 1919, height: 1080), pixelWidth: 1920, pixelHeight: 1080,
                                        logicalWidth: 1280, logicalHeight: 720)
        #expect(odd == PixelRect(x: 1, y: 0, width: 1279, height: 720))
        let tiny = PlaneGeometry.rescale(PixelRect(x: 10, y: 10, width: 1, height: 1), pixelWidth: 300, pixelHeight: 300,
                                         logicalWidth: 100, logicalHeight: 100)
        #expect(tiny.width == 1 && tiny.height == 1)
    }
}
