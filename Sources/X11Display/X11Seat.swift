#if canImport(Glibc)
import Glibc
#endif
internal import CXCB
public import Input

/// The X server's keyboard and mouse for the kiosk's window, through XInput 2, as the same
/// `SeatEvent`s the Wayland backend hears (the X twin of `WaylandSeat`): the runner hands them to
/// `InputService.seat(_:)`, whose `SeatInput` maps them (evdev→VK, what the host holds, the escape
/// chord, the shell's navigation).
///
/// - Keys: XI2 KeyPress/KeyRelease on our window while it has keyboard focus, X keycode − 8 as the
///   evdev code; the server's autorepeat (XIKeyRepeat) is dropped — the host repeats held keys.
///   FocusIn → `.keyboardEnter` with the keys already down (QueryKeymap); FocusOut → `.keyboardLeave`
///   (also when focus goes to another client's grab). Only the window's own input focus counts
///   (SetInputFocus by a window manager or the screen), not PointerRoot's focus-follows-pointer.
/// - Pointer: Enter/Leave, Motion at window-local `event_x`/`event_y` (window pixels), buttons
///   1/2/3/8/9 as `BTN_*`, the wheel buttons 4–7 as one `axisValue120` of ±120 per press; one
///   `.pointerFrame` after each pointer event. A pointer event on our window before any Enter
///   (the pointer was inside when the seat was made, and no crossing happened since) enters first.
/// - Streaming (`setCapture(true)`) with keyboard focus: the client pointer (XI2, async, every
///   pointer event to our window) and its paired keyboard (async, owner events) are grabbed, so the
///   pointer and the window manager's shortcuts are ours; XI_RawMotion is selected on the root and
///   `.pointerLocked(true)` is sent. From then on RawMotion becomes `.relativeMotion` and absolute
///   motion is not forwarded (the host gets relative counts only, as under a Wayland pointer
///   lock): a relative device's raw (unaccelerated) x/y valuators are the motion; an absolute
///   device's (a tablet, a touchscreen, a VM's tablet, Xwayland's pointer) are places, and the
///   motion is the change since its previous event, its range spanning the screen
///   (`RawMotionReader`; which valuators, and their modes, XIQueryDevice says once per device and
///   grab). The pointer is not confined or warped: raw motion keeps coming at the screen's edge.
/// - Wheel: each button 4–7 press counts, also those XI 2.1 flags as emulated from a smooth-scroll
///   valuator (the valuators themselves are not read), so hi-res wheels arrive as whole detents.
///
/// Degrades, never fails: a grab the server refuses (another client holds it, the window is not
/// viewable) leaves the pointer absolute or the shortcuts with the window manager; each is one line
/// in `notices`.
///
/// Made by the screen after it checked XInput ≥ 2.2 on its connection. Thread contract: every call
/// — `handle`, `setCapture`, `setGeometry`, `destroy` — on the thread that runs the screen's event
/// loop; `onEvent` is called there, and must not block. `destroy()` before the screen disconnects
/// (deinit does not touch the connection).
public final class X11Seat {
    /// Where every seat event goes.
    public var onEvent: (SeatEvent) -> Void
    /// One line per thing that degrades (a grab refused …), each once.
    public var notices: [String] { noticeLines }

    /// The screen's `xcb_connection_t *`.
    private let connection: OpaquePointer
    private let window: xcb_window_t
    private let root: xcb_window_t
    private let opcode: UInt8
    private let isXwayland: Bool

    private var noticeLines: [String] = []
    /// Streaming: the grabs and raw motion are wanted while the keyboard is ours.
    private var capture = false
    private(set) var keyboardFocus = false
    private(set) var pointerFocus = false
    /// The client pointer and its paired keyboard (XI device ids), learnt at the first grab.
    private var devices: (pointer: UInt16, keyboard: UInt16)?
    private var pointerGrabbed = false, keyboardGrabbed = false
    /// A grab was asked for since capture was last wanted (a refusal is not asked again each pass).
    private var pointerTried = false, keyboardTried = false
    /// The box draws the host's pointer and the host has not captured it (desktop mode): the
    /// pointer stays free (absolute) while streaming; only the keyboard is grabbed.
    private var pointerFree = false
    /// Pointer grabbed and raw motion selected: relative motion is forwarded, absolute is not.
    private(set) var locked = false
    private var mayGrabAtom: xcb_atom_t?
    /// Per source device (XI id), its x/y valuators as XIQueryDevice described them this grab.
    private var valuators: [UInt16: PointerValuators] = [:]
    private var rawMotion = RawMotionReader()
    /// The root window's size in pixels, read at each grab (an absolute device's range spans it).
    private var rootSize = (width: 0, height: 0)
    private var destroyed = false

