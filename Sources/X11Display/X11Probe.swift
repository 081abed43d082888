#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Screen
import SystemClock
internal import CXCB

/// What an X server offers the kiosk, as `check` and `probe` report it. Pure value.
public struct X11ProbeResult: Sendable, Equatable {
    /// An extension's version as the server answered a query for the newest one this probe knows
    /// (servers answer min(asked, theirs)).
    public struct Version: Sendable, Equatable, Comparable, CustomStringConvertible {
        public var major: UInt32
        public var minor: UInt32
        public init(_ major: UInt32, _ minor: UInt32) { self.major = major; self.minor = minor }
        public var description: String { "\(major).\(minor)" }
        public static func < (a: Version, b: Version) -> Bool { (a.major, a.minor) < (b.major, b.minor) }
        var tuple: (major: UInt32, minor: UInt32) { (major, minor) }
    }

    /// An active RandR CRTC: where it sits on the root, pixels, and its mode's refresh.
    public struct CRTC: Sendable, Equatable {
        public var id: UInt32
        /// The names of the outputs it drives (e.g. "HDMI-1"; Xvfb's is "screen").
        public var outputs: [String]
        public var x: Int, y: Int, width: Int, height: Int
        /// mHz; 0 when the mode gives no dot clock (Xvfb, some virtual servers).
        public var refreshMilliHz: Int
        public init(id: UInt32, outputs: [String], x: Int, y: Int, width: Int, height: Int, refreshMilliHz: Int) {
            self.id = id; self.outputs = outputs; self.x = x; self.y = y; self.width = width; self.height = height
            self.refreshMilliHz = refreshMilliHz
        }
    }

    /// The EWMH window manager, found as the spec says: the root's `_NET_SUPPORTING_WM_CHECK`
    /// names a window whose own `_NET_SUPPORTING_WM_CHECK` names itself; its `_NET_WM_NAME`
    /// (UTF8_STRING) is the manager's name.
    public enum WindowManager: Sendable, Equatable {
        /// No `_NET_SUPPORTING_WM_CHECK` on the root.
        case none
        /// The root names a window that is gone or does not name itself: a manager that exited.
        case stale(window: UInt32)
        /// nil name: the manager sets none.
        case running(window: UInt32, name: String?)
    }

    /// `DISPLAY` as given.
    public var display: String
    public var screen: Int
    /// The server's vendor string and release number (X.Org 21.1.7: "The X.Org Foundation", 12101007).
    public var vendor: String
    public var release: UInt32
    /// The root window's size, pixels, and depth, bits.
    public var rootWidth: Int, rootHeight: Int, rootDepth: Int
    /// Active CRTCs (empty: no RandR, or none active).
    public var crtcs: [CRTC]
    public var present: Version?
    public var shm: Version?
    public var dri3: Version?
    /// XInput 2 (XIQueryVersion); nil: no XInputExtension, or it answers below 2.0.
    public var xinput: Version?
    public var xtest: Version?
    public var xfixes: Version?
    public var randr: Version?
    /// Whether an MIT-SHM segment passed by fd (a memfd) was attached (and detached again).
    public var shmAttachWorks: Bool
    /// Why not, when tried (nil: worked, or MIT-SHM < 1.2 so not tried).
    public var shmAttachError: String?
    /// The server is Xwayland: it offers the `XWAYLAND` extension (Xwayland 23.1 and later), or
    /// its RandR outputs are named `XWAYLAND<n>` (older ones: Debian 12's 22.1.9 has no extension).
    public var xwayland: Bool
    public var windowManager: WindowManager
    /// Which of gamescope's root properties (`GAMESCOPE_FOCUSABLE_APPS`, `GAMESCOPE_FOCUSED_APP`)
    /// are on the root: gamescope's `determine_and_apply_focus` writes them.
    public var gamescopeRootProperties: [String]
    /// `GAMESCOPE_WAYLAND_DISPLAY` is set (gamescope's `main.cpp` exports it to what it starts).
    public var gamescopeEnvironment: Bool
    /// The root's `GAMESCOPECTRL_BASELAYER_APPID` — the app ids Steam asks gamescope to focus
    /// (nil: not set, i.e. Steam does not steer focus).
    public var steamFocusAppIDs: [UInt32]?

