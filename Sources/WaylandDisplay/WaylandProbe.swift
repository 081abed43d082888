#if canImport(Glibc)
import Glibc
#endif
import SystemClock
import Screen
internal import CWaylandClient
internal import CWaylandProtocols

/// What a compositor offers, as `check` reports it: every global, the wl_shm formats, the
/// presentation clock, the outputs and seats, the default linux-dmabuf v4 feedback, and who the
/// compositor is. Pure value.
public struct WaylandProbeResult: Sendable, Equatable {
    public struct Global: Sendable, Equatable {
        public var interface: String
        public var version: UInt32
        public init(interface: String, version: UInt32) { self.interface = interface; self.version = version }
    }

    public struct Mode: Sendable, Equatable {
        public var width: Int
        public var height: Int
        /// mHz (0: the output does not say — virtual outputs, VRR).
        public var refreshMilliHz: Int
        public var current: Bool
        public var preferred: Bool
        public init(width: Int, height: Int, refreshMilliHz: Int, current: Bool, preferred: Bool) {
            self.width = width; self.height = height; self.refreshMilliHz = refreshMilliHz
            self.current = current; self.preferred = preferred
        }
    }

    public struct Output: Sendable, Equatable {
        /// `wl_output.name` (v4), else make and model from `geometry`.
        public var name: String
        public var scale: Int
        public var modes: [Mode]
        public init(name: String, scale: Int, modes: [Mode]) { self.name = name; self.scale = scale; self.modes = modes }
    }

    public struct Seat: Sendable, Equatable {
        /// `wl_seat.name` (v2), "" when not told.
        public var name: String
        /// `wl_seat.capabilities`: pointer 1, keyboard 2, touch 4.
        public var capabilities: UInt32
        public init(name: String, capabilities: UInt32) { self.name = name; self.capabilities = capabilities }
    }

    /// Who the compositor is. Wayland has no request for the server's name, so it is the peer
    /// process of the socket: `SO_PEERCRED` gives its pid, `/proc/<pid>/comm` its name.
    public struct Peer: Sendable, Equatable {
        /// nil: not learnt (see `how`).
        public var name: String?
        /// How the name was learnt, or why not — one phrase for the report.
        public var how: String
        public init(name: String?, how: String) { self.name = name; self.how = how }
    }

    /// The socket's name (`WAYLAND_DISPLAY`).
    public var display: String
    public var peer: Peer
    /// In the order the registry announced them.
    public var globals: [Global]
    /// `wl_shm.format` codes (0 = ARGB8888, 1 = XRGB8888, else a DRM fourcc).
    public var shmFormats: [UInt32]
    /// `wp_presentation.clock_id` (nil: no wp_presentation, or it did not say).
    public var presentationClockID: Int32?
    public var outputs: [Output]
    public var seats: [Seat]
    /// The default feedback of linux-dmabuf v4 (nil: not offered at v4, or unreadable — see
    /// `dmabufFeedbackError`).
    public var dmabufFeedback: DmabufFeedback?
    public var dmabufFeedbackError: String?

    public init(display: String, peer: Peer, globals: [Global], shmFormats: [UInt32] = [], presentationClockID: Int32? = nil,
                outputs: [Output] = [], seats: [Seat] = [], dmabufFeedback: DmabufFeedback? = nil,
                dmabufFeedbackError: String? = nil) {
        self.display = display; self.peer = peer; self.globals = globals; self.shmFormats = shmFormats
        self.presentationClockID = presentationClockID; self.outputs = outputs; self.seats = seats
        self.dmabufFeedback = dmabufFeedback; self.dmabufFeedbackError = dmabufFeedbackError
    }

    /// The advertised version of `interface` (the highest, when it is announced more than once).
    public func version(of interface: String) -> UInt32? {
        globals.filter { $0.interface == interface }.map(\.version).max()
    }
}