    /// The XI2 events selected on our window (bit n = XI event type n).
    static let windowEvents: UInt32 = XCB_INPUT_XI_EVENT_MASK_KEY_PRESS.rawValue | XCB_INPUT_XI_EVENT_MASK_KEY_RELEASE.rawValue
        | XCB_INPUT_XI_EVENT_MASK_BUTTON_PRESS.rawValue | XCB_INPUT_XI_EVENT_MASK_BUTTON_RELEASE.rawValue
        | XCB_INPUT_XI_EVENT_MASK_MOTION.rawValue | XCB_INPUT_XI_EVENT_MASK_ENTER.rawValue
        | XCB_INPUT_XI_EVENT_MASK_LEAVE.rawValue | XCB_INPUT_XI_EVENT_MASK_FOCUS_IN.rawValue
        | XCB_INPUT_XI_EVENT_MASK_FOCUS_OUT.rawValue
    static let rawMotionEvents: UInt32 = XCB_INPUT_XI_EVENT_MASK_RAW_MOTION.rawValue

    /// - Parameters:
    ///   - connection: the screen's `xcb_connection_t *`.
    ///   - window: the kiosk's window; `root`: its root.
    ///   - xinputOpcode: XInputExtension's major opcode (XI ≥ 2.2 checked by the caller).
    ///   - isXwayland: the server is Xwayland (the keyboard grab first asks the compositor).
    /// Selects the window's XI2 events for all master devices. When the window already has the
    /// focus or the pointer, the matching enter is sent from here.
    public init(connection: OpaquePointer, window: UInt32, root: UInt32, xinputOpcode: UInt8, isXwayland: Bool,
                onEvent: @escaping (SeatEvent) -> Void) {
        self.connection = connection
        self.window = window
        self.root = root
        self.opcode = xinputOpcode
        self.isXwayland = isXwayland
        self.onEvent = onEvent
        select(on: window, mask: Self.windowEvents)
        // Focus and pointer as they are now: their crossings happened before the selection.
        if let reply = xcb_get_input_focus_reply(connection, xcb_get_input_focus(connection), nil) {
            let focus = reply.pointee.focus
            free(reply)
            if focus == window {
                keyboardFocus = true
                onEvent(.keyboardEnter(keys: keysDown()))
            }
        }
        if let p = pointerInWindow() {
            pointerFocus = true
            onEvent(.pointerEnter(x: p.x, y: p.y))
            onEvent(.pointerFrame)
        }
        xcb_flush(connection)
    }

    // MARK: - The screen's view

