#if canImport(Glibc)
import Glibc
#endif
internal import CWaylandClient
internal import CWaylandProtocols
public import Input
import Screen

/// The compositor's seat for the kiosk (issue 20, item 3): `wl_seat` with its `wl_keyboard` and
/// `wl_pointer`, and — while streaming with focus — the pointer locked (`zwp_pointer_constraints_v1`,
/// persistent lifetime) with unaccelerated relative motion (`zwp_relative_pointer_v1`) and the
/// compositor's shortcuts inhibited (`zwp_keyboard_shortcuts_inhibit_v1`, so Alt+Tab reaches the
/// host). Every callback becomes a `SeatEvent` for `onEvent`; the mapping (evdev→VK, what the
/// host holds, the escape chord, the shell's navigation) is `Input`'s — the runner hands the
/// events to `InputService.seat(_:)`, the same service that reads the pads.
///
/// Degrades, never fails: no `wl_seat` (weston headless) → no keyboard or mouse, pads only; no
/// constraints or relative pointer (cage 0.1.4, gamescope 3.11) → absolute motion while
/// streaming; no shortcuts inhibitor (weston, cage) → the compositor keeps its shortcuts, and the
/// escape chord still works (it is read from the key events, not from a grab). Each missing
/// piece is one line in `notices`.
///
/// Made by `WaylandScreen.makeSeat(onEvent:)`: its own registry on the screen's connection and
/// event queue, so the seat's events arrive whenever the screen is serviced, and the screen's
/// code needs no change. The surface is learnt from the first keyboard or pointer `enter` (the
/// toplevel is the kiosk's only surface that takes input; the panel's input region is empty).
///
/// Thread contract: everything — `setCapture`, `setGeometry`, `destroy` — runs on the thread that
/// services the screen (the objects it binds land on its queue); `onEvent` is called there too,
/// and must not block. `destroy()` before the screen closes.
public final class WaylandSeat {
    /// Where every seat event goes (set before the globals are bound).
    public var onEvent: (SeatEvent) -> Void
    /// One line per optional seat protocol that is missing, and the path taken instead.
    public var notices: [String] {
        var n: [String] = []
        if seat == nil { n.append(KioskProtocols.noSeat) }
        if constraints == nil || relativeManager == nil {
            n.append(KioskProtocols.noPointerLock)
        }
        if inhibitManager == nil {
            n.append(KioskProtocols.noShortcutsInhibit)
        }
        return n
    }

    /// Seat globals we bind at most (wl_pointer.axis_value120 is v8; libwayland 1.21 knows it).
    static let seatVersion: UInt32 = 8

    private var registry: OpaquePointer?
    /// The queue-assigned `wl_display` wrapper our registry was made from (`attach`).
    private var displayWrapper: OpaquePointer?
    private var seat: OpaquePointer?
    private var seatName: UInt32?
    private(set) var boundSeatVersion: UInt32 = 0
    private var keyboard: OpaquePointer?
    private var pointer: OpaquePointer?
    private var relativeManager: OpaquePointer?
    private var constraints: OpaquePointer?
    private var inhibitManager: OpaquePointer?
    private var relativePointer: OpaquePointer?
    private var lockedPointer: OpaquePointer?
    private var inhibitor: OpaquePointer?
    /// The kiosk's surface: focus elsewhere (another of our surfaces has none) is ignored.
    private var surface: OpaquePointer?
    /// Streaming: lock, relative motion and the inhibitor are wanted while focused.
    private var capture = false
    /// Desktop mode: the box draws the host's pointer as this seat's cursor and the host has not
    /// captured it, so the pointer is not locked while streaming (absolute motion goes to the host).
    private var pointerFree = false
    /// The serial of the pointer's last enter on our surface (`set_cursor` needs it).
    private var enterSerial: UInt32 = 0
    /// The host's pointer as the cursor surface (nil: none; the shell and a locked pointer show none).
    private var cursor: (surface: OpaquePointer, pool: ShmBufferPool, hotX: Int32, hotY: Int32)?
    /// The pool shown before the current one, kept until the next change (the compositor may
    /// still read it until the new one is committed).
    private var previousCursorPool: ShmBufferPool?
    /// The compositor and wl_shm of the screen's connection (cursor surfaces and their buffers).
    var cursorMaker: (compositor: OpaquePointer, shm: OpaquePointer)?
    private(set) var keyboardFocus = false
    private(set) var pointerFocus = false