    public init(display: String, screen: Int = 0, vendor: String, release: UInt32, rootWidth: Int, rootHeight: Int,
                rootDepth: Int = 24, crtcs: [CRTC] = [], present: Version? = nil, shm: Version? = nil, dri3: Version? = nil,
                xinput: Version? = nil, xtest: Version? = nil, xfixes: Version? = nil, randr: Version? = nil,
                shmAttachWorks: Bool = false, shmAttachError: String? = nil, xwayland: Bool = false,
                windowManager: WindowManager = .none, gamescopeRootProperties: [String] = [],
                gamescopeEnvironment: Bool = false, steamFocusAppIDs: [UInt32]? = nil) {
        self.display = display; self.screen = screen; self.vendor = vendor; self.release = release
        self.rootWidth = rootWidth; self.rootHeight = rootHeight; self.rootDepth = rootDepth; self.crtcs = crtcs
        self.present = present; self.shm = shm; self.dri3 = dri3; self.xinput = xinput; self.xtest = xtest
        self.xfixes = xfixes; self.randr = randr; self.shmAttachWorks = shmAttachWorks; self.shmAttachError = shmAttachError
        self.xwayland = xwayland; self.windowManager = windowManager; self.gamescopeRootProperties = gamescopeRootProperties
        self.gamescopeEnvironment = gamescopeEnvironment; self.steamFocusAppIDs = steamFocusAppIDs
    }

    /// gamescope runs this server (its root properties, or its environment variable).
    public var gamescope: Bool { !gamescopeRootProperties.isEmpty || gamescopeEnvironment }

    /// How the kiosk's pictures would reach this server.
    public var picturePath: X11PicturePath {
        X11PicturePath.decide(dri3: dri3?.tuple, shm: shm?.tuple, shmAttachWorks: shmAttachWorks)
    }

    /// The window manager's name, nil when there is none running (or it gives no name).
    public var windowManagerName: String? {
        if case .running(_, let name) = windowManager { return name }
        return nil
    }

    /// One JSON object for `probe`.
    public var json: String { json(windowProperties: nil) }

    /// One JSON object for `probe`; with `windowProperties`, also what the kiosk would set on its
    /// window for gamescope (`"gamescope_window"`).
    public func json(windowProperties plan: GamescopeProperties?) -> String {
        let q = JSON.string
        func v(_ x: Version?) -> String { x.map { "\"\($0)\"" } ?? "null" }
        let crtcText = crtcs.map { c in
            "{\"id\":\(c.id),\"outputs\":[\(c.outputs.map(q).joined(separator: ","))],"
                + "\"geometry\":\"\(c.width)x\(c.height)+\(c.x)+\(c.y)\",\"refresh_mhz\":\(c.refreshMilliHz)}"
        }.joined(separator: ",")
        let wm: String
        switch windowManager {
        case .none: wm = "null"
        case .stale(let w): wm = "{\"window\":\(w),\"stale\":true}"
        case .running(let w, let name): wm = "{\"window\":\(w),\"name\":\(name.map(q) ?? "null")}"
        }
        let path = picturePath
        return "{\"display\":\(q(display)),\"screen\":\(screen),\"vendor\":\(q(vendor)),\"release\":\(release),"
            + "\"root\":\"\(rootWidth)x\(rootHeight)\",\"depth\":\(rootDepth),\"xwayland\":\(xwayland),"
            + "\"extensions\":{\"present\":\(v(present)),\"mit_shm\":\(v(shm)),\"dri3\":\(v(dri3)),\"xinput\":\(v(xinput)),"
            + "\"xtest\":\(v(xtest)),\"xfixes\":\(v(xfixes)),\"randr\":\(v(randr))},"
            + "\"shm_attach_fd\":\(shmAttachWorks),\"shm_attach_error\":\(shmAttachError.map(q) ?? "null"),"
            + "\"crtcs\":[\(crtcText)],\"window_manager\":\(wm),"
            + "\"gamescope\":{\"detected\":\(gamescope),\"root_properties\":[\(gamescopeRootProperties.map(q).joined(separator: ","))],"
            + "\"environment\":\(gamescopeEnvironment),"
            + "\"baselayer_appids\":\(steamFocusAppIDs.map { "[\($0.map(String.init).joined(separator: ","))]" } ?? "null")},"
            + "\"picture_path\":{\"pixels\":\"\(path.pixels.rawValue)\",\"dri3_offered\":\(path.dri3Offered),"
            + "\"summary\":\(q(path.summary))}"
            + (plan.map { p in
                ",\"gamescope_window\":{\"properties\":[" + p.properties.map { prop in
                    "{\"name\":\(q(prop.name)),\"type\":\"\(prop.type.rawValue)\",\"format\":\(prop.format),"
                        + "\"values\":[\(prop.values.map(String.init).joined(separator: ","))]}"
                }.joined(separator: ",") + "],\"sentence\":\(q(p.sentence))}"
            } ?? "") + "}"
    }
}