    /// One XI2 event (an `XCB_GE_GENERIC` whose `extension` is XInput's opcode; others are ignored).
    func handle(_ event: UnsafePointer<xcb_ge_generic_event_t>) {
        guard !destroyed, event.pointee.extension == opcode else { return }
        let raw = UnsafeRawPointer(event)
        switch UInt32(event.pointee.event_type) {
        case UInt32(XCB_INPUT_KEY_PRESS), UInt32(XCB_INPUT_KEY_RELEASE):
            let e = raw.assumingMemoryBound(to: xcb_input_key_press_event_t.self).pointee
            let pressed = UInt32(e.event_type) == UInt32(XCB_INPUT_KEY_PRESS)
            guard e.event == window, keyboardFocus,
                  !(pressed && XInputMapping.isRepeat(flags: e.flags)),
                  let code = XInputMapping.evdevCode(xKeycode: e.detail) else { return }
            onEvent(.key(code: code, state: pressed ? 1 : 0))
        case UInt32(XCB_INPUT_BUTTON_PRESS), UInt32(XCB_INPUT_BUTTON_RELEASE):
            let e = raw.assumingMemoryBound(to: xcb_input_button_press_event_t.self).pointee
            guard e.event == window else { return }
            let events = XInputMapping.buttonEvents(detail: e.detail,
                                                    pressed: UInt32(e.event_type) == UInt32(XCB_INPUT_BUTTON_PRESS))
            guard !events.isEmpty else { return }
            enterIfOutside(e.event_x, e.event_y)
            for s in events { onEvent(s) }
            onEvent(.pointerFrame)
        case UInt32(XCB_INPUT_MOTION):
            let e = raw.assumingMemoryBound(to: xcb_input_motion_event_t.self).pointee
            guard e.event == window else { return }
            if enterIfOutside(e.event_x, e.event_y) || locked { return }
            onEvent(.pointerMotion(x: XInputMapping.double(fp1616: e.event_x), y: XInputMapping.double(fp1616: e.event_y)))
            onEvent(.pointerFrame)
        case UInt32(XCB_INPUT_ENTER):
            let e = raw.assumingMemoryBound(to: xcb_input_enter_event_t.self).pointee
            guard e.event == window, XInputMapping.crossingCounts(detail: e.detail) else { return }
            let x = XInputMapping.double(fp1616: e.event_x), y = XInputMapping.double(fp1616: e.event_y)
            if pointerFocus {
                guard !locked else { return }
                onEvent(.pointerMotion(x: x, y: y))   // back from a window inside ours: still ours
            } else {
                pointerFocus = true
                onEvent(.pointerEnter(x: x, y: y))
            }
            onEvent(.pointerFrame)
        case UInt32(XCB_INPUT_LEAVE):
            let e = raw.assumingMemoryBound(to: xcb_input_leave_event_t.self).pointee
            guard e.event == window, pointerFocus, XInputMapping.crossingCounts(detail: e.detail) else { return }
            pointerFocus = false
            onEvent(.pointerLeave)
        case UInt32(XCB_INPUT_FOCUS_IN):
            let e = raw.assumingMemoryBound(to: xcb_input_focus_in_event_t.self).pointee
            guard e.event == window, !keyboardFocus, XInputMapping.focusCounts(detail: e.detail) else { return }
            keyboardFocus = true
            onEvent(.keyboardEnter(keys: keysDown()))
            updateCapture()
        case UInt32(XCB_INPUT_FOCUS_OUT):
            let e = raw.assumingMemoryBound(to: xcb_input_focus_out_event_t.self).pointee
            guard e.event == window, keyboardFocus, XInputMapping.focusCounts(detail: e.detail) else { return }
            keyboardFocus = false
            onEvent(.keyboardLeave)
            updateCapture()
        case UInt32(XCB_INPUT_RAW_MOTION):
            guard locked, pointerFocus else { return }
            let e = raw.assumingMemoryBound(to: xcb_input_raw_motion_event_t.self)
            let words = Int(xcb_input_raw_button_press_valuator_mask_length(e))
            let count = Int(xcb_input_raw_button_press_axisvalues_raw_length(e))
            guard let maskBase = xcb_input_raw_button_press_valuator_mask(e),
                  let valueBase = xcb_input_raw_button_press_axisvalues(e),
                  let rawBase = xcb_input_raw_button_press_axisvalues_raw(e) else { return }
            let mask = UnsafeBufferPointer(start: maskBase, count: words)
            func doubles(_ base: UnsafePointer<xcb_input_fp3232_t>) -> [Double] {
                UnsafeBufferPointer(start: base, count: count).map { XInputMapping.double(integral: $0.integral, frac: $0.frac) }
            }
            let source = e.pointee.sourceid
            let axes = valuators[source] ?? describe(source)
            guard let d = rawMotion.motion(source: source, axes: axes, mask: mask, values: doubles(valueBase),
                                           rawValues: doubles(rawBase), screenWidth: rootSize.width,
                                           screenHeight: rootSize.height),
                  d.dx != 0 || d.dy != 0 else { return }
            onEvent(.relativeMotion(dx: d.dx, dy: d.dy))
        default:
            break
        }
    }

    /// Streaming (true) or not: while streaming with keyboard focus the pointer and keyboard are
    /// grabbed and motion is relative (raw); otherwise both are let go and the pointer is absolute.
    public func setCapture(_ on: Bool) {
        guard on != capture, !destroyed else { return }
        capture = on
        updateCapture()
    }

    /// Desktop mode (true): the box draws the host's pointer as the window's cursor and the host
    /// has not captured it, so the pointer is not grabbed and its absolute motion goes to the host
    /// (`.pointerMotion`); false: grabbed with relative motion while streaming, as before.
    public func setPointerFree(_ free: Bool) {
        guard free != pointerFree, !destroyed else { return }
        pointerFree = free
        updateCapture()
    }

