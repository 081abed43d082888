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
        #expect(reason == "WAYLAND_DISPLAY=wayland-1 is set but no compositor listens at /run/user/1000/wayland-1")
        #expect(Self.decide(.auto, ["WAYLAND_DISPLAY": "wayland-1"], sockets: []).1.contains("XDG_RUNTIME_DIR is unset"))
    }

    @Test func withoutWaylandDisplayTheDefaultSocketDecides() {
        #expect(Self.decide(.auto, ["XDG_RUNTIME_DIR": "/run/user/1000"], sockets: ["/run/user/1000/wayland-0"]).0 == .wayland)
        let (backend, reason) = Self.decide(.auto, ["XDG_RUNTIME_DIR": "/run/user/1000"], sockets: [])
        #expect(backend == .kms)
        #expect(reason.hasPrefix("no compositor is reachable"))
        #expect(Self.decide(.auto, ["WAYLAND_DISPLAY": "", "XDG_RUNTIME_DIR": ""], sockets: ["/wayland-0"]).0 == .kms)
    }

    @Test func theConfigKeyTakesTheThreeSpellingsAndRefusesOthers() {
        var c = KioskConfig()
        #expect(c.apply(key: "display", value: "wayland") == nil)
        #expect(c.display == .wayland)
        #expect(c.text.contains("display = wayland"))
        #expect(c.apply(key: "display", value: "x11") == "display must be auto, kms or wayland, not \"x11\"")
        #expect(c.display == .wayland)
    }
}
