import Testing
@testable import X11Display

/// What the kiosk sets on its window for gamescope. Expected values come from gamescope's
/// `src/steamcompmgr.cpp` (`GAME_PROP "STEAM_GAME"`, read as a 32-bit CARDINAL by `get_prop` in
/// `map_win`; `get_appid_from_pid`'s reading of a reaper's command line) and from ids Steam
/// printed in public issues, never from this code's own output.
@Suite("gamescope: the window properties that get the kiosk focused")
struct GamescopePropertiesTests {
    /// A reaper's command line as gamescope issue #484 quotes it (a non-Steam shortcut), NUL-separated.
    static let reaper484: [UInt8] = Array((["/home/dor/.var/app/com.valvesoftware.Steam/.local/share/Steam/ubuntu12_32/reaper",
                                            "SteamLaunch", "AppId=2929382885", "--",
                                            "/media/storage/SteamLibrary/steamapps/common/SteamLinuxRuntime_soldier/_v2-entry-point",
                                            "--verb=waitforexitandrun", "--", "/media/storage/SteamExternal/glxgears/glxgears"]
        .joined(separator: "\u{0}") + "\u{0}").utf8)

    static func cmdline(_ args: [String]) -> [UInt8] { Array((args.joined(separator: "\u{0}") + "\u{0}").utf8) }

    @Test func aReaperCommandLineGivesItsAppId() {
        #expect(GamescopeProperties.appID(reaperCommandLine: Self.reaper484) == 2_929_382_885)
    }

    @Test func appIdCountsOnlyAfterSteamLaunchAndBeforeTheDoubleDash() {
        #expect(GamescopeProperties.appID(reaperCommandLine: Self.cmdline(["reaper", "AppId=440", "SteamLaunch", "--"])) == nil)
        #expect(GamescopeProperties.appID(reaperCommandLine: Self.cmdline(["reaper", "SteamLaunch", "--", "AppId=440"])) == nil)
        #expect(GamescopeProperties.appID(reaperCommandLine: Self.cmdline(["reaper", "SteamLaunch", "AppId=0", "--"])) == nil)
        // argv[0] is never read (gamescope looks only after a NUL).
        #expect(GamescopeProperties.appID(reaperCommandLine: Self.cmdline(["AppId=440"])) == nil)
        // A later AppId replaces an earlier one; sscanf's %u takes the leading digits.
        #expect(GamescopeProperties.appID(reaperCommandLine: Self.cmdline(["reaper", "SteamLaunch", "AppId=440", "AppId=570x"])) == 570)
        // Past 32 bits %u has no defined value; we take none.
        #expect(GamescopeProperties.appID(reaperCommandLine: Self.cmdline(["reaper", "SteamLaunch", "AppId=4294967296"])) == nil)
    }

    /// steam-for-linux #8580: `steam://rungameid/14730514661577326592` is logged by Steam as
    /// `GameAction [AppID 3429715210 …]`; steamtinkerlaunch #1117: the shortcut with app id
    /// 3501819989 is launched as `steam://gamelaunchid/15040202329267634176`.
    @Test func aShortcutGameIdCarriesTheAppIdInItsHighHalf() {
        #expect(GamescopeProperties.appID(gameID: "14730514661577326592") == 3_429_715_210)
        #expect(GamescopeProperties.appID(gameID: "15040202329267634176") == 3_501_819_989)
        // A Steam app's game id is its app id.
        #expect(GamescopeProperties.appID(gameID: "570") == 570)
        // A bare 32-bit shortcut id is taken as it is.
        #expect(GamescopeProperties.appID(gameID: "2929382885") == 2_929_382_885)
        // A mod (type 1): the app id in the low 24 bits.
        #expect(GamescopeProperties.appID(gameID: String((UInt64(7) << 32) | (1 << 24) | 220)) == 220)
        #expect(GamescopeProperties.appID(gameID: "0") == nil)
        #expect(GamescopeProperties.appID(gameID: "") == nil)
        #expect(GamescopeProperties.appID(gameID: "abc") == nil)
    }