    public init(onEvent: @escaping (SeatEvent) -> Void = { _ in }) {
        self.onEvent = onEvent
    }

    deinit { destroy() }

    // MARK: - The registry

    /// Binds the seat's globals through a registry of our own on `queue` of `display` (a
    /// queue-assigned wrapper, as WaylandConnection does), and waits for them (two round trips on
    /// that queue: the globals, then the seat's capabilities).
    func attach(display: OpaquePointer, queue: OpaquePointer) {
        guard displayWrapper == nil, let wrapper = wl_proxy_create_wrapper(UnsafeMutableRawPointer(display)) else { return }
        displayWrapper = OpaquePointer(wrapper)
        wl_proxy_set_queue(OpaquePointer(wrapper), queue)
        let r = wl_display_get_registry(displayWrapper)
        registry = r
        wl_registry_add_listener(r, Self.registryListener.pointer, seatContext(self))
        wl_display_roundtrip_queue(display, queue)
        wl_display_roundtrip_queue(display, queue)
    }

    /// Binds `interface` if it is one of the seat's. - Returns: whether it was.
    @discardableResult
    func bind(registry: OpaquePointer, name: UInt32, interface: String, version: UInt32) -> Bool {
        self.registry = registry
        switch interface {
        case "wl_seat":
            guard seat == nil else { return true }   // the first seat is the kiosk's
            boundSeatVersion = min(version, Self.seatVersion)
            seat = OpaquePointer(wl_registry_bind(registry, name, CWayland_wl_seat(), boundSeatVersion))
            seatName = name
            wl_seat_add_listener(seat, Self.seatListener.pointer, seatContext(self))
        case "zwp_relative_pointer_manager_v1":
            relativeManager = OpaquePointer(wl_registry_bind(registry, name, CWayland_zwp_relative_pointer_manager_v1(), 1))
        case "zwp_pointer_constraints_v1":
            constraints = OpaquePointer(wl_registry_bind(registry, name, CWayland_zwp_pointer_constraints_v1(), 1))
        case "zwp_keyboard_shortcuts_inhibit_manager_v1":
            inhibitManager = OpaquePointer(wl_registry_bind(registry, name,
                                                            CWayland_zwp_keyboard_shortcuts_inhibit_manager_v1(), 1))
        default:
            return false
        }
        return true
    }

    /// `wl_registry.global_remove`: the seat going away ends its focus (everything released).
    func globalRemoved(name: UInt32) {
        guard name == seatName else { return }
        dropKeyboard()
        dropPointer()
        if let s = seat { boundSeatVersion >= 5 ? wl_seat_release(s) : wl_proxy_destroy(s) }
        seat = nil
        seatName = nil
    }

    /// The kiosk's (toplevel) surface, once it exists.
    func setSurface(_ surface: OpaquePointer?) {
        self.surface = surface
        updateCapture()
    }

    // MARK: - The runner's view

    /// Streaming (true) or not: while streaming and focused the pointer is locked (relative,
    /// unaccelerated motion) and the compositor's shortcuts are inhibited; otherwise both are let
    /// go and the pointer is absolute (the shell's).
    public func setCapture(_ on: Bool) {
        guard on != capture else { return }
        capture = on
        updateCapture()
    }

    /// Desktop mode (true): the host's pointer is drawn as this seat's cursor and the host has not
    /// captured it, so the pointer is not locked while streaming; false: locked, as before.
    public func setPointerFree(_ free: Bool) {
        guard free != pointerFree else { return }
        pointerFree = free
        updateCapture()
    }

    /// Where the stream's picture is on the panel and the video's size (nil: no stream on glass).
    public func setVideoArea(_ area: SeatVideoArea?) {
        onEvent(.videoArea(area))
    }

    /// Whether the compositor offers a seat (a pointer may come and go on it).
    public var hasSeat: Bool { seat != nil }