    /// Where the stream's picture is on the window and the video's size (nil: no stream on glass).
    public func setVideoArea(_ area: SeatVideoArea?) {
        onEvent(.videoArea(area))
    }

    /// The window's size and the mode's (panel's) pixel size: absolute positions are scaled from
    /// one to the other.
    public func setGeometry(surfaceWidth: Int, surfaceHeight: Int, panelWidth: Int, panelHeight: Int) {
        onEvent(.geometry(surfaceWidth: surfaceWidth, surfaceHeight: surfaceHeight,
                          panelWidth: panelWidth, panelHeight: panelHeight))
    }

    /// Lets go: the leaves go out first (the host releases everything), then the grabs and every
    /// selection are dropped. Idempotent. Does not disconnect.
    public func destroy() {
        guard !destroyed else { return }
        if keyboardFocus { keyboardFocus = false; onEvent(.keyboardLeave) }
        capture = false
        updateCapture()
        if pointerFocus { pointerFocus = false; onEvent(.pointerLeave) }
        select(on: window, mask: 0)
        xcb_flush(connection)
        destroyed = true
    }

    // MARK: - Grabs and raw motion

    /// Grabs or ungrabs to match `capture`, `pointerFree` and the keyboard focus: the keyboard
    /// while streaming with focus, the pointer too unless the box draws the host's free pointer.
    private func updateCapture() {
        let wantKeyboard = capture && keyboardFocus && !destroyed
        let wantPointer = wantKeyboard && !pointerFree
        if wantKeyboard, !keyboardGrabbed, !keyboardTried { grabKeyboard() }
        if wantPointer, !pointerGrabbed, !pointerTried { grabPointer() }
        if !wantPointer { ungrabPointer() }
        if !wantKeyboard { ungrabKeyboard() }
        xcb_flush(connection)
    }

    private func grabKeyboard() {
        keyboardTried = true
        guard let devices = masterDevices() else { return }
        if isXwayland { askXwaylandToAllowKeyboardGrab() }
        let kStatus = grab(devices.keyboard, ownerEvents: true)
        keyboardGrabbed = kStatus == 0
        if kStatus != 0 {
            notice("the X server refused the keyboard grab (\(Self.statusText(kStatus))): the window manager keeps its shortcuts while streaming")
        }
    }

    private func grabPointer() {
        pointerTried = true
        guard let devices = masterDevices() else { return }
        // The pointer without owner events: every pointer event is reported to our window. XI ≥ 2.1
        // delivers raw events to the root's selections whatever the grab, and an owner-events grab
        // delivers them once more up the window tree to that same selection (xserver
        // DeliverGrabbedEvent → DeliverDeviceEvents): each RawMotion would arrive twice. For the
        // same reason raw motion is not in the grab's mask.
        let pStatus = grab(devices.pointer, ownerEvents: false)
        pointerGrabbed = pStatus == 0
        guard pointerGrabbed else {
            notice("the X server refused the pointer grab (\(Self.statusText(pStatus))): absolute pointer while streaming, no relative motion")
            return
        }
        valuators.removeAll()
        rawMotion.reset()
        if let g = xcb_get_geometry_reply(connection, xcb_get_geometry(connection, root), nil) {
            rootSize = (Int(g.pointee.width), Int(g.pointee.height))
            free(g)
        }
        select(on: root, mask: Self.rawMotionEvents)
        locked = true
        if !pointerFocus, let p = pointerInWindow() {
            pointerFocus = true
            onEvent(.pointerEnter(x: p.x, y: p.y))
            onEvent(.pointerFrame)
        }
        onEvent(.pointerLocked(true))
    }

    private func ungrabPointer() {
        pointerTried = false
        guard pointerGrabbed, let devices else { return }
        xcb_input_xi_ungrab_device(connection, 0, devices.pointer)
        pointerGrabbed = false
        if locked {
            select(on: root, mask: 0)
            locked = false
            onEvent(.pointerLocked(false))
            // Free in desktop mode: the host hears where the pointer is now (it moved while grabbed).
            if capture, pointerFree, pointerFocus, let p = pointerInWindow() {
                onEvent(.pointerMotion(x: p.x, y: p.y))
                onEvent(.pointerFrame)
            }
        }
    }

    private func ungrabKeyboard() {
        keyboardTried = false
        guard keyboardGrabbed, let devices else { return }
        xcb_input_xi_ungrab_device(connection, 0, devices.keyboard)
        keyboardGrabbed = false
    }

