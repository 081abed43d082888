#if canImport(Glibc)
import Glibc
#endif
import Screen
internal import CWaylandClient
internal import CWaylandProtocols

/// The connection to the compositor and its globals, on a private `wl_event_queue` owned by the
/// presenting thread (wayland.md §4.3): the registry is created through a queue-assigned wrapper
/// of `wl_display`, so every object bound from it — and every object those create — lands on
/// `queue`; the default queue stays free for whoever else shares the connection.
///
/// Each global is bound at `min(advertised, known)`. Required: wl_compositor ≥ 4 (damage_buffer),
/// xdg_wm_base, wl_shm; a missing one throws. Every optional one missing adds one line to
/// `notices` and a degraded path, never an exit.
final class WaylandConnection {
    let display: OpaquePointer
    let queue: OpaquePointer
    private let displayWrapper: OpaquePointer
    private var registry: OpaquePointer?

    private(set) var compositor: OpaquePointer?
    private(set) var compositorVersion: UInt32 = 0
    private(set) var subcompositor: OpaquePointer?
    private(set) var shm: OpaquePointer?
    private(set) var wmBase: OpaquePointer?
    private(set) var wmBaseVersion: UInt32 = 0
    private(set) var viewporter: OpaquePointer?
    private(set) var presentation: OpaquePointer?
    private(set) var dmabuf: OpaquePointer?
    private(set) var dmabufVersion: UInt32 = 0
    private(set) var idleInhibitManager: OpaquePointer?
    private(set) var contentTypeManager: OpaquePointer?
    private(set) var singlePixelManager: OpaquePointer?
    private(set) var fractionalScaleManager: OpaquePointer?

    /// `wp_presentation.clock_id` (nil until told, or without wp_presentation).
    private(set) var presentationClockID: Int32?
    /// `wl_shm.format` codes the compositor takes (0 = ARGB8888, 1 = XRGB8888, else fourcc).
    private(set) var shmFormats: Set<UInt32> = []
    /// Outputs by registry name, with their proxies.
    private(set) var outputs: [UInt32: (proxy: OpaquePointer, state: OutputState)] = [:]
    /// Registry names removed since `takeRemovedOutputs`.
    private var removedOutputs: [String] = []
    /// One line per optional protocol that is missing (the degraded path it takes).
    private(set) var notices: [String] = []
    /// What the compositor advertised (interface → version), for the start-up line and probes.
    private(set) var advertised: [String: UInt32] = [:]

    /// Connects to `name` (nil: `WAYLAND_DISPLAY`, else `wayland-0`) and binds the globals.
    init(name: String? = nil) throws(ScreenError) {
        guard let d = name.map({ wl_display_connect($0) }) ?? wl_display_connect(nil) else {
            let why = String(cString: strerror(errno))
            throw .unavailable("There is no Wayland compositor at \(Self.socketPath(name)) (\(why)).")
        }
        display = d
        guard let q = wl_display_create_queue(d) else {
            wl_display_disconnect(d)
            throw .system("wl_display_create_queue", errno: errno)
        }
        queue = q
        // wl_display is not a generated type: the wrapper is a plain wl_proxy.
        guard let wrapper = wl_proxy_create_wrapper(UnsafeMutableRawPointer(d)) else {
            wl_event_queue_destroy(q); wl_display_disconnect(d)
            throw .system("wl_proxy_create_wrapper", errno: errno)
        }
        displayWrapper = OpaquePointer(wrapper)
        wl_proxy_set_queue(OpaquePointer(wrapper), q)
        registry = wl_display_get_registry(displayWrapper)
        wl_registry_add_listener(registry, Self.registryListener.pointer, context(self))
        // 1: the globals; 2: what they say on bind (clock id, shm formats, output modes).
        try roundtrip()
        try roundtrip()
        guard compositor != nil, compositorVersion >= 4 else {
            throw .unusable(KioskProtocols.noCompositor)
        }
        guard wmBase != nil else {
            throw .unusable(KioskProtocols.noWmBase)
        }
        guard shm != nil else { throw .unusable(KioskProtocols.noShm) }
        if viewporter == nil { notices.append(KioskProtocols.noViewporter) }
        if presentation == nil { notices.append(KioskProtocols.noPresentation) }
        if subcompositor == nil { notices.append(KioskProtocols.noSubcompositor) }
        if dmabuf == nil || dmabufVersion < 4 {
            notices.append(KioskProtocols.noDmabuf)
        }
        if idleInhibitManager == nil { notices.append(KioskProtocols.noIdleInhibit) }
        if contentTypeManager == nil { notices.append(KioskProtocols.noContentType) }
        if fractionalScaleManager == nil, viewporter != nil { notices.append(KioskProtocols.noFractionalScale) }
    }

