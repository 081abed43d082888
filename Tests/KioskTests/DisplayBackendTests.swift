import Testing
@testable import Kiosk

/// `--display auto` picks Wayland exactly when a compositor is reachable, the way libwayland
/// itself finds one (WAYLAND_DISPLAY, absolute or relative to XDG_RUNTIME_DIR, else wayland-0).
@Suite struct DisplayBackendTests {
    static func decide(_ asked: DisplayBackend, _ env: [String: String], sockets: Set<String>) -> (DisplayBackend, String) {
        let d = DisplayBackend.decide(asked, environment: env, socketExists: { sockets.contains($0) })
        return (d.backend, d.reason)
    }

    @Test func anExplicitChoiceIsTakenWhateverTheEnvironment() {
        let env = ["WAYLAND_DISPLAY": "wayland-1", "XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(Self.decide(.kms, env, sockets: ["/run/user/1000/wayland-1"]).0 == .kms)
        #expect(Self.decide(.wayland, [:], sockets: []).0 == .wayland)
        #expect(Self.decide(.wayland, [:], sockets: []).1 == "as asked (--display wayland)")
    }

    @Test func autoTakesTheCompositorThatWaylandDisplayNames() {
        let (backend, reason) = Self.decide(.auto, ["WAYLAND_DISPLAY": "wayland-1", "XDG_RUNTIME_DIR": "/run/user/1000"],
                                            sockets: ["/run/user/1000/wayland-1"])
        #expect(backend == .wayland)
        #expect(reason == "a compositor is reachable (WAYLAND_DISPLAY=wayland-1)")
        // An absolute name is the socket itself (libwayland ≥ 1.15), whatever XDG_RUNTIME_DIR says.
        #expect(Self.decide(.auto, ["WAYLAND_DISPLAY": "/tmp/wl/sock"], sockets: ["/tmp/wl/sock"]).0 == .wayland)
    }

    @Test func aWaylandDisplayNobodyListensOnFallsBackToKMSSayingWhy() {
        let (backend, reason) = Self.decide(.auto, ["WAYLAND_DISPLAY": "wayland-1", "XDG_RUNTIME_DIR": "/run/user/1000"],
                                            sockets: ["/run/user/1000/wayland-0"])
        #expect(backend == .kms)
        #expect(reason == "WAYLAND_DISPLAY=wayland-1 is set but no compositor listens at /run/user/1000/wayland-1; DISPLAY is unset")
        #expect(Self.decide(.auto, ["WAYLAND_DISPLAY": "wayland-1"], sockets: []).1.contains("XDG_RUNTIME_DIR is unset"))
    }

    @Test func withoutWaylandDisplayTheDefaultSocketDecides() {
        #expect(Self.decide(.auto, ["XDG_RUNTIME_DIR": "/run/user/1000"], sockets: ["/run/user/1000/wayland-0"]).0 == .wayland)
        let (backend, reason) = Self.decide(.auto, ["XDG_RUNTIME_DIR": "/run/user/1000"], sockets: [])
        #expect(backend == .kms)
        #expect(reason.hasPrefix("no compositor is reachable"))
        #expect(Self.decide(.auto, ["WAYLAND_DISPLAY": "", "XDG_RUNTIME_DIR": ""], sockets: ["/wayland-0"]).0 == .kms)
    }

    @Test func theConfigKeyTakesTheFourSpellingsAndRefusesOthers() {
        var c = KioskConfig()
        #expect(c.apply(key: "display", value: "wayland") == nil)
        #expect(c.display == .wayland)
        #expect(c.text.contains("display = wayland"))
        #expect(c.apply(key: "display", value: "x11") == nil)
        #expect(c.display == .x11)
        #expect(c.apply(key: "display", value: "x12") == "display must be auto, kms, wayland or x11, not \"x12\"")
        #expect(c.display == .x11)
    }

    // X11 display names as X(7) ("DISPLAY NAMES") spells them: hostname:displaynumber.screennumber,
    // an empty host or `unix` being the local socket /tmp/.X11-unix/X<displaynumber>.
    @Test func autoTakesAnXServerWhenNoCompositorIsReachable() {
        let env = ["DISPLAY": ":1", "XDG_RUNTIME_DIR": "/run/user/1000"]
        let (backend, reason) = Self.decide(.auto, env, sockets: ["/tmp/.X11-unix/X1"])
        #expect(backend == .x11)
        #expect(reason.hasSuffix("an X server is reachable (DISPLAY=:1)"))
        #expect(reason.hasPrefix("no compositor is reachable"))
        #expect(Self.decide(.auto, ["DISPLAY": "unix:3.0"], sockets: ["/tmp/.X11-unix/X3"]).0 == .x11)
        #expect(Self.decide(.auto, ["DISPLAY": "tv-box:0"], sockets: []).1.hasSuffix("names an X server on tv-box (over TCP)"))
    }

    @Test func waylandComesBeforeX11AndKMSIsLast() {
        let env = ["DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-1", "XDG_RUNTIME_DIR": "/run/user/1000"]
        let order = DisplayBackend.candidates(.auto, environment: env,
                                              socketExists: { ["/run/user/1000/wayland-1", "/tmp/.X11-unix/X0"].contains($0) })
        #expect(order.map(\.backend) == [.wayland, .x11, .kms])
        #expect(order[1].reason == "an X server is reachable (DISPLAY=:0)")
        #expect(DisplayBackend.candidates(.x11, environment: env, socketExists: { _ in true }).map(\.backend) == [.x11])
    }

    @Test func anXDisplayNobodyListensOnIsSaidInTheKMSReason() {
        let (backend, reason) = Self.decide(.auto, ["DISPLAY": ":7"], sockets: [])
        #expect(backend == .kms)
        #expect(reason.contains("DISPLAY=:7 is set but no X server listens at /tmp/.X11-unix/X7"))
        #expect(Self.decide(.auto, ["DISPLAY": "nonsense"], sockets: []).1.contains("DISPLAY=nonsense is not a display name"))
        #expect(X11DisplayName(":0.1") == .local(socket: "/tmp/.X11-unix/X0"))
        #expect(X11DisplayName("localhost:10.0") == .remote(host: "localhost"))
        #expect(X11DisplayName(":x") == nil)
    }
}
