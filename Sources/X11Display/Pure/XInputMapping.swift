internal import Input

/// XInput 2's numbers as the seat's values. Pure: plain integers in, `SeatEvent` parts out, no xcb
/// type. The numbers are XI2proto.txt's (and X11/extensions/XI2.h's); evdev codes are
/// linux/input-event-codes.h's.
enum XInputMapping {
    // MARK: Keys

    /// X keycode → evdev code. The X server's evdev and libinput drivers (and Xwayland, and XTEST
    /// on an evdev keymap) report keycode = evdev code + 8, because the core protocol's keycodes
    /// start at 8. nil below 8 (no key).
    static func evdevCode(xKeycode: UInt32) -> UInt32? {
        xKeycode >= 8 ? xKeycode - 8 : nil
    }

    /// XI2 KeyPress `flags` bit XIKeyRepeat: the server's autorepeat, not a new press. The host
    /// repeats held keys itself, so such presses are dropped.
    static let keyRepeatFlag: UInt32 = 1 << 16

    static func isRepeat(flags: UInt32) -> Bool { flags & keyRepeatFlag != 0 }

    /// The evdev codes of the keys down in a core QueryKeymap reply: 32 bytes, bit (k mod 8) of
    /// byte (k div 8) set while X keycode k is down. Ascending.
    static func keysDown(keymap: some Collection<UInt8>) -> [UInt32] {
        var down: [UInt32] = []
        for (i, byte) in keymap.prefix(32).enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (1 << bit) != 0 {
                if let code = evdevCode(xKeycode: UInt32(i * 8 + bit)) { down.append(code) }
            }
        }
        return down
    }

    // MARK: Buttons

    /// What an XI2 button number means. Core X numbers the wheel as buttons: 4 up, 5 down, 6 left,
    /// 7 right (one detent per press); 8 and 9 are back and forward.
    enum Button: Equatable, Sendable {
        /// An evdev `BTN_*` code.
        case button(UInt32)
        /// One wheel detent, in the seat's sign (+ = down / right), 120 units per detent.
        case wheel(horizontal: Bool, value120: Int32)
    }

    static let btnLeft: UInt32 = 0x110, btnRight: UInt32 = 0x111, btnMiddle: UInt32 = 0x112
    static let btnSide: UInt32 = 0x113, btnExtra: UInt32 = 0x114

    /// nil for numbers with no meaning here (0, 10 and up: devices with more buttons than a mouse).
    static func button(detail: UInt32) -> Button? {
        switch detail {
        case 1: .button(btnLeft)
        case 2: .button(btnMiddle)
        case 3: .button(btnRight)
        case 4: .wheel(horizontal: false, value120: -120)
        case 5: .wheel(horizontal: false, value120: 120)
        case 6: .wheel(horizontal: true, value120: -120)
        case 7: .wheel(horizontal: true, value120: 120)
        case 8: .button(btnSide)
        case 9: .button(btnExtra)
        default: nil
        }
    }

    /// The seat events of one XI2 ButtonPress (`pressed`) or ButtonRelease, without the frame: a
    /// wheel "button" scrolls on its press; its release is nothing.
    static func buttonEvents(detail: UInt32, pressed: Bool) -> [SeatEvent] {
        switch button(detail: detail) {
        case .button(let code): [.button(code: code, pressed: pressed)]
        case .wheel(let horizontal, let v): pressed ? [.axisValue120(horizontal: horizontal, value120: v)] : []
        case nil: []
        }
    }

    // MARK: Crossing and focus

    /// XI2 Enter/Leave/FocusIn/FocusOut `detail` (the core NotifyDetail values).
    enum NotifyDetail {
        static let ancestor: UInt8 = 0, virtual: UInt8 = 1, inferior: UInt8 = 2, nonlinear: UInt8 = 3
        static let nonlinearVirtual: UInt8 = 4, pointer: UInt8 = 5, pointerRoot: UInt8 = 6, detailNone: UInt8 = 7
    }

    /// XI2 crossing/focus `mode`. Grab and Ungrab come with another client's grab (or our own
    /// from elsewhere); they count like Normal: focus lost to a grab still releases our keys.
    enum NotifyMode {
        static let normal: UInt8 = 0, grab: UInt8 = 1, ungrab: UInt8 = 2, whileGrabbed: UInt8 = 3
    }

    /// Whether an Enter or Leave on our window changes whether the pointer is ours: not when it
    /// moves between our window and one inside it (Inferior).
    static func crossingCounts(detail: UInt8) -> Bool {
        detail != NotifyDetail.inferior
    }

    /// Whether a FocusIn or FocusOut on our window changes whether the keyboard is ours. Not
    /// Inferior (focus moves between our window and one inside it, still ours), and not the
    /// PointerRoot family: Pointer (focus is PointerRoot/None and the pointer is merely inside),
    /// PointerRoot and DetailNone (the root's focus events), which give no keyboard focus to the
    /// window itself.
    static func focusCounts(detail: UInt8) -> Bool {
        switch detail {
        case NotifyDetail.ancestor, NotifyDetail.virtual, NotifyDetail.nonlinear, NotifyDetail.nonlinearVirtual: true
        default: false
        }
    }

    // MARK: Fixed point

    /// XI2 FP1616: a signed 16.16 fixed-point number.
    static func double(fp1616 v: Int32) -> Double { Double(v) / 65536 }

    /// XI2 FP3232: `integral` signed, `frac` the unsigned fraction in 1/2³² (the value is
    /// integral + frac / 2³², so −0.5 is integral −1, frac 2³¹).
    static func double(integral: Int32, frac: UInt32) -> Double {
        Double(integral) + Double(frac) / 4_294_967_296
    }
}
