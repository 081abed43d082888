#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import WaylandDisplay
import Screen

/// `WaylandProbe` (what `check` reports of a compositor): against a real one only when
/// `WAYLAND_DISPLAY` names it (e.g. headless weston, see `WaylandSmokeTests`); the table of the
/// backend's protocols always.
@Suite struct WaylandProbeTests {
    static let display = getenv("WAYLAND_DISPLAY").map { String(cString: $0) }

    @Test(.enabled(if: display != nil, "WAYLAND_DISPLAY is unset: no compositor to probe"))
    func probeListsTheGlobalsAndNamesThePeer() throws {
        let r = try WaylandProbe.run()
        print("wayland probe: \(r.peer.name ?? "?") (\(r.peer.how)), \(r.globals.count) globals, clock \(r.presentationClockID.map(String.init) ?? "none"), feedback \(r.dmabufFeedback.map { "\($0.tranches.count) tranches" } ?? r.dmabufFeedbackError ?? "none")")
        for required in ["wl_compositor", "xdg_wm_base", "wl_shm"] { #expect(r.version(of: required) != nil, "\(required)") }
        // wl_shm must list ARGB8888 and XRGB8888 (wayland.xml).
        #expect(r.shmFormats.contains(0) && r.shmFormats.contains(1))
        #expect(r.peer.name?.isEmpty == false, "\(r.peer.how)")
        #expect(r.outputs.contains { o in o.modes.contains(where: \.current) })
        if r.version(of: "wp_presentation") != nil { #expect(r.presentationClockID != nil) }
        if (r.version(of: "zwp_linux_dmabuf_v1") ?? 0) >= 4 { #expect(r.dmabufFeedback != nil || r.dmabufFeedbackError != nil) }
    }

    @Test func noCompositorIsAClearError() {
        #expect(throws: ScreenError.self) { try WaylandProbe.run(displayName: "wl-nobody-listens-here") }
    }

    @Test func theTableNamesTheRequiredGlobalsAndTheSeatVersion() {
        #expect(KioskProtocols.all.filter(\.required).map(\.interface) == ["wl_compositor", "xdg_wm_base", "wl_shm"])
        #expect(KioskProtocols.all.first { $0.interface == "wl_seat" }?.version == WaylandSeat.seatVersion)
        #expect(KioskProtocols.all.first { $0.interface == "zwp_linux_dmabuf_v1" }?.without == KioskProtocols.noDmabuf)
        #expect(Set(KioskProtocols.all.map(\.interface)).count == KioskProtocols.all.count)
    }
}