    /// The host's pointer as the cursor over our surface: premultiplied ARGB8888 in a wl_shm
    /// buffer of its own, at buffer scale 1 (surface-local size = its pixels), its hot spot where
    /// the compositor's pointer is. nil: no cursor (the shell draws its own pointer).
    func setCursor(_ image: CursorImage?) {
        previousCursorPool = nil
        if let old = cursor {
            previousCursorPool = old.pool
            if image == nil {
                wl_surface_destroy(old.surface)
                cursor = nil
            }
        }
        if let image, let maker = cursorMaker,
           let pool = try? ShmBufferPool(shm: maker.shm, width: image.width, height: image.height, format: 0, count: 1, generation: 0) {
            image.pixels.withUnsafeBytes { src in
                for row in 0..<image.height {
                    memcpy(pool.pixels(0) + row * pool.stride, src.baseAddress! + row * image.width * 4, image.width * 4)
                }
            }
            let surface = cursor?.surface ?? wl_compositor_create_surface(maker.compositor)!
            wl_surface_attach(surface, pool.attach(0), 0, 0)
            wl_surface_damage_buffer(surface, 0, 0, Int32(image.width), Int32(image.height))
            wl_surface_commit(surface)
            cursor = (surface, pool, Int32(image.hotX), Int32(image.hotY))
        }
        applyCursor()
    }

    /// Sets the pointer's cursor on our surface: the host's while free and streaming, else none.
    private func applyCursor() {
        guard let pointer, pointerFocus else { return }
        if let c = cursor, capture, pointerFree {
            wl_pointer_set_cursor(pointer, enterSerial, c.surface, c.hotX, c.hotY)
        } else {
            wl_pointer_set_cursor(pointer, enterSerial, nil, 0, 0)
        }
    }

    /// The surface's configured (logical) size and the panel's pixel size: absolute positions
    /// are scaled from one to the other.
    public func setGeometry(surfaceWidth: Int, surfaceHeight: Int, panelWidth: Int, panelHeight: Int) {
        onEvent(.geometry(surfaceWidth: surfaceWidth, surfaceHeight: surfaceHeight,
                          panelWidth: panelWidth, panelHeight: panelHeight))
    }

    /// Lets go of every seat object (focus ends: releases go out first). Idempotent.
    public func destroy() {
        dropKeyboard()
        dropPointer()
        if let c = cursor { wl_surface_destroy(c.surface) }
        cursor = nil; previousCursorPool = nil
        for p in [relativeManager, constraints, inhibitManager].compactMap({ $0 }) { wl_proxy_destroy(p) }
        relativeManager = nil; constraints = nil; inhibitManager = nil
        if let s = seat { boundSeatVersion >= 5 ? wl_seat_release(s) : wl_proxy_destroy(s) }
        seat = nil
        if let w = displayWrapper {
            if let r = registry { wl_proxy_destroy(r) }
            wl_proxy_wrapper_destroy(UnsafeMutableRawPointer(w))
            displayWrapper = nil
        }
        registry = nil
    }

    // MARK: - Lock, relative motion, inhibitor

    /// Creates or destroys the lock (+ relative pointer) and the inhibitor to match
    /// `capture` and the focus. The lock is persistent: made on the first pointer enter while
    /// streaming, it comes back by itself when the pointer returns, so it lives until capture off
    /// (or the pointer's end). The inhibitor is made on keyboard focus and destroyed on leave (a second
    /// one for the same surface and seat is a protocol error).
    private func updateCapture() {
        let wantLock = capture && !pointerFree && surface != nil && pointer != nil && constraints != nil && relativeManager != nil
        // Made once the pointer is on the surface (sway 1.7 does not activate a lock made before
        // the pointer entered), kept through leaves (persistent: it comes back with the pointer).
        if wantLock, pointerFocus, lockedPointer == nil, let constraints, let surface, let pointer, let relativeManager {
            lockedPointer = zwp_pointer_constraints_v1_lock_pointer(
                constraints, surface, pointer, nil, ZWP_POINTER_CONSTRAINTS_V1_LIFETIME_PERSISTENT.rawValue)
            zwp_locked_pointer_v1_add_listener(lockedPointer, Self.lockedListener.pointer, seatContext(self))
            relativePointer = zwp_relative_pointer_manager_v1_get_relative_pointer(relativeManager, pointer)
            zwp_relative_pointer_v1_add_listener(relativePointer, Self.relativeListener.pointer, seatContext(self))
        } else if !wantLock {
            dropLock()
        }
        let wantInhibitor = capture && keyboardFocus && surface != nil && seat != nil && inhibitManager != nil
        if wantInhibitor, inhibitor == nil, let inhibitManager, let surface, let seat {
            inhibitor = zwp_keyboard_shortcuts_inhibit_manager_v1_inhibit_shortcuts(inhibitManager, surface, seat)
        } else if !wantInhibitor, let i = inhibitor {
            zwp_keyboard_shortcuts_inhibitor_v1_destroy(i)
            inhibitor = nil
        }
        applyCursor()
    }

