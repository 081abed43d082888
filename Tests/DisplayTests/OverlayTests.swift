import Foundation
import Testing
@testable import Display
@testable import Screen

@Suite struct OverlayTests {
    let linear = FormatModifier.linear

    // MARK: plane choice

    // vkms with enable_overlay=1: XRGB primary, eight ARGB overlays, an ARGB cursor; no zpos.
    var vkmsPlanes: [PlaneDescription] {
        [PlaneDescription(id: 31, kind: .primary, possibleCRTCs: 1, formats: [.xrgb8888: [linear]])]
            + (0..<8).map { PlaneDescription(id: 40 + UInt32($0), kind: .overlay, possibleCRTCs: 1,
                                             formats: [.argb8888: [linear], .xrgb8888: [linear]]) }
            + [PlaneDescription(id: 33, kind: .cursor, possibleCRTCs: 1, formats: [.argb8888: [linear]])]
    }

    @Test func vkmsOverlaysAboveAPrimaryVideoPlane() {
        let video = PlanePlan(plane: 31, kind: .primary, format: .xrgb8888, modifier: linear)
        let c = OverlayPlaneChoice.candidates(planes: vkmsPlanes.reversed(), crtcIndex: 0, video: video)
        #expect(c.map(\.plane) == Array(40...47))   // ascending id, the cursor never
        #expect(c.allSatisfy { $0.zpos == nil })
        #expect(OverlayPlaneChoice.candidates(planes: vkmsPlanes, crtcIndex: 1, video: video).isEmpty)
    }

    @Test func noCandidateOnAPrimaryOnlyDevice() {
        let bochs = [PlaneDescription(id: 33, kind: .primary, possibleCRTCs: 1, formats: [.xrgb8888: [linear]])]
        let video = PlanePlan(plane: 33, kind: .primary, format: .xrgb8888, modifier: linear)
        #expect(OverlayPlaneChoice.candidates(planes: bochs, crtcIndex: 0, video: video).isEmpty)
        // A plan naming an unknown plane has no candidates either.
        let ghost = PlanePlan(plane: 99, kind: .primary, format: .xrgb8888, modifier: linear)
        #expect(OverlayPlaneChoice.candidates(planes: vkmsPlanes, crtcIndex: 0, video: ghost).isEmpty)
    }

    @Test func zposAboveAnOverlayVideoPlane() {
        typealias Z = PlaneDescription.ZPos
        let planes = [
            PlaneDescription(id: 40, kind: .primary, possibleCRTCs: 1, formats: [.xrgb8888: [linear]], zpos: Z(value: 0, min: 0, max: 0, immutable: true)),
            PlaneDescription(id: 41, kind: .overlay, possibleCRTCs: 1, formats: [.nv12: [linear]], zpos: Z(value: 0, min: 0, max: 3, immutable: false)),
            PlaneDescription(id: 42, kind: .overlay, possibleCRTCs: 1, formats: [.argb8888: [linear]], zpos: Z(value: 0, min: 0, max: 3, immutable: false)),
            PlaneDescription(id: 43, kind: .overlay, possibleCRTCs: 1, formats: [.argb8888: [linear]], zpos: Z(value: 1, min: 1, max: 1, immutable: true)),
            PlaneDescription(id: 44, kind: .overlay, possibleCRTCs: 1, formats: [.argb8888: [0x0100_0000_0000_0001]], zpos: Z(value: 3, min: 3, max: 3, immutable: true)),
            PlaneDescription(id: 45, kind: .overlay, possibleCRTCs: 1, formats: [.argb8888: [linear]], zpos: Z(value: 3, min: 3, max: 3, immutable: true)),
        ]
        // The video plan raised 41 to zpos 1: 42 is raised to 2, 43 (immutable at 1) cannot stack,
        // 44 has no linear AR24, 45 already sits above.
        let video = PlanePlan(plane: 41, kind: .overlay, format: .nv12, modifier: linear, backgroundPlane: 40, zpos: 1)
        let c = OverlayPlaneChoice.candidates(planes: planes, crtcIndex: 0, video: video)
        #expect(c == [OverlayPlanePlan(plane: 42, zpos: 2), OverlayPlanePlan(plane: 45)])
    }