    deinit { disconnect() }

    /// The socket `wl_display_connect` tries for `name` (nil: `WAYLAND_DISPLAY`, else
    /// `wayland-0`): an absolute name as it is, else inside `XDG_RUNTIME_DIR`.
    static func socketPath(_ name: String?) -> String {
        let which = name ?? getenv("WAYLAND_DISPLAY").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "wayland-0"
        if which.hasPrefix("/") { return which }
        guard let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !runtime.isEmpty else {
            return "\(which) (XDG_RUNTIME_DIR is unset)"
        }
        return "\(runtime)/\(which)"
    }

    private var disconnected = false

    /// Destroys every global proxy and closes the connection. Idempotent.
    func disconnect() {
        guard !disconnected else { return }
        disconnected = true
        for (_, o) in outputs { wl_proxy_destroy(o.proxy) }
        outputs = [:]
        for p in [compositor, subcompositor, shm, wmBase, viewporter, presentation, dmabuf, idleInhibitManager,
                  contentTypeManager, singlePixelManager, fractionalScaleManager, registry].compactMap({ $0 }) {
            wl_proxy_destroy(p)
        }
        wl_proxy_wrapper_destroy(UnsafeMutableRawPointer(displayWrapper))
        wl_event_queue_destroy(queue)
        wl_display_disconnect(display)
    }

    // MARK: Events

    /// A round trip on the private queue. - Throws: `.lost` when the connection broke.
    func roundtrip() throws(ScreenError) {
        if wl_display_roundtrip_queue(display, queue) < 0 { throw connectionError() }
    }

    /// Sends what is buffered; EAGAIN (the socket is full) is not an error: poll for POLLOUT.
    func flush() throws(ScreenError) {
        if wl_display_flush(display) < 0, errno != EAGAIN { throw connectionError() }
    }

