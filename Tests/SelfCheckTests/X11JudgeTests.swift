import SelfCheck
import Testing

/// The display section under an X server, fed probe results recorded here: Xvfb 21.1.7
/// (`Xvfb -screen 0 1280x720x24`, Debian 12) answers Present 1.2, MIT-SHM 1.2 (a memfd segment
/// attaches), no DRI3, XInput 2.4, XTEST 2.2, XFIXES 6.0, RANDR 1.6 with one CRTC "screen" whose
/// mode has no dot clock; matchbox-window-manager names itself "matchbox".
@Suite("check: display judging under an X server")
struct X11JudgeTests {
    /// `X11PicturePath.summary` for Xvfb, as `punktfunk-kiosk probe` printed it there.
    static let xvfbSummary = "pictures and the shell through MIT-SHM pixmaps, presented with Present; VA-API pictures read back and converted on the CPU — the X server offers no DRI3 (no GPU behind it, or a virtual server such as Xvfb)"

    static let xvfb = X11Observation(
        display: ":57", vendor: "The X.Org Foundation", release: 12_101_007, rootWidth: 1280, rootHeight: 720,
        outputs: [.init(name: "screen", width: 1280, height: 720, refreshMilliHz: 0)],
        present: .init(1, 2), shm: .init(1, 2), dri3: nil, xinput: .init(2, 4), xtest: .init(2, 2), xfixes: .init(6, 0),
        randr: .init(1, 6), shmAttachWorks: true, windowManager: .running(name: "matchbox"),
        gamescopeProperties: "gamescope: not launched by Steam, no STEAM_GAME set",
        pixels: "mit-shm", dri3Offered: false, pictureSummary: xvfbSummary)

    func finding(_ s: Section, _ subject: String) -> Finding? { s.findings.first { $0.subject == subject } }

    func judge(_ x: X11Observation, cards: [DisplayObservation.Card] = []) -> Section {
        DisplayJudge.judge(.init(compositor: .x11(x), cards: cards))
    }

    @Test func xvfbWithAWindowManagerRunsAsAnX11Window() {
        let s = judge(Self.xvfb)
        let server = finding(s, "X server")
        #expect(server?.verdict == .ok)
        #expect(server?.why == "the kiosk will run as a fullscreen X11 window on The X.Org Foundation (DISPLAY=:57, 1280x720), paced by Present 1.2.")
        #expect(server?.facts.contains(Fact("server", "The X.Org Foundation, release 12101007 (21.1.7)")) == true)
        #expect(server?.facts.contains(Fact("extensions", "Present 1.2, MIT-SHM 1.2, DRI3 —, XInput 2.4, XTEST 2.2, XFIXES 6.0, RANDR 1.6")) == true)
        #expect(server?.facts.contains(Fact("output screen", "1280x720+0+0, no refresh given (its mode has no dot clock)")) == true)
        #expect(finding(s, "window manager")?.why.hasPrefix("matchbox manages windows") == true)
        #expect(finding(s, "keyboard and mouse")?.verdict == .ok)
        let pictures = finding(s, "pictures")
        #expect(pictures?.verdict == .ok)
        #expect(pictures?.why == Self.xvfbSummary + ".")
        // No gamescope, not started by Steam: no gamescope finding.
        #expect(finding(s, "gamescope") == nil)
        // No DRM card under X: a side fact, and the session says where the kiosk shows.
        let kms = finding(s, "KMS")
        #expect(kms?.informational == true)
        #expect(kms?.facts.first?.value.hasPrefix("under an X server: the kiosk shows a fullscreen X11 window") == true)
        #expect(s.verdict == .ok)
    }

    @Test func olderXOrgReleasesReadAsOnePointSomething() {
        var x = Self.xvfb
        x.release = 12_011_000
        #expect(finding(judge(x), "X server")?.facts.first?.value == "The X.Org Foundation, release 12011000 (1.20.11)")
        x.vendor = "Some Other Vendor"
        #expect(finding(judge(x), "X server")?.facts.first?.value == "Some Other Vendor, release 12011000")
    }