    /// The client pointer and its keyboard, learnt once (nil, with a notice, when XInput names none).
    private func masterDevices() -> (pointer: UInt16, keyboard: UInt16)? {
        if let devices { return devices }
        guard let found = clientDevices() else {
            notice("XInput names no master pointer and keyboard: no grab; absolute pointer while streaming")
            return nil
        }
        devices = found
        return found
    }

    /// XIGrabDevice of `device` on our window for the window's events, both modes async. - Returns:
    /// the grab's status (GrabSuccess 0, AlreadyGrabbed 1, GrabInvalidTime 2, GrabNotViewable 3,
    /// GrabFrozen 4); 255 when the request failed (an X error).
    private func grab(_ device: UInt16, ownerEvents: Bool) -> UInt8 {
        let owner = ownerEvents ? XCB_INPUT_GRAB_OWNER_OWNER : XCB_INPUT_GRAB_OWNER_NO_OWNER
        let cookie = withUnsafePointer(to: Self.windowEvents) {
            xcb_input_xi_grab_device(connection, window, 0, 0, device,
                                     UInt8(XCB_INPUT_GRAB_MODE_22_ASYNC.rawValue), UInt8(XCB_INPUT_GRAB_MODE_22_ASYNC.rawValue),
                                     UInt8(owner.rawValue), 1, $0)
        }
        guard let r = xcb_input_xi_grab_device_reply(connection, cookie, nil) else { return 255 }
        defer { free(r) }
        return r.pointee.status
    }

    static func statusText(_ status: UInt8) -> String {
        switch status {
        case 1: "AlreadyGrabbed: another client holds it"
        case 2: "GrabInvalidTime"
        case 3: "GrabNotViewable: the window is not mapped"
        case 4: "GrabFrozen: another client's grab froze it"
        default: "an X error"
        }
    }

    /// The client pointer (XIGetClientPointer; the first master pointer when none is set) and the
    /// master keyboard paired with it (its `attachment`).
    private func clientDevices() -> (pointer: UInt16, keyboard: UInt16)? {
        var wanted: UInt16 = 0
        if let r = xcb_input_xi_get_client_pointer_reply(connection, xcb_input_xi_get_client_pointer(connection, window), nil) {
            if r.pointee.set != 0 { wanted = r.pointee.deviceid }
            free(r)
        }
        guard let r = xcb_input_xi_query_device_reply(
            connection, xcb_input_xi_query_device(connection, UInt16(XCB_INPUT_DEVICE_ALL_MASTER.rawValue)), nil) else { return nil }
        defer { free(r) }
        var it = xcb_input_xi_query_device_infos_iterator(r)
        while it.rem > 0 {
            let info = it.data.pointee
            if info.type == UInt16(XCB_INPUT_DEVICE_TYPE_MASTER_POINTER.rawValue), wanted == 0 || info.deviceid == wanted {
                return (info.deviceid, info.attachment)
            }
            xcb_input_xi_device_info_next(&it)
        }
        return nil
    }

    /// Device `id`'s x/y valuators (XIQueryDevice: its valuator classes and their labels), kept for
    /// this grab. A device the server does not describe reads as relative valuators 0 and 1.
    private func describe(_ id: UInt16) -> PointerValuators {
        var found: [PointerValuators.Valuator] = []
        if let r = xcb_input_xi_query_device_reply(connection, xcb_input_xi_query_device(connection, id), nil) {
            defer { free(r) }
            let devices = xcb_input_xi_query_device_infos_iterator(r)
            if devices.rem > 0 {
                var classes = xcb_input_xi_device_info_classes_iterator(devices.data)
                while classes.rem > 0 {
                    if classes.data.pointee.type == UInt16(XCB_INPUT_DEVICE_CLASS_TYPE_VALUATOR.rawValue) {
                        let v = UnsafeRawPointer(classes.data).assumingMemoryBound(to: xcb_input_valuator_class_t.self).pointee
                        found.append(PointerValuators.Valuator(
                            number: Int(v.number), label: atomName(v.label), absolute: v.mode == UInt8(XCB_INPUT_VALUATOR_MODE_ABSOLUTE.rawValue),
                            minimum: XInputMapping.double(integral: v.min.integral, frac: v.min.frac),
                            maximum: XInputMapping.double(integral: v.max.integral, frac: v.max.frac)))
                    }
                    xcb_input_device_class_next(&classes)
                }
            }
        }
        let axes = found.isEmpty ? PointerValuators.relative : PointerValuators(valuators: found)
        valuators[id] = axes
        return axes
    }