    /// Reads and dispatches everything that arrives within `timeoutMs` (0: only what is there
    /// now, -1: wait), plus `extra` descriptors polled alongside (their readiness returned).
    /// The wayland.md §4.3 pattern: prepare_read_queue (dispatching what is already queued
    /// until it succeeds), flush, poll, read_events or cancel_read, dispatch_queue_pending.
    @discardableResult
    func dispatch(timeoutMs: Int32, extra: [Int32] = []) throws(ScreenError) -> [Bool] {
        while wl_display_prepare_read_queue(display, queue) != 0 {
            if wl_display_dispatch_queue_pending(display, queue) < 0 { throw connectionError() }
        }
        if wl_display_flush(display) < 0, errno != EAGAIN {
            wl_display_cancel_read(display)
            throw connectionError()
        }
        var fds = [pollfd(fd: wl_display_get_fd(display), events: Int16(POLLIN), revents: 0)]
        for fd in extra { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        let n = poll(&fds, nfds_t(fds.count), timeoutMs)
        if n > 0, fds[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
            if wl_display_read_events(display) < 0 { throw connectionError() }
        } else {
            wl_display_cancel_read(display)
        }
        if wl_display_dispatch_queue_pending(display, queue) < 0 { throw connectionError() }
        return fds.dropFirst().map { $0.revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 }
    }

    /// The connection's error as a sentence: a protocol error names the interface, object and
    /// code; anything else is the compositor going away.
    func connectionError() -> ScreenError {
        let code = wl_display_get_error(display)
        if code == EPROTO {
            var interface: UnsafePointer<wl_interface>?
            var id: UInt32 = 0
            let pcode = wl_display_get_protocol_error(display, &interface, &id)
            let name = interface.map { String(cString: $0.pointee.name) } ?? "?"
            return .lost("Wayland protocol error \(pcode) on \(name)#\(id)")
        }
        let why = code == 0 ? "connection closed" : String(cString: strerror(code))
        return .lost("the Wayland compositor went away (\(why))")
    }

    /// Outputs removed since the last call (their names).
    func takeRemovedOutputs() -> [String] {
        defer { removedOutputs = [] }
        return removedOutputs
    }

    // MARK: Listeners

    fileprivate func handleGlobal(name: UInt32, interface: String, version: UInt32) {
        advertised[interface] = version
        func bind(_ iface: UnsafePointer<wl_interface>?, _ known: UInt32) -> OpaquePointer? {
            OpaquePointer(wl_registry_bind(registry, name, iface, min(version, known)))
        }
        switch interface {
        case "wl_compositor":
            compositorVersion = min(version, 4)
            compositor = bind(CWayland_wl_compositor(), 4)
        case "wl_subcompositor": subcompositor = bind(CWayland_wl_subcompositor(), 1)
        case "wl_shm":
            shm = bind(CWayland_wl_shm(), 1)
            wl_shm_add_listener(shm, Self.shmListener.pointer, context(self))
        case "xdg_wm_base":
            wmBaseVersion = min(version, 5)
            wmBase = bind(CWayland_xdg_wm_base(), 5)
            xdg_wm_base_add_listener(wmBase, Self.wmBaseListener.pointer, context(self))
        case "wp_viewporter": viewporter = bind(CWayland_wp_viewporter(), 1)
        case "wp_presentation":
            presentation = bind(CWayland_wp_presentation(), 1)
            wp_presentation_add_listener(presentation, Self.presentationListener.pointer, context(self))
        case "zwp_linux_dmabuf_v1":
            dmabufVersion = min(version, 4)
            dmabuf = bind(CWayland_zwp_linux_dmabuf_v1(), 4)
            zwp_linux_dmabuf_v1_add_listener(dmabuf, Self.dmabufListener.pointer, context(self))
        case "zwp_idle_inhibit_manager_v1":
            idleInhibitManager = bind(CWayland_zwp_idle_inhibit_manager_v1(), 1)
        case "wp_content_type_manager_v1":
            contentTypeManager = bind(CWayland_wp_content_type_manager_v1(), 1)
        case "wp_single_pixel_buffer_manager_v1":
            singlePixelManager = bind(CWayland_wp_single_pixel_buffer_manager_v1(), 1)
        case "wp_fractional_scale_manager_v1":
            fractionalScaleManager = bind(CWayland_wp_fractional_scale_manager_v1(), 1)
        case "wl_output":
            guard let proxy = bind(CWayland_wl_output(), 4) else { return }
            outputs[name] = (proxy, OutputState(globalName: name))
            wl_output_add_listener(proxy, Self.outputListener.pointer, context(self))
        default: break
        }
    }

    fileprivate func handleGlobalRemove(name: UInt32) {
        guard let o = outputs.removeValue(forKey: name) else { return }
        removedOutputs.append(o.state.displayName)
        wl_proxy_destroy(o.proxy)
    }

    fileprivate func updateOutput(_ proxy: OpaquePointer?, _ change: (inout OutputState) -> Void) {
        guard let key = outputs.first(where: { $0.value.proxy == proxy })?.key else { return }
        change(&outputs[key]!.state)
    }

    /// The output state behind a `wl_output` proxy (from `wl_surface.enter`).
    func output(for proxy: OpaquePointer?) -> OutputState? {
        outputs.values.first(where: { $0.proxy == proxy })?.state
    }

    private static let registryListener = Listener(wl_registry_listener(
        global: { data, _, name, interface, version in
            object(data, as: WaylandConnection.self).handleGlobal(name: name, interface: String(cString: interface!),
                                                                  version: version)
        },
        global_remove: { data, _, name in object(data, as: WaylandConnection.self).handleGlobalRemove(name: name) }
    ))

    private static let shmListener = Listener(wl_shm_listener(
        format: { data, _, format in object(data, as: WaylandConnection.self).shmFormats.insert(format) }
    ))

    private static let wmBaseListener = Listener(xdg_wm_base_listener(
        ping: { _, base, serial in xdg_wm_base_pong(base, serial) }
    ))

    private static let presentationListener = Listener(wp_presentation_listener(
        clock_id: { data, _, clock in object(data, as: WaylandConnection.self).presentationClockID = Int32(bitPattern: clock) }
    ))

    /// v3 `format`/`modifier` events are ignored: the v4 surface feedback is what counts.
    private static let dmabufListener = Listener(zwp_linux_dmabuf_v1_listener(
        format: { _, _, _ in }, modifier: { _, _, _, _, _ in }
    ))

    private static let outputListener = Listener(wl_output_listener(
        geometry: { data, proxy, _, _, _, _, _, make, model, transform in
            let m = make.map { String(cString: $0) } ?? "", n = model.map { String(cString: $0) } ?? ""
            object(data, as: WaylandConnection.self).updateOutput(proxy) { $0.handleGeometry(make: m, model: n, transform: transform) }
        },
        mode: { data, proxy, flags, w, h, refresh in
            object(data, as: WaylandConnection.self).updateOutput(proxy) {
                $0.handleMode(flags: flags, width: w, height: h, refreshMilliHz: refresh)
            }
        },
        done: { data, proxy in object(data, as: WaylandConnection.self).updateOutput(proxy) { $0.handleDone() } },
        scale: { data, proxy, f in object(data, as: WaylandConnection.self).updateOutput(proxy) { $0.handleScale(f) } },
        name: { data, proxy, name in
            let n = name.map { String(cString: $0) } ?? ""
            object(data, as: WaylandConnection.self).updateOutput(proxy) { $0.handleName(n) }
        },
        description: { _, _, _ in }
    ))
}
