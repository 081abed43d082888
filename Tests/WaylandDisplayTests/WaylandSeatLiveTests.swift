import Foundation
import Testing
import Input
import PunktfunkWire
@testable import WaylandDisplay
import CWaylandClient
import CWaylandProtocols

/// `WaylandSeat` against a real compositor: run by Tests/wayland/run.sh under headless sway with
/// `PF_WL_SEAT_LIVE=KEY_SCRIPT` (the harness injects that script's keys, then pointer motion,
/// through its virtual keyboard/pointer once this test prints "seat-live: ready"). The window is
/// a bare xdg toplevel with one shm buffer; the seat is streaming-captured (lock, relative,
/// inhibitor). Skipped without the variable (no compositor in a plain `swift test`).
@Suite struct WaylandSeatLiveTests {
    static let script = ProcessInfo.processInfo.environment["PF_WL_SEAT_LIVE"]

    @Test(.enabled(if: script != nil, "needs a compositor: Tests/wayland/run.sh sets PF_WL_SEAT_LIVE"))
    func seatEventsFromALiveCompositorMapToTheHost() throws {
        let want = try String(contentsOfFile: Self.script!, encoding: .utf8).split(separator: "\n").compactMap { line -> (UInt32, UInt32)? in
            let f = line.split(separator: " ")
            guard f.count == 3, f[0] == "key", let c = UInt32(f[1]), let s = UInt32(f[2]) else { return nil }
            return (c, s)
        }
        let window = try #require(LiveWindow())
        defer { window.close() }
        var events: [SeatEvent] = []
        window.seat.onEvent = { events.append($0) }
        window.seat.setCapture(true)
        FileHandle.standardOutput.write(Data("seat-live: ready\n".utf8))
        let deadline = Date().addingTimeInterval(15)
        var recommitted = false
        func keys() -> [(UInt32, UInt32)] { events.compactMap { if case .key(let c, let s) = $0 { (c, s) } else { nil } } }
        func relative() -> Int { events.filter { if case .relativeMotion = $0 { true } else { false } }.count }
        /// Relative motions after the lock took hold (before it, they are not the host's).
        func relativeWhileLocked() -> Int {
            guard let at = events.firstIndex(of: .pointerLocked(true)) else { return 0 }
            return events[at...].filter { if case .relativeMotion = $0 { true } else { false } }.count
        }
        while Date() < deadline, keys().count < want.count || relativeWhileLocked() == 0 {
            window.dispatch(ms: 100)
            if !recommitted, events.contains(where: { if case .pointerEnter = $0 { true } else { false } }) {
                recommitted = true
                wl_surface_commit(window.surface)   // as the backend's next frame would (the lock is made on enter)
            }
        }
        let summary = "seat-live: \(events.count) seat events, \(keys().count) key edges (\(want.count) injected), "
            + "\(relative()) relative motions (\(relativeWhileLocked()) while locked), locked \(events.contains(.pointerLocked(true)))\n"
            + "seat-live: events: \(events)\n"
        FileHandle.standardOutput.write(Data(summary.utf8))
        #expect(events.contains { if case .keyboardEnter = $0 { true } else { false } })
        #expect(keys().map(\.0) == want.map(\.0) && keys().map(\.1) == want.map(\.1))
        #expect(events.contains(.pointerLocked(true)))   // sway offers the lock; the pointer is on the window
        #expect(relativeWhileLocked() > 0)

        // The same events through the mapping: the host gets exactly the VKs, nothing held.
        final class Sink: InputSink {
            var events: [InputEvent] = []
            func send(_ event: InputEvent, reliable: Bool) -> Bool { events.append(event); return true }
            func send(_ rich: RichInput) -> Bool { true }
        }
        let sink = Sink()
        let mapper = InputMapper(sink: sink)
        mapper.setPolicy(InputPolicy(normalisedScroll: false))
        let navigation = NavigationMapper()
        navigation.setRoute(.host)
        let seatInput = SeatInput(mapper: mapper, navigation: navigation)
        for e in events { seatInput.handle(e) }
        let hostKeys = sink.events.filter { $0.kind == .keyDown || $0.kind == .keyUp }
        let wantVKs = want.compactMap { c, s in EvdevKeyMap.vk(evdev: UInt16(c)).map { (s == 1, UInt32($0)) } }
        #expect(hostKeys.map { ($0.kind == .keyDown, $0.code) }.elementsEqual(wantVKs, by: { $0 == $1 }))
        #expect(sink.events.contains { $0.kind == .mouseMove })
        seatInput.handle(.keyboardLeave)
        seatInput.handle(.pointerLeave)
        #expect(mapper.held.isEmpty)
    }
}