/// A read-only look at an X server for `punktfunk-kiosk check` and `probe`: connects, reads the
/// setup, asks each extension's version, RandR's CRTCs, the window manager and gamescope's root
/// properties, tries one MIT-SHM attach by fd (detached at once), and disconnects. Maps no
/// window and interns no atom (every atom is looked up with only-if-exists).
public enum X11Probe {
    /// Newest versions this probe asks for; the server answers min(asked, its own).
    static let asked = (present: (UInt32(1), UInt32(4)), dri3: (UInt32(1), UInt32(4)), xinput: (UInt16(2), UInt16(4)),
                        xtest: (UInt8(2), UInt16(2)), xfixes: (UInt32(6), UInt32(0)), randr: (UInt32(1), UInt32(6)))

    /// - Parameters:
    ///   - displayName: `DISPLAY` (nil: the environment's).
    ///   - environment: for `GAMESCOPE_WAYLAND_DISPLAY`.
    ///   - timeoutMs: how long the whole look may take after connecting before the server counts as hung.
    /// - Throws: `ScreenError.unavailable` when no server answers, `.lost` when the connection
    ///   breaks or the server does not answer in time.
    public static func run(displayName: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
                           timeoutMs: Int = 3000) throws(ScreenError) -> X11ProbeResult {
        let opened = try X11Setup.connect(displayName: displayName ?? environment["DISPLAY"] ?? "")
        let c = opened.c, name = opened.displayName
        defer { xcb_disconnect(c) }
        let link = ProbeLink(c: c, deadlineNs: MonotonicClock.nowNs() + UInt64(max(timeoutMs, 1)) * 1_000_000)
        guard let s = opened.screen else { throw .unavailable("the X server at DISPLAY=\(name) has no screen \(opened.screenNumber)") }
        let root = s.root
        var r = X11ProbeResult(display: name, screen: Int(opened.screenNumber), vendor: opened.vendor, release: opened.release,
                               rootWidth: Int(s.width_in_pixels), rootHeight: Int(s.height_in_pixels), rootDepth: Int(s.root_depth))
        r.gamescopeEnvironment = GamescopeProperties.insideGamescope(environment: environment)

        // Which extensions exist: one QueryExtension each, all sent before the first answer is read.
        let names = ["Present", "MIT-SHM", "DRI3", "XInputExtension", "XTEST", "XFIXES", "RANDR", "XWAYLAND"]
        let queries = names.map { xcb_query_extension(c, UInt16($0.utf8.count), $0).sequence }
        var offered: Set<String> = []
        for (extName, seq) in zip(names, queries) {
            if let q = try link.reply(seq, xcb_query_extension_reply_t.self) {
                if q.pointee.present != 0 { offered.insert(extName) }
                free(q)
            }
        }
        // The versions (only for offered ones: a request to an absent extension closes xcb's connection).
        if offered.contains("Present"),
           let v = try link.reply(xcb_present_query_version(c, asked.present.0, asked.present.1).sequence,
                                  xcb_present_query_version_reply_t.self) {
            r.present = .init(v.pointee.major_version, v.pointee.minor_version); free(v)
        }
        if offered.contains("MIT-SHM"), let v = try link.reply(xcb_shm_query_version(c).sequence, xcb_shm_query_version_reply_t.self) {
            r.shm = .init(UInt32(v.pointee.major_version), UInt32(v.pointee.minor_version)); free(v)
        }
        if offered.contains("DRI3"),
           let v = try link.reply(xcb_dri3_query_version(c, asked.dri3.0, asked.dri3.1).sequence, xcb_dri3_query_version_reply_t.self) {
            r.dri3 = .init(v.pointee.major_version, v.pointee.minor_version); free(v)
        }
        if offered.contains("XInputExtension"),
           let v = try link.reply(xcb_input_xi_query_version(c, asked.xinput.0, asked.xinput.1).sequence,
                                  xcb_input_xi_query_version_reply_t.self) {
            if v.pointee.major_version >= 2 { r.xinput = .init(UInt32(v.pointee.major_version), UInt32(v.pointee.minor_version)) }
            free(v)
        }
        if offered.contains("XTEST"),
           let v = try link.reply(xcb_test_get_version(c, asked.xtest.0, asked.xtest.1).sequence, xcb_test_get_version_reply_t.self) {
            r.xtest = .init(UInt32(v.pointee.major_version), UInt32(v.pointee.minor_version)); free(v)
        }
        if offered.contains("XFIXES"),
           let v = try link.reply(xcb_xfixes_query_version(c, asked.xfixes.0, asked.xfixes.1).sequence,
                                  xcb_xfixes_query_version_reply_t.self) {
            r.xfixes = .init(v.pointee.major_version, v.pointee.minor_version); free(v)
        }
        if offered.contains("RANDR"),
           let v = try link.reply(xcb_randr_query_version(c, asked.randr.0, asked.randr.1).sequence, xcb_randr_query_version_reply_t.self) {
            r.randr = .init(v.pointee.major_version, v.pointee.minor_version); free(v)
            // GetScreenResourcesCurrent is RandR 1.3.
            if r.randr! >= .init(1, 3) { r.crtcs = try crtcs(link, root: root) }
        }
        r.xwayland = isXwayland(extensionOffered: offered.contains("XWAYLAND"), crtcs: r.crtcs)
        if let shm = r.shm, shm >= .init(1, 2) {
            (r.shmAttachWorks, r.shmAttachError) = try attachTest(link)
        }
        r.windowManager = try windowManager(link, root: root)
        (r.gamescopeRootProperties, r.steamFocusAppIDs) = try gamescopeRoot(link, root: root)
        if let e = link.failure { throw .lost(e) }
        return r
    }

