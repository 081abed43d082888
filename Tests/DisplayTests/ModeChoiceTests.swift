import Testing
@testable import Display

@Suite struct ModeChoiceTests {
    // The bochs-drm list shape (QEMU EDID): preferred 1280x800@75 among others.
    let modes = [
        DisplayMode(index: 0, width: 1920, height: 1080, refreshMilliHz: 60_000, vrefresh: 60, preferred: false),
        DisplayMode(index: 1, width: 1920, height: 1080, refreshMilliHz: 59_940, vrefresh: 60, preferred: false),
        DisplayMode(index: 2, width: 1920, height: 1080, refreshMilliHz: 60_000, vrefresh: 60, preferred: false, interlaced: true),
        DisplayMode(index: 3, width: 1280, height: 800, refreshMilliHz: 74_934, vrefresh: 75, preferred: true),
        DisplayMode(index: 4, width: 1280, height: 800, refreshMilliHz: 59_810, vrefresh: 60, preferred: false),
        DisplayMode(index: 5, width: 1024, height: 768, refreshMilliHz: 75_029, vrefresh: 75, preferred: false),
        DisplayMode(index: 6, width: 1024, height: 768, refreshMilliHz: 60_004, vrefresh: 60, preferred: false),
    ]

    @Test func parsesSizeAndRefresh() throws {
        #expect(ModeRequest(parsing: "1920x1080") == ModeRequest(width: 1920, height: 1080))
        #expect(ModeRequest(parsing: "1920x1080@60") == ModeRequest(width: 1920, height: 1080, refreshMilliHz: 60_000))
        #expect(ModeRequest(parsing: "1280x800@59.94") == ModeRequest(width: 1280, height: 800, refreshMilliHz: 59_940))
        #expect(try #require(ModeRequest(parsing: "1280x800@59.94")).description == "1280x800@59.94")
    }

    @Test func rejectsMalformedRequests() {
        for bad in ["", "1920", "1920x", "x1080", "0x1080", "1920x-1", "1920x1080@", "1920x1080@0",
                    "1920x1080@abc", "1920X1080", "99999x100", "1920x1080@60@60", "1920x1080@inf"] {
            #expect(ModeRequest(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func defaultIsThePreferredMode() {
        #expect(ModeChoice.choose(from: modes, request: nil)?.index == 3)
        // No preferred flag: the first progressive mode (the kernel lists the largest first).
        let unflagged = modes.map { var m = $0; m.preferred = false; return m }
        #expect(ModeChoice.choose(from: unflagged, request: nil)?.index == 0)
    }

    @Test func exactRefreshWinsWithinHalfAHertz() {
        #expect(ModeChoice.choose(from: modes, request: ModeRequest(parsing: "1920x1080@60"))?.index == 0)
        #expect(ModeChoice.choose(from: modes, request: ModeRequest(parsing: "1920x1080@59.94"))?.index == 1)
        #expect(ModeChoice.choose(from: modes, request: ModeRequest(parsing: "1280x800@60"))?.index == 4)
        #expect(ModeChoice.choose(from: modes, request: ModeRequest(parsing: "1280x800@75"))?.index == 3)
        #expect(ModeChoice.choose(from: modes, request: ModeRequest(parsing: "1280x800@50")) == nil)
        #expect(ModeChoice.choose(from: modes, request: ModeRequest(parsing: "800x600")) == nil)
    }

    @Test func sizeOnlyPrefersPreferredThenHighestRefresh() {
        #expect(ModeChoice.choose(from: modes, request: ModeRequest(parsing: "1280x800"))?.index == 3)
        #expect(ModeChoice.choose(from: modes, request: ModeRequest(parsing: "1024x768"))?.index == 5)
    }

    @Test func interlacedModesAreNeverChosen() {
        let onlyInterlaced = [DisplayMode(index: 0, width: 1920, height: 1080, refreshMilliHz: 60_000, vrefresh: 60,
                                          preferred: true, interlaced: true)]
        #expect(ModeChoice.choose(from: onlyInterlaced, request: nil) == nil)
    }

    @Test func refreshFromTimingAndName() {
        // CEA 1080p60: 148.5 MHz, 2200 x 1125.
        #expect(DisplayMode.refreshMilliHz(clockKHz: 148_500, htotal: 2200, vtotal: 1125) == 60_000)
        // 1080p59.94: 148.352 MHz.
        #expect(DisplayMode.refreshMilliHz(clockKHz: 148_352, htotal: 2200, vtotal: 1125) == 59_940)
        #expect(DisplayMode.refreshMilliHz(clockKHz: 1, htotal: 0, vtotal: 1125) == 0)
        #expect(modes[3].name == "1280x800@75")
        #expect(modes[0].refreshIntervalNs == 16_666_666)
    }
}
