/// The display section under an X server: whether the X11 backend can start (Present), the
/// window manager, keyboard and mouse through XInput 2.2, where pictures go (MIT-SHM or
/// PutImage, DRI3), and gamescope's focus when it runs the server.
extension DisplayJudge {
    static func x11(_ x: X11Observation) -> [Finding] {
        if let error = x.error {
            return [Finding("X server", .failed,
                            "DISPLAY=\(x.display) is set, but the probe could not talk to the X server: \(error).",
                            action: "Run the check inside the X session (or unset DISPLAY on a text console: the kiosk then drives KMS).")]
        }
        let who = serverName(x)
        var facts = [Fact("server", "\(x.vendor), release \(x.release)\(xorgVersion(x).map { " (\($0))" } ?? "")\(x.xwayland ? ", Xwayland" : "")"),
                     Fact("root window", "\(x.rootWidth)x\(x.rootHeight)"),
                     Fact("extensions", extensionList(x))]
        facts += x.outputs.isEmpty ? [Fact("outputs", x.randr == nil ? "unknown (no RandR)" : "no active CRTC")]
            : x.outputs.map { o in
                Fact("output \(o.name)", "\(o.width)x\(o.height)+\(o.x)+\(o.y), "
                     + (o.refreshMilliHz > 0 ? "\(hz1(Double(o.refreshMilliHz) / 1000)) Hz" : "no refresh given (its mode has no dot clock)"))
            }
        guard let present = x.present else {
            return [Finding("X server", .failed,
                            "\(who) (DISPLAY=\(x.display)) offers no Present extension: the X11 backend paces and times pictures with it and cannot start.",
                            action: "Use an X server with Present (X.Org 1.15 and later, Xwayland), or run the kiosk from a text console where it drives KMS.",
                            facts: facts)]
        }
        var out = [Finding("X server", .ok,
                           "the kiosk will run as a fullscreen X11 window on \(who) (DISPLAY=\(x.display), \(x.rootWidth)x\(x.rootHeight)), paced by Present \(present).",
                           facts: facts)]
        out.append(windowManagerFinding(x))
        out.append(xinputFinding(x))
        out.append(picturesFinding(x))
        if let g = gamescopeFinding(x) { out.append(g) }
        return out
    }

    /// The vendor string ("The X.Org Foundation"), marked when the server is Xwayland.
    static func serverName(_ x: X11Observation) -> String {
        x.xwayland ? "Xwayland (\(x.vendor))" : x.vendor.isEmpty ? "the X server" : x.vendor
    }

    /// X.Org's release number as a version: the server encodes 1.20.11 as 12011000 and, keeping
    /// the leading 1, 21.1.7 as 12101007 (major × 10⁷ + minor × 10⁵ + patch × 10³ + snapshot).
    /// nil for other vendors.
    static func xorgVersion(_ x: X11Observation) -> String? {
        guard x.vendor == "The X.Org Foundation", x.release >= 10_000_000 else { return nil }
        let r = x.release
        let (a, b, c, d) = (r / 10_000_000, r / 100_000 % 100, r / 1000 % 100, r % 1000)
        return a == 1 && b >= 21 ? "\(b).\(c).\(d)" : "\(a).\(b).\(c)"
    }

    static func extensionList(_ x: X11Observation) -> String {
        let all: [(String, X11Observation.Version?)] = [("Present", x.present), ("MIT-SHM", x.shm), ("DRI3", x.dri3),
                                                         ("XInput", x.xinput), ("XTEST", x.xtest), ("XFIXES", x.xfixes),
                                                         ("RANDR", x.randr)]
        return all.map { "\($0.0) \($0.1.map(\.description) ?? "—")" }.joined(separator: ", ")
    }

    static func windowManagerFinding(_ x: X11Observation) -> Finding {
        switch x.windowManager {
        case .running(let name):
            return Finding("window manager", .ok,
                           "\(name ?? "an unnamed window manager") manages windows (EWMH): the kiosk asks it for fullscreen with _NET_WM_STATE_FULLSCREEN.",
                           facts: [Fact("found by", "_NET_SUPPORTING_WM_CHECK on the root, naming a window that names itself")],
                           informational: true)
        case .stale:
            return Finding("window manager", .ok,
                           "no window manager runs (the root's _NET_SUPPORTING_WM_CHECK names a window that is gone): the kiosk covers the screen with its own window.",
                           informational: true)
        case .none:
            return Finding("window manager", .ok,
                           "no window manager runs: the kiosk covers the screen with its own window.",
                           informational: true)
        }
    }

    static func xinputFinding(_ x: X11Observation) -> Finding {
        if x.xinputUsable, let v = x.xinput {
            return Finding("keyboard and mouse", .ok, "XInput \(v): keyboard and mouse come through the X server.",
                           facts: [Fact("XTEST", x.xtest.map(\.description) ?? "not offered")])
        }
        let what = x.xinput.map { "only XInput \($0)" } ?? "no XInput 2"
        return Finding("keyboard and mouse", .degraded,
                       "\(serverName(x)) offers \(what); the kiosk needs 2.2 to read keyboard and mouse through the server, so only game pads (evdev) work.",
                       action: "Use an X server with XInput 2.2 (X.Org 1.12 and later, Xwayland), or run the kiosk from a text console where it reads evdev.")
    }

    static func picturesFinding(_ x: X11Observation) -> Finding {
        var facts = [Fact("MIT-SHM", x.shm.map { "\($0)" } ?? "not offered"),
                     Fact("DRI3", x.dri3.map { "\($0)" } ?? "not offered")]
        if let e = x.shmAttachError { facts.append(Fact("segment by fd", e)) }
        if x.pixels == "mit-shm" {
            return Finding("pictures", .ok, x.pictureSummary + ".", facts: facts)
        }
        return Finding("pictures", .degraded, x.pictureSummary + ".",
                       action: "Expect higher CPU load: every picture's rows are sent to the server; run the kiosk on the machine that shows the picture.",
                       facts: facts)
    }

    /// Only when gamescope runs the server, or Steam started this process.
    static func gamescopeFinding(_ x: X11Observation) -> Finding? {
        guard x.gamescope != nil || x.steamAppID != nil else { return nil }
        var facts: [Fact] = []
        if let how = x.gamescope { facts.append(Fact("gamescope", how)) }
        if let ids = x.steamFocusAppIDs {
            facts.append(Fact("Steam's focus list", ids.isEmpty ? "empty" : ids.map(String.init).joined(separator: ", ")))
        }
        let sentence = x.gamescopeProperties ?? ""
        if x.gamescope != nil, x.steamFocusAppIDs != nil, x.steamAppID == nil {
            return Finding("gamescope", .notAvailable,
                           "Steam steers focus in this gamescope (Game Mode: GAMESCOPECTRL_BASELAYER_APPID on the root), and this check was not started by Steam: a kiosk started the same way has no app id and is never focused.",
                           action: "Add punktfunk-kiosk to Steam as a non-Steam game and start it from the library; Steam then gives it the id gamescope focuses.",
                           facts: facts, informational: true)
        }
        return Finding("gamescope", .ok, sentence + ".", facts: facts, informational: true)
    }
}
