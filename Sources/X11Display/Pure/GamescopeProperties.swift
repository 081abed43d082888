/// The window properties that make gamescope focus the kiosk, decided from the process
/// environment. Pure: the screen sets `properties` with `xcb_change_property` (mode Replace)
/// before it maps the window and prints `sentence` in its start-up report.
///
/// How gamescope picks the focused window (ValveSoftware/gamescope `src/steamcompmgr.cpp`, read
/// at HEAD 2026-08 and at tag 3.11.51; both agree on every point below):
/// - Without `-e` (`steamMode` false) every window's app id is its own X window id (`add_win`,
///   `map_win`): any mapped window is a candidate and nothing needs setting.
/// - With `-e` (Steam's Game Mode) a window's app id comes from its process chain:
///   `get_appid_from_pid` walks `/proc/<pid>/stat` parents to the root and, for each process
///   named `reaper`, takes `AppId=<u32>` from its command line when an earlier argument was
///   `SteamLaunch` (arguments after `--` are not read); the outermost reaper wins. `map_win` then
///   reads the window's `STEAM_GAME` (CARDINAL) and, when it is non-zero, lets it override the
///   chain ("Let the appID property be authoritative"). `handle_property_notify` re-reads it on
///   change and takes even 0. Properties set before mapping are read by `map_win` (gamescope
///   selects PropertyChangeMask on a window only there).
/// - In `-e` mode a window whose app id is 0 is not a focus candidate at all
///   (`GetPossibleFocusWindows` at HEAD under the SteamControlled strategy that `-e` selects in
///   `main.cpp`; `determine_and_apply_focus(ctx, …)` in 3.11.51), unless it is Steam's own
///   (`window_is_steam`: `STEAM_BIGPICTURE` or app id 769).
/// - Steam names what to focus in the root's `GAMESCOPECTRL_BASELAYER_APPID` (a list of app ids)
///   or `GAMESCOPECTRL_BASELAYER_WINDOW`; `pick_primary_focus_and_override` takes the first
///   candidate whose app id is in that list. Steam chooses from the root's
///   `GAMESCOPE_FOCUSABLE_APPS`, which `determine_and_apply_focus` fills from candidates that are
///   not 1×1 (`win_is_useless`), not skip-taskbar-and-pager unless fullscreen
///   (`win_skip_and_not_fullscreen`) and not override-redirect.
///
/// Which id Steam gives a non-Steam shortcut: a 32-bit shortcut app id (its high bit set), seen
/// as `reaper SteamLaunch AppId=2929382885 -- …` in gamescope issue #484. Steam does not put it in
/// `SteamAppId` (Valve's steam-runtime-tools `docs/steam-compat-tool-interface.md`, "Non-Steam
/// games": `STEAM_COMPAT_APP_ID` is 0, `SteamAppId` unset; protonfixes PR #51 saw `SteamAppId=0`).
/// `SteamGameId` (and `SteamOverlayGameId`) carry the 64-bit game id, whose layout is SteamKit's
/// `GameID`: app id in bits 0–23, type in bits 24–31 (2 = shortcut), mod id in bits 32–63 — for a
/// shortcut the mod id is the 32-bit app id (steam-for-linux #8580: Steam logs `AppID 3429715210`
/// for `rungameid/14730514661577326592`, whose high half that is).
///
/// The decision:
/// - `STEAM_GAME` = the id Steam gave this launch — the reaper chain's `AppId` when the caller
///   read one (`SteamLaunchAncestry`), else `SteamAppId`, else the app id inside `SteamGameId`,
///   else inside `SteamOverlayGameId`. It equals what gamescope reads from the chain, so it never
///   clashes with it, and it still names the app when the chain is hidden (a sandbox's PID
///   namespace, gamescope #484; XRes unable to give the window's pid).
/// - Nothing is invented when Steam gave no id: an id Steam did not list in
///   `GAMESCOPECTRL_BASELAYER_APPID` is never focused, and without `-e` none is needed. The
///   property is only read in `-e` mode, so it is set whether or not gamescope was detected.
/// - Never `STEAM_BIGPICTURE` (it makes the window Steam's own, app id 769), `STEAM_OVERLAY` or
///   `GAMESCOPE_EXTERNAL_OVERLAY` (overlays are never focused), `_NET_WM_WINDOW_OPACITY` 0 (a
///   translucent window is skipped).
///
/// What the window itself must be (the screen's part, not set here): InputOutput, larger than
/// 1×1, not override-redirect, and if it says skip-taskbar and skip-pager then also
/// `_NET_WM_STATE_FULLSCREEN` (`get_net_wm_state`).
public struct GamescopeProperties: Sendable, Equatable {
    /// The X type of a property. Only CARDINAL is used; its predefined atom is fixed by the core
    /// protocol, so no intern round trip is needed for it.
    public enum PropertyType: String, Sendable, Equatable {
        case cardinal = "CARDINAL"

