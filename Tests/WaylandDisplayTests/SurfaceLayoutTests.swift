import Testing
@testable import WaylandDisplay

@Suite struct SurfaceLayoutTests {
    @Test func configuredSizeTimesScaleIsTheBufferSize() {
        let l = SurfaceLayout.configured(width: 1920, height: 1080, outputMode: (3840, 2160), scale: 2)
        #expect(l.logicalWidth == 1920 && l.bufferWidth == 3840 && l.bufferHeight == 2160)
    }

    @Test func zeroSizeFallsBackToTheOutputModeThenTo720p() {
        let fromOutput = SurfaceLayout.configured(width: 0, height: 0, outputMode: (2560, 1440), scale: 2)
        #expect(fromOutput == SurfaceLayout(logicalWidth: 1280, logicalHeight: 720, scale: 2))
        let noOutput = SurfaceLayout.configured(width: 0, height: 0, outputMode: nil, scale: 1)
        #expect(noOutput.bufferWidth == 1280 && noOutput.bufferHeight == 720)
        let halfZero = SurfaceLayout.configured(width: 800, height: 0, outputMode: (1280, 720), scale: 1)
        #expect(halfZero.logicalWidth == 800 && halfZero.logicalHeight == 720)
        let negative = SurfaceLayout.configured(width: -5, height: -5, outputMode: nil, scale: 0)
        #expect(negative.scale == 1 && negative.bufferWidth == 1280)
    }

    @Test func fitLetterboxesAndPillarboxes() {
        let tv = SurfaceLayout(logicalWidth: 1280, logicalHeight: 720, scale: 1)
        #expect(tv.fit(width: 640, height: 360)! == (0, 0, 1280, 720))          // same aspect: scaled up
        #expect(tv.fit(width: 1000, height: 1000)! == (280, 0, 720, 720))     // pillarbox
        #expect(tv.fit(width: 2560, height: 1080)! == (0, 90, 1280, 540))     // letterbox (21:9)
        #expect(tv.fit(width: 0, height: 10) == nil)
    }

    @Test func placementOnTheViewportFollowsTheKMSRule() {
        let tv = SurfaceLayout(logicalWidth: 1280, logicalHeight: 720, scale: 1)
        #expect(tv.place(width: 640, height: 360)! == (320, 180, 640, 360))     // fits: 1:1, centered
        #expect(tv.place(width: 1280, height: 720)! == (0, 0, 1280, 720))       // the asked-for mode
        #expect(tv.place(width: 1920, height: 1080)! == (0, 0, 1280, 720))      // larger: fitted
        #expect(tv.place(width: 2560, height: 1080)! == (0, 90, 1280, 540))
        let hidpi = SurfaceLayout(logicalWidth: 1280, logicalHeight: 720, scale: 2)   // 2560×1440 pixels
        #expect(hidpi.place(width: 1920, height: 1080)! == (160, 90, 960, 540))  // 1:1 in pixels
        #expect(hidpi.place(width: 2560, height: 1440)! == (0, 0, 1280, 720))
        #expect(tv.place(width: 0, height: 1) == nil)
    }

    @Test func bufferPlacementIsOneToOneWhenItFits() {
        let tv = SurfaceLayout(logicalWidth: 1280, logicalHeight: 720, scale: 1)
        #expect(tv.bufferPlacement(width: 640, height: 360)! == (320, 180, 640, 360))
        #expect(tv.bufferPlacement(width: 1920, height: 1080)! == (0, 0, 1280, 720))
        #expect(tv.bufferPlacement(width: 1920, height: 1200)! == (64, 0, 1152, 720))
    }

    @Test func outputStateTakesOnlyTheCurrentModeAndRefreshZero() {
        var o = OutputState(globalName: 3)
        o.handleMode(flags: 0x2, width: 640, height: 480, refreshMilliHz: 60_000)    // preferred only
        #expect(o.width == 0)
        o.handleMode(flags: 0x1, width: 1280, height: 720, refreshMilliHz: 0)       // virtual output
        o.handleScale(2)
        o.handleGeometry(make: "weston", model: "headless")
        #expect(!o.complete)
        o.handleDone()
        #expect(o.complete && o.width == 1280 && o.scale == 2 && o.displayName == "weston headless")
        #expect(o.refreshIntervalNs == 16_666_666)
        o.handleName("HEADLESS-1")
        #expect(o.displayName == "HEADLESS-1")
    }
}
