import Foundation
import Testing
import CXCB
import Input
import PunktfunkWire
@testable import X11Display
#if canImport(Glibc)
import Glibc
#endif

/// `X11Seat` against a real X server: an Xvfb per test, a window made here with xcb (no window
/// manager: focus is set with SetInputFocus), input injected with XTEST on the same connection,
/// and the seat events asserted exactly.
@Suite(.serialized) struct X11SeatLiveTests {
    static let canRun = XvfbServer.unavailableReason == nil
    static let why = Comment(rawValue: XvfbServer.unavailableReason ?? "")

    // evdev codes (linux/input-event-codes.h)
    static let keyA: UInt32 = 30, keyB: UInt32 = 48, keyH: UInt32 = 35, keyI: UInt32 = 23
    static let leftShift: UInt32 = 42, leftCtrl: UInt32 = 29, up: UInt32 = 103, left: UInt32 = 105
    static let btnLeft: UInt32 = 0x110, btnRight: UInt32 = 0x111

    /// A 640×480 server with the kiosk's window over all of it, focused, the pointer at (100, 50),
    /// and a seat on it. The seat's first events (the enters: focus and pointer were there before
    /// it) are checked here.
    static func rig() throws -> (x: LiveX, window: UInt32, seat: X11Seat, rec: Recorder) {
        let x = try LiveX()
        let w = try x.makeWindow(x: 0, y: 0, width: 640, height: 480)
        x.focus(w)
        x.moveTo(100, 50)
        x.sync()
        let rec = Recorder()
        let seat = X11Seat(connection: x.c, window: w, root: x.root, xinputOpcode: x.xiOpcode, isXwayland: false) {
            rec.events.append($0)
        }
        #expect(rec.take() == [.keyboardEnter(keys: []), .pointerEnter(x: 100, y: 50), .pointerFrame])
        #expect(seat.notices == [])
        return (x, w, seat, rec)
    }

    /// The product's mapping of seat events on the host route, into a recording sink.
    fileprivate static func hostMapping() -> (Sink, InputMapper, SeatInput) {
        let sink = Sink()
        let mapper = InputMapper(sink: sink)
        mapper.setPolicy(InputPolicy(normalisedScroll: false))
        let navigation = NavigationMapper()
        navigation.setRoute(.host)
        return (sink, mapper, SeatInput(mapper: mapper, navigation: navigation))
    }

    @Test(.enabled(if: canRun, why)) func keysArriveInOrderAsEvdevCodes() throws {
        let (x, _, seat, rec) = try Self.rig()
        defer { seat.destroy(); x.close() }
        let script: [(UInt32, Bool)] = [(Self.leftShift, true), (Self.keyH, true), (Self.keyH, false), (Self.leftShift, false),
                                        (Self.keyI, true), (Self.keyI, false), (Self.leftCtrl, true), (Self.left, true),
                                        (Self.left, false), (Self.leftCtrl, false), (Self.up, true), (Self.up, false)]
        for (code, down) in script { x.key(code, down: down) }
        x.pump(seat) { rec.events.count >= script.count }
        #expect(rec.take() == script.map { .key(code: $0.0, state: $0.1 ? 1 : 0) })
    }

    @Test(.enabled(if: canRun, why)) func buttonsAndWheelAreFramed() throws {
        let (x, _, seat, rec) = try Self.rig()
        defer { seat.destroy(); x.close() }
        for b: UInt8 in [1, 3, 4, 5, 6, 7] { x.button(b, down: true); x.button(b, down: false) }
        let want: [SeatEvent] = [
            .button(code: Self.btnLeft, pressed: true), .pointerFrame, .button(code: Self.btnLeft, pressed: false), .pointerFrame,
            .button(code: Self.btnRight, pressed: true), .pointerFrame, .button(code: Self.btnRight, pressed: false), .pointerFrame,
            .axisValue120(horizontal: false, value120: -120), .pointerFrame,
            .axisValue120(horizontal: false, value120: 120), .pointerFrame,
            .axisValue120(horizontal: true, value120: -120), .pointerFrame,
            .axisValue120(horizontal: true, value120: 120), .pointerFrame,
        ]
        x.pump(seat) { rec.events.count >= want.count }
        #expect(rec.take() == want)
    }