    /// The probe as `probe`'s `"x11"` member: the result's JSON with the window properties this
    /// process would set for gamescope (`SteamLaunchAncestry`, the environment), or
    /// `{"display":…,"error":…}`.
    public static func json(displayName: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        do {
            let r = try run(displayName: displayName, environment: environment)
            return r.json(windowProperties: GamescopeProperties.forWindow(environment: environment, insideGamescope: r.gamescope,
                                                                          reaperAppID: SteamLaunchAncestry.appID()))
        } catch {
            return "{\"display\":\(JSON.string(displayName)),\"error\":\(JSON.string(error.description))}"
        }
    }

    // MARK: parts

    /// Whether the server is Xwayland: it offers the `XWAYLAND` extension (Xwayland 23.1 and
    /// later) or its outputs are named `XWAYLAND<n>` (older ones: Debian 12's 22.1.9).
    static func isXwayland(extensionOffered: Bool, crtcs: [X11ProbeResult.CRTC]) -> Bool {
        extensionOffered || crtcs.contains { $0.outputs.contains { $0.hasPrefix("XWAYLAND") } }
    }

    static func crtcs(_ link: ProbeLink, root: xcb_window_t) throws(ScreenError) -> [X11ProbeResult.CRTC] {
        let c = link.c
        guard let res = try link.reply(xcb_randr_get_screen_resources_current(c, root).sequence,
                                       xcb_randr_get_screen_resources_current_reply_t.self) else { return [] }
        defer { free(res) }
        let nCrtcs = Int(xcb_randr_get_screen_resources_current_crtcs_length(res))
        let nModes = Int(xcb_randr_get_screen_resources_current_modes_length(res))
        guard nCrtcs > 0, let crtcIDs = xcb_randr_get_screen_resources_current_crtcs(res) else { return [] }
        let modes = xcb_randr_get_screen_resources_current_modes(res)
        var out: [X11ProbeResult.CRTC] = []
        for i in 0..<nCrtcs {
            guard let info = try link.reply(xcb_randr_get_crtc_info(c, crtcIDs[i], res.pointee.config_timestamp).sequence,
                                            xcb_randr_get_crtc_info_reply_t.self) else { continue }
            defer { free(info) }
            guard info.pointee.mode != 0 else { continue }  // not active
            var hz = 0
            if let modes {
                for m in 0..<nModes where modes[m].id == info.pointee.mode {
                    hz = X11Refresh.milliHz(dotClock: modes[m].dot_clock, htotal: modes[m].htotal, vtotal: modes[m].vtotal,
                                            flags: modes[m].mode_flags)
                }
            }
            var names: [String] = []
            let nOutputs = Int(xcb_randr_get_crtc_info_outputs_length(info))
            if nOutputs > 0, let outputs = xcb_randr_get_crtc_info_outputs(info) {
                for o in 0..<nOutputs {
                    guard let oi = try link.reply(xcb_randr_get_output_info(c, outputs[o], res.pointee.config_timestamp).sequence,
                                                  xcb_randr_get_output_info_reply_t.self) else { continue }
                    names.append(String(decoding: UnsafeBufferPointer(start: xcb_randr_get_output_info_name(oi),
                                                                      count: Int(xcb_randr_get_output_info_name_length(oi))),
                                        as: UTF8.self))
                    free(oi)
                }
            }
            out.append(.init(id: crtcIDs[i], outputs: names, x: Int(info.pointee.x), y: Int(info.pointee.y),
                             width: Int(info.pointee.width), height: Int(info.pointee.height), refreshMilliHz: hz))
        }
        return out
    }

