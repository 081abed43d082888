#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import Screen
@testable import X11Display
import CXCB

/// `X11Probe` (what `check` and `probe` report of an X server) against a real Xvfb, with and
/// without a window manager. Expected versions are Xvfb 21.1.7's (Debian 12): Present 1.2,
/// MIT-SHM 1.2, XInput 2.4, XTEST 2.2, no DRI3, one RandR CRTC whose mode has no dot clock.
@Suite(.serialized) struct X11ProbeTests {
    static let skip = XvfbServer.unavailableReason
    static let noMatchbox = !FileManager.default.isExecutableFile(atPath: "/usr/bin/matchbox-window-manager")

    @Test(.enabled(if: skip == nil, "Xvfb is not installed (Debian package xvfb)"))
    func xvfbWithoutAWindowManager() throws {
        let server = try XvfbServer.start(width: 1280, height: 720)
        defer { server.stop() }
        let r = try X11Probe.run(displayName: server.display, environment: [:])
        #expect(r.display == server.display)
        #expect(r.vendor == "The X.Org Foundation")
        #expect(r.rootWidth == 1280 && r.rootHeight == 720 && r.rootDepth == 24)
        #expect(r.present == .init(1, 2))
        #expect(r.shm == .init(1, 2))
        #expect(r.dri3 == nil)
        #expect(r.xinput == .init(2, 4))
        #expect(r.xtest == .init(2, 2))
        #expect(r.shmAttachWorks, "\(r.shmAttachError ?? "")")
        #expect(r.xwayland == false)
        #expect(r.windowManager == .none)
        #expect(r.gamescope == false && r.steamFocusAppIDs == nil)
        #expect(r.crtcs.count == 1)
        #expect(r.crtcs.first.map { ($0.width, $0.height, $0.refreshMilliHz) } ?? (0, 0, -1) == (1280, 720, 0))
        let path = r.picturePath
        #expect(path.pixels == .sharedMemory && !path.dri3Offered)
        // The JSON parses and carries the picture path's summary.
        let object = try JSONSerialization.jsonObject(with: Data(r.json.utf8)) as? [String: Any]
        #expect((object?["picture_path"] as? [String: Any])?["summary"] as? String == path.summary)
        #expect((object?["extensions"] as? [String: Any])?["present"] as? String == "1.2")
    }

    @Test(.enabled(if: skip == nil && !noMatchbox, "needs Xvfb and matchbox-window-manager"))
    func theWindowManagerIsNamedByItsCheckWindow() throws {
        let server = try XvfbServer.start()
        defer { server.stop() }
        try server.startWindowManager()
        let r = try X11Probe.run(displayName: server.display, environment: [:])
        guard case .running(let window, let name) = r.windowManager else {
            Issue.record("no window manager found: \(r.windowManager)"); return
        }
        #expect(window != 0)
        #expect(name == "matchbox")
        #expect(r.windowManagerName == "matchbox")
    }

    /// gamescope's root properties and Steam's focus list, written here as gamescope and Steam
    /// write them (CARDINAL, format 32, on the root).
    @Test(.enabled(if: skip == nil, "Xvfb is not installed (Debian package xvfb)"))
    func gamescopeIsSeenOnTheRootAndInTheEnvironment() throws {
        let server = try XvfbServer.start()
        defer { server.stop() }
        let plain = try X11Probe.run(displayName: server.display, environment: ["GAMESCOPE_WAYLAND_DISPLAY": "gamescope-0"])
        #expect(plain.gamescope && plain.gamescopeEnvironment && plain.gamescopeRootProperties.isEmpty)
        try Self.setRootCardinals(display: server.display, ["GAMESCOPE_FOCUSABLE_APPS": [7], "GAMESCOPE_FOCUSED_APP": [7],
                                                           "GAMESCOPECTRL_BASELAYER_APPID": [3_501_819_989, 769]])
        let r = try X11Probe.run(displayName: server.display, environment: [:])
        #expect(r.gamescopeRootProperties == ["GAMESCOPE_FOCUSABLE_APPS", "GAMESCOPE_FOCUSED_APP"])
        #expect(r.steamFocusAppIDs == [3_501_819_989, 769])
        #expect(r.gamescope)
    }

    /// Read-only: the probe looks atoms up only if they exist, so it leaves none behind.
    @Test(.enabled(if: skip == nil, "Xvfb is not installed (Debian package xvfb)"))
    func theProbeInternsNoAtom() throws {
        let server = try XvfbServer.start()
        defer { server.stop() }
        _ = try X11Probe.run(displayName: server.display, environment: [:])
        var screen: Int32 = 0
        let c = try #require(xcb_connect(server.display, &screen))
        defer { xcb_disconnect(c) }
        for name in ["GAMESCOPE_FOCUSABLE_APPS", "GAMESCOPECTRL_BASELAYER_APPID"] {
            let r = xcb_intern_atom_reply(c, xcb_intern_atom(c, 1, UInt16(name.utf8.count), name), nil)
            #expect(r?.pointee.atom == 0, "\(name)")
            free(r)
        }
    }

    @Test func noServerIsAClearError() {
        #expect(throws: ScreenError.self) { try X11Probe.run(displayName: ":4711", environment: [:]) }
        let json = X11Probe.json(displayName: ":4711", environment: [:])
        #expect(json.hasPrefix("{\"display\":\":4711\",\"error\":"))
    }

    static func setRootCardinals(display: String, _ properties: [String: [UInt32]]) throws {
        var screen: Int32 = 0
        let c = try #require(xcb_connect(display, &screen))
        defer { xcb_disconnect(c) }
        let root = try #require(xcb_setup_roots_iterator(xcb_get_setup(c)).data).pointee.root
        for (name, values) in properties.sorted(by: { $0.key < $1.key }) {
            let r = xcb_intern_atom_reply(c, xcb_intern_atom(c, 0, UInt16(name.utf8.count), name), nil)
            let atom = r?.pointee.atom ?? 0
            free(r)
            // XCB_PROP_MODE_REPLACE = 0, CARDINAL = 6.
            _ = values.withUnsafeBytes { xcb_change_property(c, 0, root, atom, 6, 32, UInt32(values.count), $0.baseAddress) }
        }
        let sync = xcb_get_input_focus_reply(c, xcb_get_input_focus(c), nil)
        free(sync)
    }
}