    @Test(.enabled(if: canRun, why)) func absoluteMotionIsWindowLocal() throws {
        let (x, _, seat, rec) = try Self.rig()
        defer { seat.destroy(); x.close() }
        x.moveTo(200, 100)
        x.moveTo(203, 104)
        x.moveBy(-3, 6)
        x.pump(seat) { rec.events.count >= 6 }
        #expect(rec.take() == [.pointerMotion(x: 200, y: 100), .pointerFrame, .pointerMotion(x: 203, y: 104), .pointerFrame,
                               .pointerMotion(x: 200, y: 110), .pointerFrame])
        seat.setGeometry(surfaceWidth: 640, surfaceHeight: 480, panelWidth: 1920, panelHeight: 1080)
        #expect(rec.take() == [.geometry(surfaceWidth: 640, surfaceHeight: 480, panelWidth: 1920, panelHeight: 1080)])
    }

    @Test(.enabled(if: canRun, why)) func captureLocksAndForwardsRawDeltas() throws {
        let (x, _, seat, rec) = try Self.rig()
        defer { seat.destroy(); x.close() }
        seat.setCapture(true)
        #expect(rec.take() == [.pointerLocked(true)])
        #expect(seat.notices == [])
        #expect(x.otherClientGrabStatus() == (pointer: 1, keyboard: 1))   // AlreadyGrabbed: the grabs are ours
        x.moveBy(5, -3)
        x.moveBy(-7, 11)
        x.pump(seat) { rec.events.count >= 2 }
        #expect(rec.take() == [.relativeMotion(dx: 5, dy: -3), .relativeMotion(dx: -7, dy: 11)])
        // Keys and buttons still arrive while grabbed.
        x.key(Self.keyA, down: true); x.key(Self.keyA, down: false)
        x.button(1, down: true); x.button(1, down: false)
        x.pump(seat) { rec.events.count >= 6 }
        #expect(rec.take() == [.key(code: Self.keyA, state: 1), .key(code: Self.keyA, state: 0),
                               .button(code: Self.btnLeft, pressed: true), .pointerFrame,
                               .button(code: Self.btnLeft, pressed: false), .pointerFrame])
        seat.setCapture(false)
        #expect(rec.take() == [.pointerLocked(false)])
        x.moveBy(1, 1)   // absolute again, at 100 + 5 − 7 + 1, 50 − 3 + 11 + 1
        x.pump(seat) { rec.events.count >= 2 }
        #expect(rec.take() == [.pointerMotion(x: 99, y: 59), .pointerFrame])
        // Another client's grabs (mode Grab) take focus and pointer; its disconnect gives them back.
        #expect(x.otherClientGrabStatus() == (pointer: 0, keyboard: 0))
        x.pump(seat) { rec.events.count >= 5 }
        let back = rec.take()
        #expect(Array(back.prefix(2)) == [.pointerLeave, .keyboardLeave])
        #expect(Array(back.dropFirst(2)).sorted { "\($0)" < "\($1)" }
            == [.keyboardEnter(keys: []), .pointerEnter(x: 99, y: 59), .pointerFrame])
    }

    /// Desktop mode (the box draws the host's free pointer): streaming grabs the keyboard only;
    /// the pointer stays absolute, and the host's capture (the hint) grabs it, with raw deltas.
    @Test(.enabled(if: canRun, why)) func desktopModeGrabsTheKeyboardOnlyUntilTheHostCaptures() throws {
        let (x, _, seat, rec) = try Self.rig()
        defer { seat.destroy(); x.close() }
        seat.setPointerFree(true)
        seat.setCapture(true)
        #expect(rec.take() == [])
        x.moveTo(300, 200)
        x.pump(seat) { rec.events.count >= 2 }
        #expect(rec.take() == [.pointerMotion(x: 300, y: 200), .pointerFrame])
        seat.setPointerFree(false)
        #expect(rec.take() == [.pointerLocked(true)])
        x.moveBy(4, -2)
        x.pump(seat) { rec.events.count >= 1 }
        #expect(rec.take() == [.relativeMotion(dx: 4, dy: -2)])
        seat.setPointerFree(true)
        #expect(rec.take() == [.pointerLocked(false), .pointerMotion(x: 304, y: 198), .pointerFrame])
        // Only the keyboard is ours: another client's pointer grab succeeds, its keyboard grab does not.
        let other = try x.secondConnection()
        defer { xcb_disconnect(other) }
        let pointer = xcb_grab_pointer_reply(other, xcb_grab_pointer(other, 0, x.root, 0, UInt8(XCB_GRAB_MODE_ASYNC.rawValue),
                                                                     UInt8(XCB_GRAB_MODE_ASYNC.rawValue), 0, 0, 0), nil)
        let keyboard = xcb_grab_keyboard_reply(other, xcb_grab_keyboard(other, 0, x.root, 0, UInt8(XCB_GRAB_MODE_ASYNC.rawValue),
                                                                        UInt8(XCB_GRAB_MODE_ASYNC.rawValue)), nil)
        defer { free(pointer); free(keyboard) }
        #expect(pointer?.pointee.status == 0 && keyboard?.pointee.status == 1)
    }

    /// With the picture's place known, the host hears the seat's pointer in video pixels through it
    /// (here pillarboxed: a 4:3 video at 160…480 of a 640-wide window).
    @Test(.enabled(if: canRun, why)) func theVideoAreaMapsThePointerOntoTheVideo() throws {
        let (x, _, seat, rec) = try Self.rig()
        defer { seat.destroy(); x.close() }
        let (sink, _, input) = Self.hostMapping()
        seat.onEvent = { input.handle($0); rec.events.append($0) }
        seat.setGeometry(surfaceWidth: 640, surfaceHeight: 480, panelWidth: 640, panelHeight: 480)
        seat.setVideoArea(SeatVideoArea(x: 160, y: 0, width: 320, height: 480, videoWidth: 1024, videoHeight: 768))
        input.handle(.pointerEnter(x: 100, y: 50))   // (the rig's enter came before this mapping)
        _ = rec.take()
        x.moveTo(320, 240)
        x.moveTo(100, 479)
        x.pump(seat) { rec.events.count >= 6 }
        let moves = sink.events.filter { $0.kind == .mouseMoveAbs }
        #expect(moves.suffix(2) == [.mouseMoveAbs(x: 513, y: 384, referenceWidth: 1024, referenceHeight: 768),
                                    .mouseMoveAbs(x: 0, y: 767, referenceWidth: 1024, referenceHeight: 768)])
    }

    @Test(.enabled(if: canRun, why)) func refusedPointerGrabLeavesThePointerAbsolute() throws {
        let (x, _, seat, rec) = try Self.rig()
        defer { seat.destroy(); x.close() }
        let other = try x.secondConnection()
        defer { xcb_disconnect(other) }
        let cookie = xcb_grab_pointer(other, 0, x.root, 0, UInt8(XCB_GRAB_MODE_ASYNC.rawValue), UInt8(XCB_GRAB_MODE_ASYNC.rawValue),
                                      0, 0, 0)
        let status = xcb_grab_pointer_reply(other, cookie, nil).map { r in defer { free(r) }; return r.pointee.status }
        #expect(status == 0)
        x.pump(seat) { rec.events.count >= 1 }
        #expect(rec.take() == [.pointerLeave])   // the other client's grab took the pointer (Leave, mode Grab)
        seat.setCapture(true)
        x.read(seat, for: 0.15)
        #expect(rec.take() == [])
        #expect(seat.notices.count == 1)
        #expect(seat.notices.first?.contains("pointer grab (AlreadyGrabbed") == true)
    }

    @Test(.enabled(if: canRun, why)) func focusLossWhileHoldingAKeyLeavesNothingHeld() throws {
        let (x, w, seat, rec) = try Self.rig()
        defer { seat.destroy(); x.close() }
        let all = Recorder()
        all.events = [.keyboardEnter(keys: []), .pointerEnter(x: 100, y: 50), .pointerFrame]
        let other = try x.makeWindow(x: 600, y: 440, width: 20, height: 20)   // away from the pointer
        x.key(Self.keyA, down: true)
        x.pump(seat) { rec.events.count >= 1 }
        x.focus(other)
        x.pump(seat) { rec.events.count >= 2 }
        x.key(Self.keyA, down: false)            // to the other window
        x.key(Self.keyB, down: true)             // held there, then focus comes back
        x.sync()
        x.focus(w)
        x.pump(seat) { rec.events.count >= 3 }
        x.key(Self.keyB, down: false)
        x.pump(seat) { rec.events.count >= 4 }
        let got = rec.take()
        #expect(got == [.key(code: Self.keyA, state: 1), .keyboardLeave, .keyboardEnter(keys: [Self.keyB]),
                        .key(code: Self.keyB, state: 0)])
        all.events += got

        // Through the input mapping: A went down and came back up on the host; B never went.
        let (sink, mapper, seatInput) = Self.hostMapping()
        for e in all.events { seatInput.handle(e) }
        let keys = sink.events.filter { $0.kind == .keyDown || $0.kind == .keyUp }
        #expect(keys.map { "\($0.kind == .keyDown ? "down" : "up") \($0.code)" } == ["down 65", "up 65"])   // VK_A 0x41
        #expect(mapper.held.isEmpty)
    }

    @Test(.enabled(if: canRun, why)) func destroyAfterAHeldKeyLetsGoOfEverything() throws {
        let (x, _, seat, rec) = try Self.rig()
        defer { x.close() }
        seat.setCapture(true)
        x.key(Self.keyA, down: true)
        x.pump(seat) { rec.events.count >= 2 }
        #expect(rec.take() == [.pointerLocked(true), .key(code: Self.keyA, state: 1)])
        seat.destroy()
        #expect(rec.take() == [.keyboardLeave, .pointerLocked(false), .pointerLeave])
        seat.destroy()
        x.key(Self.keyA, down: false)
        x.moveBy(4, 4)
        x.read(seat, for: 0.15)
        #expect(rec.take() == [])
        #expect(x.otherClientGrabStatus() == (pointer: 0, keyboard: 0))   // the grabs are gone
    }

    @Test(.enabled(if: canRun, why)) func serverAutorepeatIsDropped() throws {
        let (x, _, seat, rec) = try Self.rig()
        defer { seat.destroy(); x.close() }
        x.key(Self.keyA, down: true)
        x.read(seat, for: 1.2)      // Xvfb's default autorepeat: 660 ms delay, 25 Hz
        x.key(Self.keyA, down: false)
        x.pump(seat) { rec.events.count >= 2 }
        if x.repeatsSeen == 0 { try Test.cancel("the server sent no XIKeyRepeat press for a key held 1.2 s through XTEST") }
        #expect(rec.take() == [.key(code: Self.keyA, state: 1), .key(code: Self.keyA, state: 0)])
    }
}