    /// Attaches one page of a memfd as an MIT-SHM segment by fd (read-write, as the kiosk's
    /// pixmap pool does) and detaches it. - Returns: whether the attach worked, else why not.
    static func attachTest(_ link: ProbeLink) throws(ScreenError) -> (Bool, String?) {
        let c = link.c
        let fd = pf_xcb_memfd("punktfunk-probe")
        guard fd >= 0 else { return (false, "memfd_create failed: \(String(cString: strerror(errno)))") }
        guard ftruncate(fd, 4096) == 0 else {
            let e = errno
            close(fd)
            return (false, "ftruncate of the memfd failed: \(String(cString: strerror(e)))")
        }
        let segment = xcb_generate_id(c)
        // The fd moves to xcb here: it is closed once sent.
        let attach = xcb_shm_attach_fd_checked(c, segment, fd, 0)
        // A round trip: once its answer is in, xcb knows whether the attach failed.
        if let focus = try link.reply(xcb_get_input_focus(c).sequence, xcb_get_input_focus_reply_t.self) { free(focus) }
        if let error = xcb_request_check(c, attach) {
            let code = error.pointee.error_code
            free(error)
            return (false, "the server refused the segment (X error \(code))")
        }
        xcb_shm_detach(c, segment)
        if let focus = try link.reply(xcb_get_input_focus(c).sequence, xcb_get_input_focus_reply_t.self) { free(focus) }
        return (true, nil)
    }

