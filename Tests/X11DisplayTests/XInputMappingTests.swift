import Testing
import Input
@testable import X11Display

/// XInput 2's numbers → seat values. Expected values come from the specs' own text:
/// X11/extensions/XI2.h and XI2proto.txt (x11proto-dev: XIKeyRepeat, XINotify*, FP1616/FP3232,
/// the raw event's valuator mask), xkeyboard-config's keycodes/evdev (X keycodes), and
/// linux/input-event-codes.h (evdev codes).
@Suite struct XInputMappingTests {
    // MARK: Keys

    @Test func xKeycodesAreEvdevCodesPlusEight() {
        // keycodes/evdev: <ESC> = 9, <AD01> = 24, <LCTL> = 37, <AC01> = 38, <LFSH> = 50, <UP> = 111, <LEFT> = 113.
        // input-event-codes.h: KEY_ESC 1, KEY_Q 16, KEY_LEFTCTRL 29, KEY_A 30, KEY_LEFTSHIFT 42, KEY_UP 103, KEY_LEFT 105.
        let pairs: [(UInt32, UInt32)] = [(9, 1), (24, 16), (37, 29), (38, 30), (50, 42), (111, 103), (113, 105)]
        for (x, evdev) in pairs { #expect(XInputMapping.evdevCode(xKeycode: x) == evdev) }
        #expect(XInputMapping.evdevCode(xKeycode: 8) == 0)       // KEY_RESERVED: the lowest X keycode
        for x: UInt32 in 0..<8 { #expect(XInputMapping.evdevCode(xKeycode: x) == nil) }
        #expect(XInputMapping.evdevCode(xKeycode: 255) == 247)
    }

    @Test func repeatIsFlagBitSixteen() {
        // XI2.h: #define XIKeyRepeat (1 << 16).
        #expect(XInputMapping.isRepeat(flags: 0x1_0000))
        #expect(XInputMapping.isRepeat(flags: 0x1_0001))
        #expect(!XInputMapping.isRepeat(flags: 0))
        #expect(!XInputMapping.isRepeat(flags: 0x2_0000))
    }

    @Test func keymapBitsAreKeycodes() {
        // QueryKeymap: bit (k mod 8) of byte (k div 8) for keycode k. 38 = byte 4 bit 6; 50 = byte 6 bit 2.
        var keys = [UInt8](repeating: 0, count: 32)
        keys[4] = 0x40; keys[6] = 0x04
        keys[0] = 0xFF            // keycodes 0–7 do not exist
        #expect(XInputMapping.keysDown(keymap: keys) == [30, 42])
        keys[31] = 0x80           // keycode 255
        #expect(XInputMapping.keysDown(keymap: keys) == [30, 42, 247])
        #expect(XInputMapping.keysDown(keymap: [UInt8](repeating: 0, count: 32)) == [])
    }

    // MARK: Buttons

    @Test func buttonsAreBTNCodes() {
        // input-event-codes.h: BTN_LEFT 0x110, BTN_RIGHT 0x111, BTN_MIDDLE 0x112, BTN_SIDE 0x113, BTN_EXTRA 0x114.
        #expect(XInputMapping.button(detail: 1) == .button(0x110))
        #expect(XInputMapping.button(detail: 2) == .button(0x112))
        #expect(XInputMapping.button(detail: 3) == .button(0x111))
        #expect(XInputMapping.button(detail: 8) == .button(0x113))
        #expect(XInputMapping.button(detail: 9) == .button(0x114))
        for other: UInt32 in [0, 10, 11, 255] { #expect(XInputMapping.button(detail: other) == nil) }
    }

    @Test func wheelButtonsScrollOnPressOnly() {
        // Core X: 4 up, 5 down, 6 left, 7 right. The seat's sign: + = down / right, 120 per detent.
        #expect(XInputMapping.buttonEvents(detail: 4, pressed: true) == [.axisValue120(horizontal: false, value120: -120)])
        #expect(XInputMapping.buttonEvents(detail: 5, pressed: true) == [.axisValue120(horizontal: false, value120: 120)])
        #expect(XInputMapping.buttonEvents(detail: 6, pressed: true) == [.axisValue120(horizontal: true, value120: -120)])
        #expect(XInputMapping.buttonEvents(detail: 7, pressed: true) == [.axisValue120(horizontal: true, value120: 120)])
        for d: UInt32 in 4...7 { #expect(XInputMapping.buttonEvents(detail: d, pressed: false) == []) }
        #expect(XInputMapping.buttonEvents(detail: 1, pressed: true) == [.button(code: 0x110, pressed: true)])
        #expect(XInputMapping.buttonEvents(detail: 3, pressed: false) == [.button(code: 0x111, pressed: false)])
        #expect(XInputMapping.buttonEvents(detail: 12, pressed: true) == [])
    }

    // MARK: Crossing and focus

    @Test func notifyNumbersAreTheProtocols() {
        // XI2.h: XINotifyAncestor 0, Virtual 1, Inferior 2, Nonlinear 3, NonlinearVirtual 4,
        // Pointer 5, PointerRoot 6, DetailNone 7; XINotifyNormal 0, Grab 1, Ungrab 2, WhileGrabbed 3.
        typealias D = XInputMapping.NotifyDetail
        typealias M = XInputMapping.NotifyMode
        #expect([D.ancestor, D.virtual, D.inferior, D.nonlinear, D.nonlinearVirtual, D.pointer, D.pointerRoot, D.detailNone]
            == [0, 1, 2, 3, 4, 5, 6, 7])
        #expect([M.normal, M.grab, M.ungrab, M.whileGrabbed] == [0, 1, 2, 3])
    }

    @Test func crossingIgnoresOnlyInferior() {
        #expect((0...7).filter { XInputMapping.crossingCounts(detail: UInt8($0)) } == [0, 1, 3, 4, 5, 6, 7])
    }

    @Test func focusCountsAncestorVirtualNonlinear() {
        // Inferior stays ours; Pointer, PointerRoot and DetailNone give the window no focus.
        #expect((0...7).filter { XInputMapping.focusCounts(detail: UInt8($0)) } == [0, 1, 3, 4])
    }

    // MARK: Fixed point

    @Test func fp1616() {
        // XI2proto.txt: FP1616 — 16.16 fixed point, signed.
        #expect(XInputMapping.double(fp1616: 0x0001_8000) == 1.5)
        #expect(XInputMapping.double(fp1616: -0x8000) == -0.5)
        #expect(XInputMapping.double(fp1616: 200 << 16) == 200)
        #expect(XInputMapping.double(fp1616: Int32.min) == -32768)
    }

    @Test func fp3232() {
        // XI2proto.txt: FP3232 — INT32 integral, CARD32 frac (value = integral + frac / 2^32).
        #expect(XInputMapping.double(integral: 5, frac: 0) == 5)
        #expect(XInputMapping.double(integral: -3, frac: 0) == -3)
        #expect(XInputMapping.double(integral: 1, frac: 0x8000_0000) == 1.5)
        #expect(XInputMapping.double(integral: -1, frac: 0x8000_0000) == -0.5)
        #expect(XInputMapping.double(integral: 0, frac: 0x4000_0000) == 0.25)
    }

    // MARK: Raw motion

    /// A mouse's valuators as Xvfb's XTEST pointer and Xwayland's relative pointer describe them.
    let mouse = PointerValuators(valuators: [.init(number: 0, label: "Rel X", absolute: false, minimum: -1, maximum: -1),
                                             .init(number: 1, label: "Rel Y", absolute: false, minimum: -1, maximum: -1)])

    @Test func rawValuesFollowTheMaskInValuatorOrder() {
        // XI2proto.txt RawEvent: valuators_len mask words, then one FP3232 per set bit, lowest first.
        func motion(_ mask: [UInt32], _ raw: [Double]) -> (dx: Double, dy: Double)? {
            var r = RawMotionReader()
            return r.motion(source: 4, axes: mouse, mask: mask, values: raw.map { $0 * 3 }, rawValues: raw,
                            screenWidth: 1280, screenHeight: 720)
        }
        #expect(motion([0b11], [5, -3])! == (5, -3))          // the raw (unaccelerated) values, not the transformed ones
        #expect(motion([0b10], [7])! == (0, 7))
        #expect(motion([0b01], [-2.5])! == (-2.5, 0))
        #expect(motion([0b1101], [4, 9, 1])! == (4, 0))        // valuators 2, 3: scroll
        #expect(motion([0b111], [1, 2, 3])! == (1, 2))
        #expect(motion([0b1100], [1, 1]) == nil)               // no x, no y
        #expect(motion([0, 0b11], [1, 1]) == nil)              // valuators 32, 33
        #expect(motion([], []) == nil)
        #expect(motion([0b11], [1]) == nil)                    // fewer values than bits
    }

    @Test func xAndYAreChosenByLabelThenByNumber() {
        // SDL's rule: "Rel X", else "Abs X", else the first valuators.
        let tablet = PointerValuators(valuators: [
            .init(number: 0, label: "Abs Pressure", absolute: true, minimum: 0, maximum: 65535),
            .init(number: 1, label: "Abs X", absolute: true, minimum: 0, maximum: 262_143),
            .init(number: 2, label: "Abs Y", absolute: true, minimum: 0, maximum: 262_143)])
        #expect(tablet.x == .init(number: 1, absolute: true, minimum: 0, maximum: 262_143))
        #expect(tablet.y == .init(number: 2, absolute: true, minimum: 0, maximum: 262_143))
        let unlabelled = PointerValuators(valuators: [.init(number: 0, label: nil, absolute: true, minimum: 0, maximum: 99),
                                                      .init(number: 1, label: nil, absolute: true, minimum: 0, maximum: 49)])
        #expect(unlabelled.x?.number == 0 && unlabelled.y?.number == 1 && unlabelled.x?.absolute == true)
        #expect(mouse.x?.number == 0 && mouse.y?.number == 1 && mouse.x?.absolute == false && mouse.y?.absolute == false)
    }

    @Test func anAbsoluteDeviceMovesByTheChangeOfItsPlaceSpreadOverTheScreen() {
        // Xwayland's own pointer (xwayland-input.c xwl_pointer_proc): "Abs X"/"Abs Y", 0…0xFFFF,
        // Absolute; its events' transformed values are in those units.
        let xwayland = PointerValuators(valuators: [.init(number: 0, label: "Abs X", absolute: true, minimum: 0, maximum: 65535),
                                                    .init(number: 1, label: "Abs Y", absolute: true, minimum: 0, maximum: 65535),
                                                    .init(number: 2, label: "Rel Horiz Wheel", absolute: false),
                                                    .init(number: 3, label: "Rel Vert Wheel", absolute: false)])
        var r = RawMotionReader()
        func move(_ source: UInt16, _ x: Double, _ y: Double) -> (dx: Double, dy: Double)? {
            // raw values are what the server was given (screen pixels for Xwayland): never read for an absolute axis
            r.motion(source: source, axes: xwayland, mask: [0b11], values: [x, y], rawValues: [-1, -1],
                     screenWidth: 1280, screenHeight: 720)
        }
        #expect(move(6, 32768, 32768) == nil)                  // its first place: no jump
        let d = move(6, 32768 + 6553.5, 32768 - 13107)!       // a tenth of the width right, a fifth of the height up
        #expect(abs(d.dx - 128) < 1e-9 && abs(d.dy + 144) < 1e-9)
        #expect(move(7, 100, 100) == nil)                      // another device has its own previous place
        let e = move(6, 32768 + 6553.5, 32768 - 13107)!        // the same place: no motion
        #expect(e == (0, 0))
        r.reset()
        #expect(move(6, 0, 0) == nil)                          // after a new grab: a first place again
        // Only y present: x keeps its previous place.
        let only = r.motion(source: 6, axes: xwayland, mask: [0b10], values: [65535], rawValues: [0],
                            screenWidth: 1280, screenHeight: 720)!
        #expect(only.dx == 0 && abs(only.dy - 720) < 1e-9)
    }

    @Test func anAbsoluteValuatorWithoutARangeCountsUnitsAsPixels() {
        let bare = PointerValuators(x: .init(number: 0, absolute: true, minimum: 0, maximum: 0),
                                    y: .init(number: 1, absolute: true, minimum: 0, maximum: 0))
        var r = RawMotionReader()
        _ = r.motion(source: 9, axes: bare, mask: [0b11], values: [10, 10], rawValues: [0, 0], screenWidth: 1280, screenHeight: 720)
        #expect(r.motion(source: 9, axes: bare, mask: [0b11], values: [13, 6], rawValues: [0, 0],
                         screenWidth: 1280, screenHeight: 720)! == (3, -4))
    }
}