    @Test func anUnreachableServerFails() {
        let x = X11Observation(display: ":9", error: "no X server answers at DISPLAY=:9 (connection error)")
        let s = judge(x)
        #expect(finding(s, "X server")?.verdict == .failed)
        #expect(finding(s, "X server")?.why.contains("could not talk to the X server") == true)
        #expect(finding(s, "X server")?.action != nil)
        #expect(s.verdict == .failed)
        #expect(!Report(program: "t", sections: [s]).passed)
    }

    @Test func withoutPresentTheBackendCannotStart() {
        var x = Self.xvfb
        x.present = nil
        let s = judge(x)
        #expect(finding(s, "X server")?.verdict == .failed)
        #expect(finding(s, "X server")?.why.contains("offers no Present extension") == true)
        // Nothing else is judged of a server the backend cannot use; KMS is no side fact then.
        #expect(finding(s, "pictures") == nil)
        #expect(finding(s, "KMS")?.informational == false)
    }

    @Test func withoutXInputTwoPointTwoOnlyPadsWork() {
        var x = Self.xvfb
        x.xinput = nil
        #expect(finding(judge(x), "keyboard and mouse")?.verdict == .degraded)
        #expect(finding(judge(x), "keyboard and mouse")?.why.contains("no XInput 2") == true)
        x.xinput = .init(2, 1)
        #expect(finding(judge(x), "keyboard and mouse")?.verdict == .degraded)
        #expect(finding(judge(x), "keyboard and mouse")?.why.contains("only XInput 2.1") == true)
        #expect(judge(x).verdict == .degraded)
    }

    @Test func putImageIsDegraded() {
        var x = Self.xvfb
        x.shmAttachWorks = false
        x.shmAttachError = "the server refused the segment (X error 10)"
        x.pixels = "put-image"
        x.pictureSummary = "CPU pictures and the shell sent with PutImage (the server could not attach our shared memory (it runs on another machine)); no dma-buf pixmaps: …; all presented with Present"
        let p = finding(judge(x), "pictures")
        #expect(p?.verdict == .degraded)
        #expect(p?.facts.contains(Fact("segment by fd", "the server refused the segment (X error 10)")) == true)
    }

    @Test func withoutAWindowManagerTheKioskCoversTheScreenItself() {
        var x = Self.xvfb
        x.windowManager = .none
        let wm = finding(judge(x), "window manager")
        #expect(wm?.verdict == .ok)
        #expect(wm?.why == "no window manager runs: the kiosk covers the screen with its own window.")
        x.windowManager = .stale
        #expect(finding(judge(x), "window manager")?.why.contains("names a window that is gone") == true)
    }

    @Test func xwaylandIsNamed() {
        var x = Self.xvfb
        x.xwayland = true
        #expect(finding(judge(x), "X server")?.why.contains("on Xwayland (The X.Org Foundation)") == true)
    }

    /// In Game Mode Steam writes GAMESCOPECTRL_BASELAYER_APPID; a process Steam did not start has
    /// no app id, and gamescope -e never focuses such a window (steamcompmgr.cpp).
    @Test func gameModeWithoutASteamIdWarns() {
        var x = Self.xvfb
        x.windowManager = .running(name: "steamcompmgr")
        x.gamescope = "the root has GAMESCOPE_FOCUSABLE_APPS and GAMESCOPE_FOCUSED_APP; GAMESCOPE_WAYLAND_DISPLAY is set"
        x.steamFocusAppIDs = [769]
        let g = finding(judge(x), "gamescope")
        #expect(g?.verdict == .notAvailable)
        #expect(g?.informational == true)
        #expect(g?.action?.contains("non-Steam game") == true)
        #expect(g?.facts.contains(Fact("Steam's focus list", "769")) == true)

        x.steamAppID = 3_501_819_989
        x.gamescopeProperties = "gamescope: STEAM_GAME=3501819989 on the window (from SteamGameId), so Steam's Game Mode focuses the kiosk"
        let ok = finding(judge(x), "gamescope")
        #expect(ok?.verdict == .ok)
        #expect(ok?.why.contains("STEAM_GAME=3501819989") == true)
    }
}