/// The seat's events, in order.
final class Recorder {
    var events: [SeatEvent] = []
    func take() -> [SeatEvent] { defer { events = [] }; return events }
}

private final class Sink: InputSink {
    var events: [InputEvent] = []
    func send(_ event: InputEvent, reliable: Bool) -> Bool { events.append(event); return true }
    func send(_ rich: RichInput) -> Bool { true }
}

/// One xcb connection to a test's own Xvfb: windows, XTEST injection, and the pump that hands
/// XInput's generic events to a seat.
final class LiveX {
    let server: XvfbServer
    let c: OpaquePointer
    let root: xcb_window_t
    let visual: xcb_visualid_t
    let xiOpcode: UInt8
    /// XI2 KeyPress events with XIKeyRepeat seen by the pump.
    private(set) var repeatsSeen = 0
    /// X errors seen by the pump (error_code, major_code), for the failure message.
    private(set) var errors: [(UInt8, UInt8)] = []
    private var mapped: Set<xcb_window_t> = []
    private var closed = false

    init(width: Int = 640, height: Int = 480) throws {
        server = try XvfbServer.start(width: width, height: height)
        guard let c = xcb_connect(server.display, nil), xcb_connection_has_error(c) == 0 else {
            server.stop()
            throw XvfbError("xcb_connect(\(server.display)) failed")
        }
        self.c = c
        let screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data.pointee
        root = screen.root
        visual = screen.root_visual
        func ext(_ name: String) -> xcb_query_extension_reply_t? {
            guard let r = xcb_query_extension_reply(c, xcb_query_extension(c, UInt16(name.utf8.count), name), nil) else { return nil }
            defer { free(r) }
            return r.pointee.present != 0 ? r.pointee : nil
        }
        guard let xi = ext("XInputExtension"), ext("XTEST") != nil else {
            xcb_disconnect(c); server.stop()
            throw XvfbError("Xvfb offers no XInputExtension or no XTEST")
        }
        xiOpcode = xi.major_opcode
        guard let v = xcb_input_xi_query_version_reply(c, xcb_input_xi_query_version(c, 2, 2), nil) else {
            xcb_disconnect(c); server.stop()
            throw XvfbError("XIQueryVersion 2.2 failed")
        }
        let ok = (v.pointee.major_version, v.pointee.minor_version) >= (2, 2)
        free(v)
        guard ok else { xcb_disconnect(c); server.stop(); throw XvfbError("XInput below 2.2") }
    }