/// A bare fullscreen-less xdg toplevel with one shm buffer, and a `WaylandSeat` on the same
/// connection (default queue).
final class LiveWindow {
    let display: OpaquePointer
    var registry: OpaquePointer?
    var compositor: OpaquePointer?
    var shm: OpaquePointer?
    var wmBase: OpaquePointer?
    var surface: OpaquePointer?
    var xdgSurface: OpaquePointer?
    var toplevel: OpaquePointer?
    var configured = false
    let seat = WaylandSeat()

    init?() {
        guard let d = wl_display_connect(nil) else { return nil }
        display = d
        registry = wl_display_get_registry(d)
        wl_registry_add_listener(registry, Self.registryListener, Unmanaged.passUnretained(self).toOpaque())
        wl_display_roundtrip(d)
        wl_display_roundtrip(d)
        guard let compositor, let wmBase, shm != nil else { return nil }
        xdg_wm_base_add_listener(wmBase, Self.wmListener, nil)
        surface = wl_compositor_create_surface(compositor)
        xdgSurface = xdg_wm_base_get_xdg_surface(wmBase, surface)
        xdg_surface_add_listener(xdgSurface, Self.xdgSurfaceListener, Unmanaged.passUnretained(self).toOpaque())
        toplevel = xdg_surface_get_toplevel(xdgSurface)
        xdg_toplevel_set_app_id(toplevel, "pf-seat-live")
        wl_surface_commit(surface)
        var n = 0
        while !configured, n < 50 { dispatch(ms: 100); n += 1 }
        guard configured, attachBuffer() else { return nil }
        seat.setSurface(surface)
        wl_display_roundtrip(d)
    }

    func attachBuffer() -> Bool {
        // The whole of the harness's 1280x720 output (sway tiles the window over it), so the
        // injected pointer lands on the surface.
        let w: Int32 = 1280, h: Int32 = 720, size = Int(w * h * 4)
        var path = Array("\(NSTemporaryDirectory())/pf-seat-live-XXXXXX".utf8CString)
        let fd = mkstemp(&path)
        guard fd >= 0 else { return false }
        unlink(path)
        defer { Glibc.close(fd) }
        guard ftruncate(fd, off_t(size)) == 0 else { return false }
        let pool = wl_shm_create_pool(shm, fd, Int32(size))
        let buffer = wl_shm_pool_create_buffer(pool, 0, w, h, w * 4, WL_SHM_FORMAT_XRGB8888.rawValue)
        wl_shm_pool_destroy(pool)
        wl_surface_attach(surface, buffer, 0, 0)
        wl_surface_damage_buffer(surface, 0, 0, w, h)
        wl_surface_commit(surface)
        return true
    }

    func dispatch(ms: Int32) {
        wl_display_flush(display)
        var p = pollfd(fd: wl_display_get_fd(display), events: Int16(POLLIN), revents: 0)
        if wl_display_prepare_read(display) == 0 {
            if poll(&p, 1, ms) > 0 { wl_display_read_events(display) } else { wl_display_cancel_read(display) }
        }
        wl_display_dispatch_pending(display)
    }

    func close() {
        seat.destroy()
        wl_display_roundtrip(display)
        wl_display_disconnect(display)
    }

    nonisolated(unsafe) static let registryListener: UnsafeMutablePointer<wl_registry_listener> = {
        var l = wl_registry_listener()
        l.global = { data, registry, name, interface, version in
            let me = Unmanaged<LiveWindow>.fromOpaque(data!).takeUnretainedValue()
            let iface = String(cString: interface!)
            switch iface {
            case "wl_compositor": me.compositor = OpaquePointer(wl_registry_bind(registry, name, CWayland_wl_compositor(), 4))
            case "wl_shm": me.shm = OpaquePointer(wl_registry_bind(registry, name, CWayland_wl_shm(), 1))
            case "xdg_wm_base": me.wmBase = OpaquePointer(wl_registry_bind(registry, name, CWayland_xdg_wm_base(), 1))
            default: me.seat.bind(registry: registry!, name: name, interface: iface, version: version)
            }
        }
        l.global_remove = { _, _, _ in }
        let p = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)
        p.initialize(to: l)
        return p
    }()

    nonisolated(unsafe) static let wmListener: UnsafeMutablePointer<xdg_wm_base_listener> = {
        var l = xdg_wm_base_listener()
        l.ping = { _, base, serial in xdg_wm_base_pong(base, serial) }
        let p = UnsafeMutablePointer<xdg_wm_base_listener>.allocate(capacity: 1)
        p.initialize(to: l)
        return p
    }()

    nonisolated(unsafe) static let xdgSurfaceListener: UnsafeMutablePointer<xdg_surface_listener> = {
        var l = xdg_surface_listener()
        l.configure = { data, xs, serial in
            xdg_surface_ack_configure(xs, serial)
            Unmanaged<LiveWindow>.fromOpaque(data!).takeUnretainedValue().configured = true
        }
        let p = UnsafeMutablePointer<xdg_surface_listener>.allocate(capacity: 1)
        p.initialize(to: l)
        return p
    }()
}