    private func dropLock() {
        if let l = lockedPointer {
            zwp_locked_pointer_v1_destroy(l)
            lockedPointer = nil
            onEvent(.pointerLocked(false))
        }
        if let r = relativePointer {
            zwp_relative_pointer_v1_destroy(r)
            relativePointer = nil
        }
    }

    private func dropKeyboard() {
        if keyboardFocus { keyboardFocus = false; onEvent(.keyboardLeave) }
        if let k = keyboard { boundSeatVersion >= 3 ? wl_keyboard_release(k) : wl_proxy_destroy(k) }
        keyboard = nil
        updateCapture()
    }

    private func dropPointer() {
        dropLock()
        if pointerFocus { pointerFocus = false; onEvent(.pointerLeave) }
        if let p = pointer { boundSeatVersion >= 3 ? wl_pointer_release(p) : wl_proxy_destroy(p) }
        pointer = nil
    }

    /// Before wl_pointer v5 there is no `frame`: every event is a frame of its own.
    private func frameIfUnframed() {
        if boundSeatVersion < 5 { onEvent(.pointerFrame) }
    }

    /// Whether focus on `s` is the kiosk's: the surface set or learnt (the first one entered).
    private func ours(_ s: OpaquePointer?) -> Bool {
        if surface == nil, let s { surface = s }
        return s == surface
    }

    // MARK: - Listeners

    private static let registryListener = SeatListener(wl_registry_listener(
        global: { data, registry, name, interface, version in
            guard let registry, let interface else { return }
            seatObject(data).bind(registry: registry, name: name, interface: String(cString: interface), version: version)
        },
        global_remove: { data, _, name in seatObject(data).globalRemoved(name: name) }))

    private static let seatListener = SeatListener(wl_seat_listener(
        capabilities: { data, _, caps in
            let me = seatObject(data)
            guard let seat = me.seat else { return }
            let hasKeyboard = caps & WL_SEAT_CAPABILITY_KEYBOARD.rawValue != 0
            let hasPointer = caps & WL_SEAT_CAPABILITY_POINTER.rawValue != 0
            if hasKeyboard, me.keyboard == nil {
                me.keyboard = wl_seat_get_keyboard(seat)
                wl_keyboard_add_listener(me.keyboard, WaylandSeat.keyboardListener.pointer, data)
            } else if !hasKeyboard, me.keyboard != nil {
                me.dropKeyboard()   // an inert keyboard: its keys are released
            }
            if hasPointer, me.pointer == nil {
                me.pointer = wl_seat_get_pointer(seat)
                wl_pointer_add_listener(me.pointer, WaylandSeat.pointerListener.pointer, data)
                me.updateCapture()
            } else if !hasPointer, me.pointer != nil {
                me.dropPointer()
            }
        },
        name: { _, _, _ in }))

    private static let keyboardListener = SeatListener(wl_keyboard_listener(
        keymap: { _, _, _, fd, _ in close(fd) },   // keys go by position (evdev codes); the keymap is not needed
        enter: { data, _, _, surface, keys in
            let me = seatObject(data)
            guard me.ours(surface) else { return }
            var down: [UInt32] = []
            if let keys, let base = keys.pointee.data {
                let n = keys.pointee.size / MemoryLayout<UInt32>.stride
                let codes = base.bindMemory(to: UInt32.self, capacity: n)
                for i in 0..<n { down.append(codes[i]) }
            }
            me.keyboardFocus = true
            me.onEvent(.keyboardEnter(keys: down))
            me.updateCapture()
        },
        leave: { data, _, _, surface in
            let me = seatObject(data)
            guard me.keyboardFocus, me.ours(surface) else { return }
            me.keyboardFocus = false
            me.onEvent(.keyboardLeave)
            me.updateCapture()
        },
        key: { data, _, _, _, key, state in
            let me = seatObject(data)
            guard me.keyboardFocus else { return }
            me.onEvent(.key(code: key, state: state))
        },
        modifiers: { _, _, _, _, _, _, _ in },   // modifiers arrive as key edges
        repeat_info: { _, _, _, _ in }))         // the host repeats held keys; we never do