        /// The core protocol's predefined atom (CARDINAL = 6).
        public var predefinedAtom: UInt32 {
            switch self { case .cardinal: 6 }
        }
    }

    /// One property to set on the kiosk's window before it is mapped.
    public struct Property: Sendable, Equatable {
        /// The atom's name (interned by the screen).
        public var name: String
        public var type: PropertyType
        /// Bits per value: 32 for CARDINAL.
        public var format: UInt8
        public var values: [UInt32]
        public init(name: String, type: PropertyType, format: UInt8, values: [UInt32]) {
            self.name = name; self.type = type; self.format = format; self.values = values
        }
    }

    /// Where the app id came from.
    public enum Source: Sendable, Equatable {
        /// A `reaper SteamLaunch AppId=N` ancestor (what gamescope reads itself).
        case reaper
        /// An environment variable, by name (`SteamAppId`, `SteamGameId`, `SteamOverlayGameId`).
        case environment(String)
    }

    /// In the order to set them (empty: nothing to set).
    public var properties: [Property]
    /// The app id written as `STEAM_GAME` (nil: none was given).
    public var appID: UInt32?
    public var source: Source?
    /// One sentence for the start-up report.
    public var sentence: String

    public init(properties: [Property], appID: UInt32?, source: Source?, sentence: String) {
        self.properties = properties; self.appID = appID; self.source = source; self.sentence = sentence
    }

    /// The property gamescope reads a window's Steam app id from (`GAME_PROP` in steamcompmgr.cpp).
    public static let steamGame = "STEAM_GAME"

    /// - Parameters:
    ///   - environment: the process environment.
    ///   - insideGamescope: whether the X server is gamescope's Xwayland (`GAMESCOPE_WAYLAND_DISPLAY`
    ///     set — gamescope's `main.cpp` exports it to its children — or the root's
    ///     `GAMESCOPE_FOCUSABLE_APPS` present). Changes only the sentence.
    ///   - reaperAppID: the `AppId` of a `reaper SteamLaunch` ancestor, when the caller read one
    ///     (`SteamLaunchAncestry.appID()`); it wins over the environment.
    public static func forWindow(environment: [String: String], insideGamescope: Bool,
                                 reaperAppID: UInt32? = nil) -> GamescopeProperties {
        let found: (id: UInt32, source: Source)? = reaperAppID.flatMap { $0 == 0 ? nil : ($0, .reaper) }
            ?? steamAppID(environment: environment).map { ($0.id, .environment($0.variable)) }
        guard let (id, source) = found else {
            let sentence = insideGamescope
                ? "gamescope: no Steam app id (not launched by Steam), so no STEAM_GAME; plain gamescope focuses the window anyway, Steam's Game Mode (gamescope -e) focuses only what Steam launched — add the kiosk to Steam as a non-Steam game"
                : "gamescope: not launched by Steam, no STEAM_GAME set"
            return GamescopeProperties(properties: [], appID: nil, source: nil, sentence: sentence)
        }
        let from: String
        switch source {
        case .reaper: from = "the reaper SteamLaunch AppId of the process chain"
        case .environment(let name): from = name
        }
        let sentence = insideGamescope
            ? "gamescope: STEAM_GAME=\(id) on the window (from \(from)), so Steam's Game Mode focuses the kiosk"
            : "launched by Steam: STEAM_GAME=\(id) on the window (from \(from)); only gamescope reads it"
        return GamescopeProperties(
            properties: [Property(name: steamGame, type: .cardinal, format: 32, values: [id])],
            appID: id, source: source, sentence: sentence)
    }