    private func atomName(_ atom: xcb_atom_t) -> String? {
        guard atom != 0, let r = xcb_get_atom_name_reply(connection, xcb_get_atom_name(connection, atom), nil) else { return nil }
        defer { free(r) }
        let n = Int(xcb_get_atom_name_name_length(r))
        guard let p = xcb_get_atom_name_name(r) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: p, count: n), as: UTF8.self)
    }

    /// `_XWAYLAND_MAY_GRAB_KEYBOARD` to the root for our window (data[0] = 1): Xwayland lets an X
    /// keyboard grab take the compositor's shortcuts only for windows that sent it (mutter also
    /// wants its xwayland-allow-grabs setting). Harmless where nobody listens.
    private func askXwaylandToAllowKeyboardGrab() {
        if mayGrabAtom == nil {
            let name = "_XWAYLAND_MAY_GRAB_KEYBOARD"
            let cookie = xcb_intern_atom(connection, 0, UInt16(name.utf8.count), name)
            if let r = xcb_intern_atom_reply(connection, cookie, nil) {
                mayGrabAtom = r.pointee.atom
                free(r)
            }
        }
        guard let atom = mayGrabAtom, atom != 0 else { return }
        var message = xcb_client_message_event_t()
        message.response_type = UInt8(XCB_CLIENT_MESSAGE)
        message.format = 32
        message.window = window
        message.type = atom
        message.data.data32.0 = 1
        let mask = XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue | XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT.rawValue
        withUnsafeBytes(of: &message) { bytes in
            _ = xcb_send_event(connection, 0, root, mask, bytes.baseAddress!.assumingMemoryBound(to: CChar.self))
        }
    }

    // MARK: - Helpers

    /// XISelectEvents on `w` for all master devices: `mask` (bit n = XI event type n; 0 deselects).
    private func select(on w: xcb_window_t, mask: UInt32) {
        // One xcb_input_event_mask_t (deviceid, mask_len = 1) followed by its one mask word.
        let size = MemoryLayout<xcb_input_event_mask_t>.size + MemoryLayout<UInt32>.size
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4)
        defer { buffer.deallocate() }
        buffer.storeBytes(of: xcb_input_event_mask_t(deviceid: UInt16(XCB_INPUT_DEVICE_ALL_MASTER.rawValue), mask_len: 1),
                          as: xcb_input_event_mask_t.self)
        buffer.storeBytes(of: mask, toByteOffset: MemoryLayout<xcb_input_event_mask_t>.size, as: UInt32.self)
        xcb_input_xi_select_events(connection, w, 1, buffer.assumingMemoryBound(to: xcb_input_event_mask_t.self))
    }

    /// The evdev codes of the keys down now (core QueryKeymap: the client's keyboard).
    private func keysDown() -> [UInt32] {
        guard let r = xcb_query_keymap_reply(connection, xcb_query_keymap(connection), nil) else { return [] }
        defer { free(r) }
        return withUnsafeBytes(of: r.pointee.keys) { XInputMapping.keysDown(keymap: $0) }
    }

    /// Where the pointer is in our window (window pixels), nil when it is not over it: QueryPointer
    /// from the root down the windows that contain it, until ours.
    private func pointerInWindow() -> (x: Double, y: Double)? {
        var w = root
        for _ in 0..<16 {
            guard let r = xcb_query_pointer_reply(connection, xcb_query_pointer(connection, w), nil) else { return nil }
            let reply = r.pointee
            free(r)
            guard reply.same_screen != 0 else { return nil }
            if w == window { return (Double(reply.win_x), Double(reply.win_y)) }
            guard reply.child != 0 else { return nil }
            w = reply.child
        }
        return nil
    }

    /// A pointer event on our window without an Enter first enters at its position (FP16.16).
    /// - Returns: whether it entered.
    @discardableResult
    private func enterIfOutside(_ x: Int32, _ y: Int32) -> Bool {
        guard !pointerFocus else { return false }
        pointerFocus = true
        onEvent(.pointerEnter(x: XInputMapping.double(fp1616: x), y: XInputMapping.double(fp1616: y)))
        onEvent(.pointerFrame)
        return true
    }

    private func notice(_ line: String) {
        if !noticeLines.contains(line) { noticeLines.append(line) }
    }
}
