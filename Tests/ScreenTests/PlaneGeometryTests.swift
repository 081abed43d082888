import Testing
@testable import Screen

/// The rule's invariants over many sizes (the exact rectangles are FFmpeg's: ScalingRuleTests),
/// and the 16.16 source rectangles of the KMS planes.
@Suite struct PlaneGeometryTests {
    @Test func fitTouchesTwoOppositeEdgesWithTheAspectWithinHalfAPixel() {
        let screens = [(1280, 800), (1920, 1080), (1080, 1920), (1366, 768), (3840, 2160), (1023, 767)]
        let pictures = [(1920, 1080), (1921, 1081), (4096, 2160), (720, 1280), (3000, 7), (7, 3000), (640, 360), (1, 1),
                        (333, 199), (1280, 800)]
        for (sw, sh) in screens {
            for (w, h) in pictures {
                let r = PlaneGeometry.place(width: w, height: h, screenWidth: sw, screenHeight: sh, scaling: .fit)!
                #expect(r.width <= sw && r.height <= sh && r.width >= 1 && r.height >= 1)
                #expect((r.x == 0 && r.width == sw) || (r.y == 0 && r.height == sh), "\(w)x\(h) on \(sw)x\(sh) -> \(r)")
                #expect(r.x == (sw - r.width) / 2 && r.y == (sh - r.height) / 2)
                let exactH = Double(h) * Double(r.width) / Double(w), exactW = Double(w) * Double(r.height) / Double(h)
                #expect(abs(Double(r.height) - exactH) <= 0.5 || abs(Double(r.width) - exactW) <= 0.5, "\(w)x\(h) -> \(r)")
            }
        }
    }

    @Test func nativeIsOneToOneUntilThePictureIsLarger() {
        #expect(PlaneGeometry.place(width: 640, height: 360, screenWidth: 1280, screenHeight: 800, scaling: .native)
                == PixelRect(x: 320, y: 220, width: 640, height: 360))
        #expect(PlaneGeometry.place(width: 1920, height: 1080, screenWidth: 1280, screenHeight: 800, scaling: .native)
                == PlaneGeometry.place(width: 1920, height: 1080, screenWidth: 1280, screenHeight: 800, scaling: .fit))
        #expect(PlaneGeometry.place(width: 640, height: 360, screenWidth: 1280, screenHeight: 800, scaling: .fit)
                == PixelRect(x: 0, y: 40, width: 1280, height: 720))
    }

    @Test func sourceRectanglesAre16Dot16() {
        let r = FixedPointRect(PixelRect(x: 8, y: 4, width: 1920, height: 1080))
        #expect(r.x == 8 << 16 && r.y == 4 << 16)
        #expect(r.width == 0x0780_0000 && r.height == 0x0438_0000)
        #expect(FixedPointRect(PixelRect(x: -3, y: 0, width: 1, height: 1)).x == 0)
        #expect(PlaneGeometry.isScaled(source: PixelRect(x: 0, y: 0, width: 1920, height: 1080),
                                       destination: PixelRect(x: 0, y: 40, width: 1280, height: 720)))
        #expect(!PlaneGeometry.isScaled(source: PixelRect(x: 0, y: 0, width: 640, height: 360),
                                        destination: PixelRect(x: 320, y: 220, width: 640, height: 360)))
    }
}