/// A read-only look at the compositor for `punktfunk-kiosk check`: connects (its own
/// connection, default queue), lists the registry, binds only what must be bound to hear about
/// it — wl_shm (formats), wp_presentation (clock id), wl_output (modes, scale, name), wl_seat
/// (capabilities, name), zwp_linux_dmabuf_v1 v4 (`get_default_feedback`) — and disconnects.
/// Creates no surface: nothing is mapped, nothing is shown.
public enum WaylandProbe {
    /// - Parameters:
    ///   - displayName: the socket (nil: `WAYLAND_DISPLAY`, else `wayland-0`).
    ///   - timeoutMs: how long each round trip may take before the compositor counts as hung.
    /// - Throws: `ScreenError.unavailable` when nothing listens, `.lost` when the connection
    ///   breaks or a round trip times out.
    public static func run(displayName: String? = nil, timeoutMs: Int = 2000) throws(ScreenError) -> WaylandProbeResult {
        let which = displayName ?? (getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? "wayland-0")
        guard let display = displayName.map({ wl_display_connect($0) }) ?? wl_display_connect(nil) else {
            throw .unavailable("no Wayland compositor at \(which): \(String(cString: strerror(errno)))")
        }
        let state = ProbeState(display: display)
        defer { state.destroy(); wl_display_disconnect(display) }
        let peer = peer(of: wl_display_get_fd(display))
        state.registry = wl_display_get_registry(display)
        wl_registry_add_listener(state.registry, ProbeState.registryListener.pointer, context(state))
        // 1: the globals (bound as they come); 2: what they say on bind (formats, clock, modes,
        // seat, the feedback's first batch); 3: anything sent in answer to those (a slow
        // feedback `done`).
        for _ in 0..<3 { try state.roundtrip(timeoutMs: timeoutMs) }
        var result = WaylandProbeResult(display: which, peer: peer, globals: state.globals, shmFormats: state.shmFormats,
                                        presentationClockID: state.clockID,
                                        outputs: state.outputs.map { $0.result }, seats: state.seats.map { $0.result })
        switch state.feedback {
        case .success(let f)?: result.dmabufFeedback = f
        case .failure(let e)?: result.dmabufFeedbackError = "unreadable: \(e)"
        case nil:
            if let v = result.version(of: "zwp_linux_dmabuf_v1"), v >= 4 {
                result.dmabufFeedbackError = "no answer to get_default_feedback"
            }
        }
        return result
    }

    /// The compositor's name from the socket's peer: `SO_PEERCRED` → pid → `/proc/<pid>/comm`.
    static func peer(of fd: Int32) -> WaylandProbeResult.Peer {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } — Swift's Glibc hides it (_GNU_SOURCE).
        var cred: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: cred))
        // SO_PEERCRED is 17 on x86-64, arm64 and the other asm-generic architectures.
        guard getsockopt(fd, SOL_SOCKET, 17, &cred, &length) == 0 else {
            return .init(name: nil, how: "SO_PEERCRED failed: \(String(cString: strerror(errno)))")
        }
        let pid = cred.0
        guard pid > 0 else {
            return .init(name: nil, how: "SO_PEERCRED gave no pid (the compositor is in another PID namespace)")
        }
        guard let comm = readFirstLine("/proc/\(pid)/comm") else {
            return .init(name: nil, how: "the socket's peer is pid \(pid), whose /proc/\(pid)/comm cannot be read")
        }
        return .init(name: comm, how: "the socket's peer process (SO_PEERCRED pid \(pid), /proc/\(pid)/comm)")
    }

    static func readFirstLine(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        let line = String(decoding: buffer[0..<n], as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        return line.isEmpty ? nil : line
    }
}

/// The probe's proxies and what they said. Owned by `WaylandProbe.run`, on its thread.
private final class ProbeState {
    let display: OpaquePointer
    var registry: OpaquePointer?
    var globals: [WaylandProbeResult.Global] = []
    var shm: OpaquePointer?
    var shmFormats: [UInt32] = []
    var presentation: OpaquePointer?
    var clockID: Int32?
    var outputs: [ProbeOutput] = []
    var seats: [ProbeSeat] = []
    var dmabuf: OpaquePointer?
    var feedbackProxy: OpaquePointer?
    var builder = DmabufFeedbackBuilder()
    var feedback: Result<DmabufFeedback, DmabufFeedbackError>?
    var synced = false

    init(display: OpaquePointer) { self.display = display }

