import Testing
import Screen
@testable import WaylandDisplay

@Suite struct SurfaceLayoutTests {
    @Test func configuredSizeTimesScaleIsTheBufferSizeWithoutAViewport() {
        let l = SurfaceLayout.configured(width: 1920, height: 1080, output: (3840, 2160, 2), viewport: false)
        #expect(l.logicalWidth == 1920 && l.pixelWidth == 3840 && l.pixelHeight == 2160 && l.bufferWidth == 3840)
    }

    @Test func zeroSizeFallsBackToTheOutputModeThenTo720p() {
        // xdg-shell.xml: 0 means the client decides.
        let fromOutput = SurfaceLayout.configured(width: 0, height: 0, output: (2560, 1440, 2))
        #expect(fromOutput.logicalWidth == 1280 && fromOutput.logicalHeight == 720 && fromOutput.pixelWidth == 2560)
        let noOutput = SurfaceLayout.configured(width: 0, height: 0, output: nil)
        #expect(noOutput.pixelWidth == 1280 && noOutput.pixelHeight == 720)
        let halfZero = SurfaceLayout.configured(width: 800, height: 0, output: (1280, 720, 1))
        #expect(halfZero.logicalWidth == 800 && halfZero.logicalHeight == 720)
        let negative = SurfaceLayout.configured(width: -5, height: -5, output: (0, 0, 0))
        #expect(negative.scale == 1 && negative.pixelWidth == 1280)
    }

    /// fractional-scale-v1.xml: buffer = surface size × scale/120, "rounded halfway away from
    /// zero" for toplevels; its own example: 100×50 at 1.5 is 150×75.
    @Test func aFractionalScaleGivesTheBufferSize() {
        let example = SurfaceLayout.configured(width: 100, height: 50, output: nil, fractionalScale120: 180)
        #expect(example.pixelWidth == 150 && example.pixelHeight == 75)
        let kwin = SurfaceLayout.configured(width: 1280, height: 800, output: (1920, 1200, 2), fractionalScale120: 180)
        #expect(kwin.pixelWidth == 1920 && kwin.pixelHeight == 1200 && kwin.logicalWidth == 1280)
        // 1.25 × 1366 = 1707.5 → 1708 (halfway away from zero).
        let odd = SurfaceLayout.configured(width: 1366, height: 768, output: nil, fractionalScale120: 150)
        #expect(odd.pixelWidth == 1708 && odd.pixelHeight == 960)
    }

    /// sway 1.7 at scale 1.5 says wl_output.scale 2 and has no fractional protocol: a fullscreen
    /// window is its output's mode in pixels, never logical × 2.
    @Test func aFullscreenWindowIsItsOutputsMode() {
        let sway = SurfaceLayout.configured(width: 1280, height: 720, output: (1920, 1080, 2))
        #expect(sway.pixelWidth == 1920 && sway.pixelHeight == 1080)
        let windowed = SurfaceLayout.configured(width: 1280, height: 720, output: (1920, 1080, 2), fullscreen: false)
        #expect(windowed.pixelWidth == 2560, "not fullscreen: logical × the integer scale")
        let noViewport = SurfaceLayout.configured(width: 1280, height: 720, output: (1920, 1080, 2), viewport: false)
        #expect(noViewport.pixelWidth == 2560 && noViewport.bufferWidth == 2560)
    }

    /// wayland.xml wl_output.transform: 90 and 270 (and their flipped forms) turn the mode.
    @Test func aTurnedOutputSwapsItsMode() {
        var o = OutputState(globalName: 1)
        o.handleMode(flags: 0x1, width: 1280, height: 720, refreshMilliHz: 60_000)
        for (transform, turned) in [(Int32(0), false), (1, true), (2, false), (3, true), (4, false), (5, true), (6, false), (7, true)] {
            o.handleGeometry(make: "m", model: "n", transform: transform)
            #expect((o.shownWidth, o.shownHeight) == (turned ? (720, 1280) : (1280, 720)), "transform \(transform)")
        }
        o.handleGeometry(make: "m", model: "n", transform: 1)
        let l = SurfaceLayout.configured(width: 720, height: 1280, output: (o.shownWidth, o.shownHeight, 1))
        #expect(l.pixelWidth == 720 && l.pixelHeight == 1280)
    }

    @Test func placesFollowTheRuleInPixelsAndLandInSurfaceUnits() {
        let tv = SurfaceLayout.configured(width: 1280, height: 720, output: (1280, 720, 1))
        #expect(tv.place(width: 640, height: 360, scaling: .fit) == PixelRect(x: 0, y: 0, width: 1280, height: 720))
        #expect(tv.place(width: 640, height: 360, scaling: .native) == PixelRect(x: 320, y: 180, width: 640, height: 360))
        #expect(tv.place(width: 1000, height: 1000, scaling: .fit) == PixelRect(x: 280, y: 0, width: 720, height: 720))
        let scaled = SurfaceLayout.configured(width: 1280, height: 800, output: nil, fractionalScale120: 180)  // 1920×1200
        let p = scaled.place(width: 640, height: 360, scaling: .fit)!
        #expect(p == PixelRect(x: 0, y: 60, width: 1920, height: 1080))
        #expect(scaled.logical(p) == PixelRect(x: 0, y: 40, width: 1280, height: 720))
        let native = scaled.place(width: 640, height: 360, scaling: .native)!
        #expect(scaled.logical(native) == PixelRect(x: 427, y: 280, width: 426, height: 240))
        let cage = SurfaceLayout.configured(width: 1280, height: 720, output: (1280, 720, 1), viewport: false)
        #expect(cage.bufferPlace(width: 1920, height: 1200, scaling: .native) == PixelRect(x: 64, y: 0, width: 1152, height: 720))
        #expect(tv.place(width: 0, height: 1, scaling: .fit) == nil)
    }

    @Test func outputStateTakesOnlyTheCurrentModeAndRefreshZero() {
        var o = OutputState(globalName: 3)
        o.handleMode(flags: 0x2, width: 640, height: 480, refreshMilliHz: 60_000)    // preferred only
        #expect(o.width == 0)
        o.handleMode(flags: 0x1, width: 1280, height: 720, refreshMilliHz: 0)       // virtual output
        o.handleScale(2)
        o.handleGeometry(make: "weston", model: "headless", transform: 0)
        #expect(!o.complete)
        o.handleDone()
        #expect(o.complete && o.width == 1280 && o.scale == 2 && o.displayName == "weston headless")
        #expect(o.refreshIntervalNs == 16_666_666)
        o.handleName("HEADLESS-1")
        #expect(o.displayName == "HEADLESS-1")
    }
}