    private static let pointerListener = SeatListener(wl_pointer_listener(
        enter: { data, pointer, serial, surface, x, y in
            let me = seatObject(data)
            guard me.ours(surface) else { return }
            me.enterSerial = serial
            me.pointerFocus = true   // (updateCapture sets the cursor: none for the shell, which draws its own)
            me.onEvent(.pointerEnter(x: wl_fixed_to_double(x), y: wl_fixed_to_double(y)))
            me.frameIfUnframed()
            me.updateCapture()
        },
        leave: { data, _, _, surface in
            let me = seatObject(data)
            guard me.pointerFocus, me.ours(surface) else { return }
            me.pointerFocus = false
            me.onEvent(.pointerLeave)
        },
        motion: { data, _, _, x, y in
            let me = seatObject(data)
            guard me.pointerFocus else { return }
            me.onEvent(.pointerMotion(x: wl_fixed_to_double(x), y: wl_fixed_to_double(y)))
            me.frameIfUnframed()
        },
        button: { data, _, _, _, button, state in
            let me = seatObject(data)
            guard me.pointerFocus else { return }
            me.onEvent(.button(code: button, pressed: state == WL_POINTER_BUTTON_STATE_PRESSED.rawValue))
            me.frameIfUnframed()
        },
        axis: { data, _, _, axis, value in
            let me = seatObject(data)
            guard me.pointerFocus else { return }
            me.onEvent(.axis(horizontal: axis == WL_POINTER_AXIS_HORIZONTAL_SCROLL.rawValue, value: wl_fixed_to_double(value)))
            me.frameIfUnframed()
        },
        frame: { data, _ in
            let me = seatObject(data)
            guard me.pointerFocus else { return }
            me.onEvent(.pointerFrame)
        },
        axis_source: { _, _, _ in },
        axis_stop: { _, _, _, _ in },
        axis_discrete: { data, _, axis, discrete in
            let me = seatObject(data)
            guard me.pointerFocus else { return }
            me.onEvent(.axisDiscrete(horizontal: axis == WL_POINTER_AXIS_HORIZONTAL_SCROLL.rawValue, steps: discrete))
        },
        axis_value120: { data, _, axis, value120 in
            let me = seatObject(data)
            guard me.pointerFocus else { return }
            me.onEvent(.axisValue120(horizontal: axis == WL_POINTER_AXIS_HORIZONTAL_SCROLL.rawValue, value120: value120))
        }))

    private static let relativeListener = SeatListener(zwp_relative_pointer_v1_listener(
        relative_motion: { data, _, _, _, _, _, dxUnaccel, dyUnaccel in
            let me = seatObject(data)
            guard me.pointerFocus else { return }
            // One relative event is a frame of its own (it belongs to no wl_pointer frame).
            me.onEvent(.relativeMotion(dx: wl_fixed_to_double(dxUnaccel), dy: wl_fixed_to_double(dyUnaccel)))
        }))

    private static let lockedListener = SeatListener(zwp_locked_pointer_v1_listener(
        locked: { data, _ in seatObject(data).onEvent(.pointerLocked(true)) },
        unlocked: { data, _ in seatObject(data).onEvent(.pointerLocked(false)) }))
}

/// A listener struct at a stable address for the process's life (libwayland keeps the pointer
/// given to `*_add_listener`; it must never be a temporary).
private struct SeatListener<T>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<T>
    init(_ value: T) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: value)
    }
}

/// The seat as a listener's `data` (unretained: the seat outlives its proxies).
private func seatContext(_ seat: WaylandSeat) -> UnsafeMutableRawPointer { Unmanaged.passUnretained(seat).toOpaque() }

private func seatObject(_ data: UnsafeMutableRawPointer?) -> WaylandSeat {
    Unmanaged<WaylandSeat>.fromOpaque(data!).takeUnretainedValue()
}