    @Test func withoutZposPlaneOrderDecidesAboveAnOverlayVideoPlane() {
        let planes = [
            PlaneDescription(id: 30, kind: .primary, possibleCRTCs: 1, formats: [.xrgb8888: [linear]]),
            PlaneDescription(id: 31, kind: .overlay, possibleCRTCs: 1, formats: [.argb8888: [linear]]),
            PlaneDescription(id: 32, kind: .overlay, possibleCRTCs: 1, formats: [.nv12: [linear]]),
            PlaneDescription(id: 33, kind: .overlay, possibleCRTCs: 1, formats: [.argb8888: [linear]]),
        ]
        let video = PlanePlan(plane: 32, kind: .overlay, format: .nv12, modifier: linear, backgroundPlane: 30)
        #expect(OverlayPlaneChoice.candidates(planes: planes, crtcIndex: 0, video: video).map(\.plane) == [33])
    }

    // MARK: blending

    /// A 2×2 image: opaque red, transparent, half-transparent white (premultiplied 128), 25 % black.
    func sample(x: Int, y: Int) -> OverlayImage {
        OverlayImage(width: 2, height: 2, x: x, y: y, pixels: [
            0, 0, 255, 255,   0, 0, 0, 0,
            128, 128, 128, 128,   0, 0, 0, 64,
        ], generation: 1)
    }

    func xrgb(width: Int, height: Int, fill: UInt32) -> [UInt32] { Array(repeating: fill, count: width * height) }

    @Test func blendIsSourceOverPremultiplied() {
        var buf = xrgb(width: 4, height: 3, fill: 0xFF_64_C8_32)   // R 100, G 200, B 50
        buf.withUnsafeMutableBytes { b in
            sample(x: 1, y: 1).blend(into: b.baseAddress!, pitch: 16, bufferWidth: 4, bufferHeight: 3,
                                     video: PixelRect(x: 0, y: 0, width: 4, height: 3))
        }
        #expect(buf[1 * 4 + 1] == 0xFF_FF_00_00)   // opaque red replaces
        #expect(buf[1 * 4 + 2] == 0xFF_64_C8_32)   // transparent keeps
        // 128 + v·127/255 rounded: R 100 → 178, G 200 → 228, B 50 → 153.
        #expect(buf[2 * 4 + 1] == 0xFF_B2_E4_99)
        // 0 + v·191/255: R 75, G 150, B 37.
        #expect(buf[2 * 4 + 2] == 0xFF_4B_96_25)
        // Outside the image: untouched.
        #expect(buf[0] == 0xFF_64_C8_32 && buf[1 * 4 + 3] == 0xFF_64_C8_32 && buf[2 * 4] == 0xFF_64_C8_32)
    }

    @Test func outsideTheVideoTheImageLiesOnBlackAndIsClipped() {
        // Stale pixels (an earlier blend) outside the video rectangle must not show through.
        var buf = xrgb(width: 3, height: 3, fill: 0xFF_FF_FF_FF)
        buf.withUnsafeMutableBytes { b in
            sample(x: 2, y: 2).blend(into: b.baseAddress!, pitch: 12, bufferWidth: 3, bufferHeight: 3,
                                     video: PixelRect(x: 0, y: 0, width: 2, height: 3))
        }
        #expect(buf[8] == 0xFF_FF_00_00)                     // only (2,2) is inside the buffer
        #expect(buf[0..<8].allSatisfy { $0 == 0xFF_FF_FF_FF })
        var partly = xrgb(width: 3, height: 3, fill: 0xFF_FF_FF_FF)
        partly.withUnsafeMutableBytes { b in
            sample(x: 1, y: 1).blend(into: b.baseAddress!, pitch: 12, bufferWidth: 3, bufferHeight: 3,
                                     video: PixelRect(x: 0, y: 0, width: 2, height: 3))
        }
        #expect(partly[1 * 3 + 2] == 0xFF_00_00_00)           // transparent over "black" outside the video
        #expect(partly[2 * 3 + 2] == 0xFF_00_00_00)           // 25 % black over black
        #expect(partly[2 * 3 + 1] == 0xFF_FF_FF_FF)           // inside the video: 128 + 255·127/255 = 255
        // Entirely off the buffer: nothing happens.
        var off = xrgb(width: 2, height: 2, fill: 7)
        off.withUnsafeMutableBytes { b in
            sample(x: -5, y: 0).blend(into: b.baseAddress!, pitch: 8, bufferWidth: 2, bufferHeight: 2,
                                      video: PixelRect(x: 0, y: 0, width: 2, height: 2))
        }
        #expect(off == [7, 7, 7, 7])
    }

