import Testing
@testable import Display

@Suite struct PlaneGeometryTests {
    @Test func fittingPicturesAreCenteredUnscaled() {
        #expect(PlaneGeometry.fit(width: 640, height: 360, crtcWidth: 1280, crtcHeight: 800)
                == PixelRect(x: 320, y: 220, width: 640, height: 360))
        #expect(PlaneGeometry.fit(width: 1280, height: 800, crtcWidth: 1280, crtcHeight: 800)
                == PixelRect(x: 0, y: 0, width: 1280, height: 800))
        // Odd leftovers: the extra pixel goes right / bottom.
        #expect(PlaneGeometry.fit(width: 101, height: 51, crtcWidth: 200, crtcHeight: 100)
                == PixelRect(x: 49, y: 24, width: 101, height: 51))
    }

    @Test func widerPicturesScaleToTheWidth() {
        // 1920x1080 on 1280x800: 1280 x 720, letterboxed 40 px top and bottom.
        #expect(PlaneGeometry.fit(width: 1920, height: 1080, crtcWidth: 1280, crtcHeight: 800)
                == PixelRect(x: 0, y: 40, width: 1280, height: 720))
        // 3840x2160 on 1920x1080: exact 2:1.
        #expect(PlaneGeometry.fit(width: 3840, height: 2160, crtcWidth: 1920, crtcHeight: 1080)
                == PixelRect(x: 0, y: 0, width: 1920, height: 1080))
    }

    @Test func tallerPicturesScaleToTheHeight() {
        // 1080x1920 portrait on 1280x800: height 800, width 1080*800/1920 = 450.
        #expect(PlaneGeometry.fit(width: 1080, height: 1920, crtcWidth: 1280, crtcHeight: 800)
                == PixelRect(x: 415, y: 0, width: 450, height: 800))
        // 1300x800 on 1280x800 (wider by 20): width-limited, height 800*1280/1300 = 787.69 -> 788.
        #expect(PlaneGeometry.fit(width: 1300, height: 800, crtcWidth: 1280, crtcHeight: 800)
                == PixelRect(x: 0, y: 6, width: 1280, height: 788))
    }

    @Test func aspectIsKeptWithinHalfAPixel() {
        for (w, h) in [(1920, 1080), (1921, 1081), (4096, 2160), (720, 1280), (3000, 7)] {
            let r = PlaneGeometry.fit(width: w, height: h, crtcWidth: 1280, crtcHeight: 800)!
            #expect(r.width <= 1280 && r.height <= 800 && r.width >= 1 && r.height >= 1)
            #expect(r.width == 1280 || r.height == 800)
            let exactH = Double(h) * Double(r.width) / Double(w), exactW = Double(w) * Double(r.height) / Double(h)
            #expect(abs(Double(r.height) - exactH) <= 0.5 || abs(Double(r.width) - exactW) <= 0.5, "\(w)x\(h) -> \(r)")
        }
    }

    @Test func degenerateSizesHaveNoDestination() {
        #expect(PlaneGeometry.fit(width: 0, height: 10, crtcWidth: 10, crtcHeight: 10) == nil)
        #expect(PlaneGeometry.fit(width: 10, height: 10, crtcWidth: 0, crtcHeight: 10) == nil)
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