    func close() {
        guard !closed else { return }
        closed = true
        xcb_disconnect(c)
        server.stop()
    }

    deinit { close() }

    /// An InputOutput window on the root, mapped (MapNotify seen).
    func makeWindow(x: Int16, y: Int16, width: UInt16, height: UInt16) throws -> xcb_window_t {
        let w = xcb_generate_id(c)
        let values: [UInt32] = [XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue]
        xcb_create_window(c, 0, w, root, x, y, width, height, 0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), visual,
                          XCB_CW_EVENT_MASK.rawValue, values)
        xcb_map_window(c, w)
        pump(nil) { self.mapped.contains(w) }
        guard mapped.contains(w) else { throw XvfbError("no MapNotify for window \(w) within 3 s") }
        return w
    }

    func focus(_ w: xcb_window_t) {
        xcb_set_input_focus(c, UInt8(XCB_INPUT_FOCUS_PARENT.rawValue), w, 0)
        xcb_flush(c)
    }

    /// A key edge through XTEST (X keycode = evdev + 8).
    func key(_ evdev: UInt32, down: Bool) {
        xcb_test_fake_input(c, down ? 2 : 3, UInt8(evdev + 8), 0, root, 0, 0, 0)
        xcb_flush(c)
    }

    func button(_ n: UInt8, down: Bool) {
        xcb_test_fake_input(c, down ? 4 : 5, n, 0, root, 0, 0, 0)
        xcb_flush(c)
    }

    /// Absolute motion to root (x, y).
    func moveTo(_ x: Int16, _ y: Int16) {
        xcb_test_fake_input(c, 6, 0, 0, root, x, y, 0)
        xcb_flush(c)
    }

    /// Relative motion (MotionNotify, detail 1) by (dx, dy).
    func moveBy(_ dx: Int16, _ dy: Int16) {
        xcb_test_fake_input(c, 6, 1, 0, 0, dx, dy, 0)
        xcb_flush(c)
    }

    /// A round trip: every request before it is processed.
    func sync() {
        free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), nil))
    }

    func secondConnection() throws -> OpaquePointer {
        guard let o = xcb_connect(server.display, nil), xcb_connection_has_error(o) == 0 else {
            throw XvfbError("a second xcb_connect failed")
        }
        return o
    }

    /// What another client's core GrabPointer and GrabKeyboard on the root get (0 Success,
    /// 1 AlreadyGrabbed); it lets go again at once.
    func otherClientGrabStatus() -> (pointer: UInt8, keyboard: UInt8) {
        guard let o = try? secondConnection() else { return (255, 255) }
        defer { xcb_disconnect(o) }
        let async = UInt8(XCB_GRAB_MODE_ASYNC.rawValue)
        let p = xcb_grab_pointer_reply(o, xcb_grab_pointer(o, 0, root, 0, async, async, 0, 0, 0), nil)
        let k = xcb_grab_keyboard_reply(o, xcb_grab_keyboard(o, 0, root, 0, async, async), nil)
        defer { free(p); free(k) }
        return (p?.pointee.status ?? 255, k?.pointee.status ?? 255)
    }

    /// Reads events until `done()` or 3 s, then `settle` seconds more (so extra events would show).
    func pump(_ seat: X11Seat?, settle: Double = 0.15, until done: () -> Bool) {
        let deadline = Date().addingTimeInterval(3)
        while !done(), Date() < deadline { read(seat, for: 0.05) }
        read(seat, for: settle)
    }

    /// Reads events for `seconds`: XInput's generic events go to `seat`, MapNotify marks a window
    /// mapped, errors are kept.
    func read(_ seat: X11Seat?, for seconds: Double) {
        xcb_flush(c)
        let fd = xcb_get_file_descriptor(c)
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            while let ev = xcb_poll_for_event(c) {
                route(ev, to: seat)
                free(ev)
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, Int32(max(1, min(50, left * 1000))))
        } while true
    }

    private func route(_ ev: UnsafeMutablePointer<xcb_generic_event_t>, to seat: X11Seat?) {
        switch Int32(ev.pointee.response_type & 0x7F) {
        case 0:
            let e = UnsafeRawPointer(ev).assumingMemoryBound(to: xcb_generic_error_t.self).pointee
            errors.append((e.error_code, e.major_code))
            print("X error \(e.error_code) for request \(e.major_code).\(e.minor_code)")
        case XCB_MAP_NOTIFY:
            mapped.insert(UnsafeRawPointer(ev).assumingMemoryBound(to: xcb_map_notify_event_t.self).pointee.window)
        case XCB_GE_GENERIC:
            let ge = UnsafeRawPointer(ev).assumingMemoryBound(to: xcb_ge_generic_event_t.self)
            guard ge.pointee.extension == xiOpcode else { return }
            if ge.pointee.event_type == UInt16(XCB_INPUT_KEY_PRESS) {
                let k = UnsafeRawPointer(ev).assumingMemoryBound(to: xcb_input_key_press_event_t.self).pointee
                if XInputMapping.isRepeat(flags: k.flags) { repeatsSeen += 1 }
            }
            seat?.handle(ge)
        default:
            break
        }
    }
}