    func destroy() {
        if let f = feedbackProxy { zwp_linux_dmabuf_feedback_v1_destroy(f) }
        for o in outputs { wl_proxy_destroy(o.proxy) }
        for s in seats { wl_proxy_destroy(s.proxy) }
        for p in [shm, presentation, dmabuf, registry].compactMap({ $0 }) { wl_proxy_destroy(p) }
        feedbackProxy = nil; outputs = []; seats = []; shm = nil; presentation = nil; dmabuf = nil; registry = nil
    }

    /// `wl_display.sync` and dispatch until its `done`, or throw after `timeoutMs`.
    func roundtrip(timeoutMs: Int) throws(ScreenError) {
        synced = false
        guard let callback = wl_display_sync(display) else { throw .system("wl_display_sync", errno: errno) }
        defer { wl_callback_destroy(callback) }
        wl_callback_add_listener(callback, Self.syncListener.pointer, context(self))
        let deadline = MonotonicClock.nowNs() + UInt64(timeoutMs) * 1_000_000
        while !synced {
            while wl_display_prepare_read(display) != 0 {
                if wl_display_dispatch_pending(display) < 0 { throw lost() }
            }
            if wl_display_flush(display) < 0, errno != EAGAIN { wl_display_cancel_read(display); throw lost() }
            let now = MonotonicClock.nowNs()
            guard now < deadline else {
                wl_display_cancel_read(display)
                throw .lost("the compositor did not answer within \(timeoutMs) ms")
            }
            var fds = [pollfd(fd: wl_display_get_fd(display), events: Int16(POLLIN), revents: 0)]
            let n = poll(&fds, 1, Int32((deadline - now) / 1_000_000 + 1))
            if n > 0 {
                if wl_display_read_events(display) < 0 { throw lost() }
            } else {
                wl_display_cancel_read(display)
            }
            if wl_display_dispatch_pending(display) < 0 { throw lost() }
        }
    }

    func lost() -> ScreenError {
        let code = wl_display_get_error(display)
        return .lost(code == 0 ? "the Wayland connection closed" : "the Wayland connection failed: \(String(cString: strerror(code)))")
    }

    func handleGlobal(name: UInt32, interface: String, version: UInt32) {
        globals.append(.init(interface: interface, version: version))
        func bind(_ iface: UnsafePointer<wl_interface>?, _ known: UInt32) -> OpaquePointer? {
            OpaquePointer(wl_registry_bind(registry, name, iface, min(version, known)))
        }
        switch interface {
        case "wl_shm" where shm == nil:
            shm = bind(CWayland_wl_shm(), 1)
            wl_shm_add_listener(shm, Self.shmListener.pointer, context(self))
        case "wp_presentation" where presentation == nil:
            presentation = bind(CWayland_wp_presentation(), 1)
            wp_presentation_add_listener(presentation, Self.presentationListener.pointer, context(self))
        case "wl_output":
            guard let proxy = bind(CWayland_wl_output(), 4) else { return }
            let o = ProbeOutput(proxy: proxy)
            outputs.append(o)
            wl_output_add_listener(proxy, Self.outputListener.pointer, context(o))
        case "wl_seat":
            guard let proxy = bind(CWayland_wl_seat(), 2) else { return }
            let s = ProbeSeat(proxy: proxy)
            seats.append(s)
            wl_seat_add_listener(proxy, Self.seatListener.pointer, context(s))
        case "zwp_linux_dmabuf_v1" where dmabuf == nil && version >= 4:
            dmabuf = bind(CWayland_zwp_linux_dmabuf_v1(), 4)
            zwp_linux_dmabuf_v1_add_listener(dmabuf, Self.dmabufListener.pointer, context(self))
            feedbackProxy = zwp_linux_dmabuf_v1_get_default_feedback(dmabuf)
            zwp_linux_dmabuf_feedback_v1_add_listener(feedbackProxy, Self.feedbackListener.pointer, context(self))
        default: break
        }
    }

    func handleFormatTable(fd: Int32, size: UInt32) {
        defer { close(fd) }  // the fd is ours (libwayland dup'ed it for us)
        guard size > 0, let m = mmap(nil, Int(size), PROT_READ, MAP_PRIVATE, fd, 0), m != MAP_FAILED else { return }
        builder.handleFormatTable(UnsafeRawBufferPointer(start: m, count: Int(size)))
        munmap(m, Int(size))
    }