    @Test func dumpWritesHeaderAndPixels() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("overlay-\(getpid()).argb").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let image = sample(x: 7, y: 9)
        #expect(image.dump(to: path))
        let data = try #require(FileManager.default.contents(atPath: path))
        let header = Array("PFOVERLAY 2 2 7 9\n".utf8)
        #expect(Array(data.prefix(header.count)) == header)
        #expect(Array(data.dropFirst(header.count)) == image.pixels)
        #expect(!image.dump(to: "/nonexistent-dir/x.argb"))
    }

    // MARK: text

    @Test func rendererDrawsTextOnASemiTransparentBox() throws {
        let r = try #require(OverlayRenderer(modeWidth: 1280, modeHeight: 800))
        #expect(r.fontSize == 800.0 / 45)
        #expect(r.x > 0 && r.y > 0 && r.x + r.width <= 1280 && r.y + r.height <= 800)
        #expect(r.width > 38 * 8 && r.height > 5 * 17)   // 38 columns, 5 lines of a ≥ 17.7 px font
        let lines = StatsFigures(fps: 60, mbps: 10).lines(latencyLabel: "capture→glass")
        let a = try #require(r.render(lines))
        #expect(a.width == r.width && a.height == r.height && a.x == r.x && a.y == r.y)
        #expect(a.pixels.count == a.width * a.height * 4)
        // The corner is box only: black at 60 % (alpha 153), premultiplied colour 0.
        #expect(Array(a.pixels[0..<4]) == [0, 0, 0, 153])
        // Text: some opaque near-white pixels, and every pixel at least as opaque as the box.
        var bright = 0, belowBox = 0
        for i in stride(from: 0, to: a.pixels.count, by: 4) {
            if a.pixels[i + 3] == 255 && a.pixels[i + 2] > 200 { bright += 1 }
            if a.pixels[i + 3] < 153 { belowBox += 1 }
            #expect(a.pixels[i] <= a.pixels[i + 3] && a.pixels[i + 2] <= a.pixels[i + 3])   // premultiplied
        }
        #expect(bright > 100)
        #expect(belowBox == 0)
        // Same text → same pixels, next generation; other text → other pixels.
        let b = try #require(r.render(lines))
        #expect(b.pixels == a.pixels && b.generation == a.generation + 1)
        let c = try #require(r.render(StatsFigures(fps: 30, mbps: 10).lines(latencyLabel: "capture→glass")))
        #expect(c.pixels != a.pixels)
    }

    @Test func rendererScalesWithTheMode() throws {
        let small = try #require(OverlayRenderer(modeWidth: 640, modeHeight: 360))
        let large = try #require(OverlayRenderer(modeWidth: 3840, modeHeight: 2160))
        #expect(small.fontSize == 10)   // the floor
        #expect(large.fontSize == 48)
        #expect(large.height > 4 * small.height)
        // A mode narrower than the box clips the box to the mode.
        let tiny = try #require(OverlayRenderer(modeWidth: 64, modeHeight: 64))
        #expect(tiny.width == 64 && tiny.x == 0)
        #expect(OverlayRenderer(modeWidth: 0, modeHeight: 64) == nil)
    }
}