    static func windowManager(_ link: ProbeLink, root: xcb_window_t) throws(ScreenError) -> X11ProbeResult.WindowManager {
        let check = try link.atom("_NET_SUPPORTING_WM_CHECK")
        guard check != 0, let window = try link.cardinals(of: root, property: check, type: 33 /* WINDOW */).first,
              window != 0 else { return .none }
        // The window names itself, or the manager that set the root's property has gone.
        guard try link.cardinals(of: window, property: check, type: 33).first == window else { return .stale(window: window) }
        let name = try link.atom("_NET_WM_NAME"), utf8 = try link.atom("UTF8_STRING")
        let text = name != 0 && utf8 != 0 ? try link.text(of: window, property: name, type: utf8) : nil
        return .running(window: window, name: text.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// Which of gamescope's root properties exist, and Steam's focus list.
    static func gamescopeRoot(_ link: ProbeLink, root: xcb_window_t) throws(ScreenError) -> ([String], [UInt32]?) {
        var present: [String] = []
        for name in ["GAMESCOPE_FOCUSABLE_APPS", "GAMESCOPE_FOCUSED_APP"] {
            let atom = try link.atom(name)
            if atom != 0, try link.exists(on: root, property: atom) { present.append(name) }
        }
        let baselayer = try link.atom("GAMESCOPECTRL_BASELAYER_APPID")
        var ids: [UInt32]?
        if baselayer != 0, try link.exists(on: root, property: baselayer) {
            ids = try link.cardinals(of: root, property: baselayer, type: 6 /* CARDINAL */)
        }
        return (present, ids)
    }
}

/// The probe's connection with a deadline: every answer is awaited by polling the socket, so a
/// hung server ends the probe with `.lost` instead of blocking `check`.
struct ProbeLink {
    let c: OpaquePointer
    /// Monotonic ns after which no further answer is awaited.
    let deadlineNs: UInt64

    var failure: String? {
        let e = xcb_connection_has_error(c)
        return e == 0 ? nil : "the X connection failed: \(X11Setup.connectionErrorName(e))"
    }

    /// The reply to request `sequence` as `R` (the caller frees it), nil when the server
    /// answered with an error.
    func reply<R>(_ sequence: UInt32, _ type: R.Type) throws(ScreenError) -> UnsafeMutablePointer<R>? {
        _ = xcb_flush(c)
        while true {
            var reply: UnsafeMutableRawPointer?
            var error: UnsafeMutablePointer<xcb_generic_error_t>?
            if xcb_poll_for_reply(c, sequence, &reply, &error) != 0 {
                free(error)
                if let f = failure { free(reply); throw .lost(f) }
                return reply?.assumingMemoryBound(to: R.self)
            }
            let now = MonotonicClock.nowNs()
            guard now < deadlineNs else { throw .lost("the X server did not answer in time") }
            var pfd = pollfd(fd: xcb_get_file_descriptor(c), events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, Int32((deadlineNs - now) / 1_000_000 + 1))
        }
    }

    /// The atom named `name` if the server knows it (only-if-exists: nothing is interned), else 0.
    func atom(_ name: String) throws(ScreenError) -> xcb_atom_t {
        guard let r = try reply(xcb_intern_atom(c, 1, UInt16(name.utf8.count), name).sequence, xcb_intern_atom_reply_t.self)
        else { return 0 }
        defer { free(r) }
        return r.pointee.atom
    }

    /// Whether `window` has `property` at all (any type). False for a window that is gone.
    func exists(on window: xcb_window_t, property: xcb_atom_t) throws(ScreenError) -> Bool {
        guard let r = try reply(xcb_get_property(c, 0, window, property, 0 /* AnyPropertyType */, 0, 0).sequence,
                                xcb_get_property_reply_t.self) else { return false }
        defer { free(r) }
        return r.pointee.type != 0
    }

    /// A format-32 property's values (at most 64), empty when absent, of another type, or the window is gone.
    func cardinals(of window: xcb_window_t, property: xcb_atom_t, type: xcb_atom_t) throws(ScreenError) -> [UInt32] {
        guard let r = try reply(xcb_get_property(c, 0, window, property, type, 0, 64).sequence, xcb_get_property_reply_t.self)
        else { return [] }
        defer { free(r) }
        guard r.pointee.type == type, r.pointee.format == 32, let value = xcb_get_property_value(r) else { return [] }
        let count = Int(xcb_get_property_value_length(r)) / 4
        return (0..<count).map { value.load(fromByteOffset: $0 * 4, as: UInt32.self) }
    }

    /// A format-8 property as text (at most 1 KiB), nil when absent or of another type.
    func text(of window: xcb_window_t, property: xcb_atom_t, type: xcb_atom_t) throws(ScreenError) -> String? {
        guard let r = try reply(xcb_get_property(c, 0, window, property, type, 0, 256).sequence, xcb_get_property_reply_t.self)
        else { return nil }
        defer { free(r) }
        guard r.pointee.type == type, r.pointee.format == 8, let value = xcb_get_property_value(r) else { return nil }
        let bytes = UnsafeRawBufferPointer(start: value, count: Int(xcb_get_property_value_length(r)))
        return String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
}