    static func bytes(_ array: UnsafeMutablePointer<wl_array>?) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: array?.pointee.data, count: array?.pointee.size ?? 0)
    }

    static let syncListener = Listener(wl_callback_listener(
        done: { data, _, _ in object(data, as: ProbeState.self).synced = true }
    ))

    static let registryListener = Listener(wl_registry_listener(
        global: { data, _, name, interface, version in
            object(data, as: ProbeState.self).handleGlobal(name: name, interface: String(cString: interface!), version: version)
        },
        global_remove: { _, _, _ in }
    ))

    static let shmListener = Listener(wl_shm_listener(
        format: { data, _, format in object(data, as: ProbeState.self).shmFormats.append(format) }
    ))

    static let presentationListener = Listener(wp_presentation_listener(
        clock_id: { data, _, clock in object(data, as: ProbeState.self).clockID = Int32(bitPattern: clock) }
    ))

    static let dmabufListener = Listener(zwp_linux_dmabuf_v1_listener(
        format: { _, _, _ in }, modifier: { _, _, _, _, _ in }
    ))

    static let feedbackListener = Listener(zwp_linux_dmabuf_feedback_v1_listener(
        done: { data, _ in
            let s = object(data, as: ProbeState.self)
            s.feedback = s.builder.handleDone()
        },
        format_table: { data, _, fd, size in object(data, as: ProbeState.self).handleFormatTable(fd: fd, size: size) },
        main_device: { data, _, array in object(data, as: ProbeState.self).builder.handleMainDevice(bytes(array)) },
        tranche_done: { data, _ in object(data, as: ProbeState.self).builder.handleTrancheDone() },
        tranche_target_device: { data, _, array in
            object(data, as: ProbeState.self).builder.handleTrancheTargetDevice(bytes(array))
        },
        tranche_formats: { data, _, array in object(data, as: ProbeState.self).builder.handleTrancheFormats(bytes(array)) },
        tranche_flags: { data, _, flags in object(data, as: ProbeState.self).builder.handleTrancheFlags(flags) }
    ))

    static let outputListener = Listener(wl_output_listener(
        geometry: { data, _, _, _, _, _, _, make, model, _ in
            let o = object(data, as: ProbeOutput.self)
            if o.name == nil {
                o.geometryName = [make, model].compactMap { $0.map { String(cString: $0) } }.joined(separator: " ")
            }
        },
        mode: { data, _, flags, w, h, refresh in
            object(data, as: ProbeOutput.self).modes.append(
                .init(width: Int(w), height: Int(h), refreshMilliHz: Int(max(0, refresh)),
                      current: flags & 0x1 != 0, preferred: flags & 0x2 != 0))
        },
        done: { _, _ in },
        scale: { data, _, f in object(data, as: ProbeOutput.self).scale = max(1, Int(f)) },
        name: { data, _, name in object(data, as: ProbeOutput.self).name = name.map { String(cString: $0) } },
        description: { _, _, _ in }
    ))

    static let seatListener = Listener(wl_seat_listener(
        capabilities: { data, _, caps in object(data, as: ProbeSeat.self).capabilities = caps },
        name: { data, _, name in object(data, as: ProbeSeat.self).name = name.map { String(cString: $0) } ?? "" }
    ))
}

private final class ProbeOutput {
    let proxy: OpaquePointer
    var name: String?
    var geometryName = ""
    var scale = 1
    var modes: [WaylandProbeResult.Mode] = []
    init(proxy: OpaquePointer) { self.proxy = proxy }
    var result: WaylandProbeResult.Output {
        .init(name: name ?? (geometryName.isEmpty ? "output" : geometryName), scale: scale, modes: modes)
    }
}

private final class ProbeSeat {
    let proxy: OpaquePointer
    var name = ""
    var capabilities: UInt32 = 0
    init(proxy: OpaquePointer) { self.proxy = proxy }
    var result: WaylandProbeResult.Seat { .init(name: name, capabilities: capabilities) }
}