    /// A non-Steam shortcut launched by Steam: `SteamAppId` unset or 0 (steam-compat-tool-interface.md
    /// "Non-Steam games"; protonfixes PR #51), the game id in `SteamGameId`.
    @Test func aNonSteamShortcutGetsSteamGameFromSteamGameId() {
        let env = ["SteamAppId": "0", "SteamGameId": "15040202329267634176", "SteamOverlayGameId": "15040202329267634176",
                   "GAMESCOPE_WAYLAND_DISPLAY": "gamescope-0", "DISPLAY": ":0"]
        let g = GamescopeProperties.forWindow(environment: env, insideGamescope: GamescopeProperties.insideGamescope(environment: env))
        #expect(g.properties == [.init(name: "STEAM_GAME", type: .cardinal, format: 32, values: [3_501_819_989])])
        #expect(g.appID == 3_501_819_989)
        #expect(g.source == .environment("SteamGameId"))
        #expect(g.sentence.contains("STEAM_GAME=3501819989"))
        #expect(g.sentence.contains("SteamGameId"))
    }

    @Test func aSteamAppUsesSteamAppId() {
        let g = GamescopeProperties.forWindow(environment: ["SteamAppId": "570", "SteamGameId": "570"], insideGamescope: true)
        #expect(g.properties.map(\.values) == [[570]])
        #expect(g.source == .environment("SteamAppId"))
    }

    @Test func onlyTheOverlayIdIsEnoughToo() {
        let g = GamescopeProperties.forWindow(environment: ["SteamOverlayGameId": "14730514661577326592"], insideGamescope: true)
        #expect(g.appID == 3_429_715_210)
        #expect(g.source == .environment("SteamOverlayGameId"))
    }

    /// The reaper chain is what gamescope reads itself: it wins, so STEAM_GAME can never clash with it.
    @Test func theReaperChainWinsOverTheEnvironment() {
        let g = GamescopeProperties.forWindow(environment: ["SteamGameId": "15040202329267634176"], insideGamescope: true,
                                              reaperAppID: 2_929_382_885)
        #expect(g.properties.map(\.values) == [[2_929_382_885]])
        #expect(g.source == .reaper)
        let zero = GamescopeProperties.forWindow(environment: ["SteamAppId": "440"], insideGamescope: true, reaperAppID: 0)
        #expect(zero.source == .environment("SteamAppId"))
    }

    /// `gamescope -- punktfunk-kiosk` (no -e): app id = window id, nothing to set; in -e mode an
    /// unlisted id would not be focused either, so none is invented.
    @Test func withoutAnIdFromSteamNothingIsSet() {
        let inside = GamescopeProperties.forWindow(environment: ["GAMESCOPE_WAYLAND_DISPLAY": "gamescope-0"], insideGamescope: true)
        #expect(inside.properties.isEmpty)
        #expect(inside.appID == nil)
        #expect(inside.sentence.contains("non-Steam game"))
        let desktop = GamescopeProperties.forWindow(environment: ["DISPLAY": ":0"], insideGamescope: false)
        #expect(desktop.properties.isEmpty)
        #expect(!desktop.sentence.isEmpty)
    }

    @Test func cardinalIsPredefinedAtomSix() {
        // X11 core protocol, predefined atoms: CARDINAL = 6.
        #expect(GamescopeProperties.PropertyType.cardinal.predefinedAtom == 6)
        #expect(GamescopeProperties.PropertyType.cardinal.rawValue == "CARDINAL")
    }

    @Test func insideGamescopeFollowsGamescopeWaylandDisplay() {
        #expect(GamescopeProperties.insideGamescope(environment: ["GAMESCOPE_WAYLAND_DISPLAY": "gamescope-0"]))
        #expect(!GamescopeProperties.insideGamescope(environment: ["GAMESCOPE_WAYLAND_DISPLAY": ""]))
        #expect(!GamescopeProperties.insideGamescope(environment: ["DISPLAY": ":1"]))
    }

    /// `/proc/<pid>/stat`: the name sits between the first "(" and the last ")" (it may hold both).
    @Test func statLinesGiveNameAndParent() {
        let line = Array("4242 (reaper) S 4100 4242 4100 0 -1 4194560".utf8)
        #expect(SteamLaunchAncestry.parseStat(line)?.name == "reaper")
        #expect(SteamLaunchAncestry.parseStat(line)?.parent == 4100)
        let odd = Array("77 (a (b) c) R 1 77 77 0".utf8)
        #expect(SteamLaunchAncestry.parseStat(odd)?.name == "a (b) c")
        #expect(SteamLaunchAncestry.parseStat(odd)?.parent == 1)
        #expect(SteamLaunchAncestry.parseStat(Array("garbage".utf8)) == nil)
    }

    /// The test runner is not started by Steam: the walk reaches pid 1 and finds no reaper.
    @Test func theTestRunnerHasNoReaperAncestor() {
        #expect(SteamLaunchAncestry.appID() == nil)
    }
}