    /// Whether the environment says gamescope runs this X server: gamescope's `main.cpp` sets
    /// `GAMESCOPE_WAYLAND_DISPLAY` (and `DISPLAY`) for the processes it starts.
    public static func insideGamescope(environment: [String: String]) -> Bool {
        !(environment["GAMESCOPE_WAYLAND_DISPLAY"] ?? "").isEmpty
    }

    /// The app id Steam gave this launch, from the first of `SteamAppId`, `SteamGameId`,
    /// `SteamOverlayGameId` that holds a non-zero one (nil: none does).
    public static func steamAppID(environment: [String: String]) -> (id: UInt32, variable: String)? {
        if let text = environment["SteamAppId"], let v = UInt32(text.trimmed), v != 0 { return (v, "SteamAppId") }
        for name in ["SteamGameId", "SteamOverlayGameId"] {
            if let text = environment[name], let id = appID(gameID: text) { return (id, name) }
        }
        return nil
    }

    /// The app id inside a decimal game id (nil: not a number, or 0).
    /// - A value that fits 32 bits is an app id as it is (a Steam app, or a bare shortcut id).
    /// - Wider, it is a 64-bit game id (SteamKit `GameID`): type 2 (shortcut, bits 24–31) → the
    ///   mod id (bits 32–63), which is the shortcut's 32-bit app id; any other type → the app id
    ///   (bits 0–23).
    public static func appID(gameID text: String) -> UInt32? {
        guard let v = UInt64(text.trimmed), v != 0 else { return nil }
        if v <= UInt64(UInt32.max) { return UInt32(v) }
        let type = (v >> 24) & 0xFF
        let id = type == 2 ? UInt32(truncatingIfNeeded: v >> 32) : UInt32(truncatingIfNeeded: v & 0xFF_FFFF)
        return id == 0 ? nil : id
    }

    /// The `AppId` a `reaper` process's command line gives, read as gamescope's
    /// `get_appid_from_pid` reads it: NUL-separated arguments after the first; `AppId=<u32>`
    /// counts once `SteamLaunch` came before it, a later one replaces an earlier one, reading
    /// stops at `--`. nil: none (or 0).
    /// - Parameter commandLine: the bytes of `/proc/<pid>/cmdline`.
    public static func appID(reaperCommandLine commandLine: [UInt8]) -> UInt32? {
        let arguments = commandLine.split(separator: 0, omittingEmptySubsequences: false).dropFirst()
        var steamLaunch = false
        var found: UInt32?
        for bytes in arguments {
            let argument = String(decoding: bytes, as: UTF8.self)
            if argument == "SteamLaunch" {
                steamLaunch = true
            } else if argument.hasPrefix("AppId=") {
                // sscanf "%u": the leading digits.
                let digits = argument.dropFirst("AppId=".count).prefix(while: { $0.isASCII && $0.isNumber })
                if let v = UInt32(digits), v != 0, steamLaunch { found = v }
            } else if argument == "--" {
                break
            }
        }
        return found
    }
}

private extension String {
    var trimmed: Substring {
        let s = drop(while: { $0 == " " || $0 == "\t" || $0 == "\n" })
        return s.prefix(while: { $0 != " " && $0 != "\t" && $0 != "\n" })
    }
}
