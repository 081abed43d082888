import PunktfunkWire

/// Maps evdev events of the devices in use onto `NavigationEvent`s for the shell. Pure: no I/O,
/// no clock, so every rule is unit-tested with plain values.
///
/// - Keyboard (US layout): arrows move, Enter confirms, Esc goes back, Backspace erases, F1 or the
///   Menu key opens the menu, letters/digits/`. : - _ [ ]` (with Shift) are characters;
///   Ctrl+Alt+F1…F12 asks for a console switch. A key pressed with Ctrl or Alt types nothing.
/// - Pad: A/Cross confirm, B/Circle back, X/Square erase, Start/Options menu, the d-pad and the
///   left stick move. The stick is a direction only past `stickPress` and stays one until it
///   falls under `stickRelease` (hysteresis: a stick resting near the threshold gives no chatter).
/// - Mouse: motion moves the pointer, the left button clicks, the right button is Back, each wheel
///   detent is an up or down press and release. An absolute pointer (tablet, touchscreen) puts the
///   pointer at its place on the screen (its range spans the screen); its touch or tip clicks and
///   its first stylus button is Back.
///
/// Routes: events are only emitted while the route is `.shell`. A press made while the route was
/// `.host` is never acted on — not its release either, even if it comes in the shell. Leaving the
/// shell releases (emits the release of) everything pressed in it, so a held direction stops.
/// Every device's state is tracked in both routes. After `init`, an event allocates nothing.
public final class NavigationMapper {
    /// Called with each event (the input thread).
    public var onEvent: (NavigationEvent) -> Void = { _ in }
    public private(set) var route: InputRoute = .shell
    /// The family of the last press (any route); nil before the first.
    public private(set) var lastFamily: DeviceFamily?

    /// A stick is a direction beyond this (of 32767) …
    public static let stickPress: Int32 = 16_384
    /// … until it comes back under this.
    public static let stickRelease: Int32 = 9_830

    /// One device's fold state. Bits of `down`/`inShell`: 0…31 the wire pad buttons, 32…35 the
    /// left stick's up/down/left/right (pads); mouse: 0 left, 1 right. Keyboards use the sets.
    final class Device {
        let role: DeviceRole
        let family: DeviceFamily
        /// Pad: wire buttons plus stick directions now (physical).
        var down: UInt64 = 0
        /// Pad/mouse: the bits whose press happened in the shell (their release is emitted).
        var inShell: UInt64 = 0
        /// Pad: the bits as of the last frame.
        var seen: UInt64 = 0
        var stickX: Int32 = 0, stickY: Int32 = 0
        /// Keyboard: codes pressed in the shell, and the modifiers held (physical).
        var keysInShell = Set<UInt16>(minimumCapacity: 64)
        var shift = 0, ctrl = 0, alt = 0
        /// Mouse: motion and wheel of this frame.
        var dx: Int32 = 0, dy: Int32 = 0, wheel: Int32 = 0
        /// Absolute pointer: its position now, and whether it changed this frame.
        var absX: Int32 = 0, absY: Int32 = 0, placed = false
        var buttons: UInt64 = 0

        init(role: DeviceRole, family: DeviceFamily) { self.role = role; self.family = family }
    }

    private var devices: [Int: Device] = [:]

    public init() { devices.reserveCapacity(32) }

    // MARK: - Devices

    /// A device came into use. Pad siblings (touch surface, motion) are not the shell's.
    public func add(device id: Int, role: DeviceRole) {
        guard let family = DeviceFamily.of(role) else { return }
        devices[id] = Device(role: role, family: family)
    }

    /// A device whose presses count as `family`'s (the TV remote: a keyboard with its own glyphs).
    public func add(device id: Int, role: DeviceRole, family: DeviceFamily) {
        devices[id] = Device(role: role, family: family)
    }

    /// The device left: what it pressed in the shell is released.
    public func remove(device id: Int) {
        guard let d = devices.removeValue(forKey: id) else { return }
        releaseShellPresses(d)
    }

    /// A key or button that was already down when the device came into use: never acted on.
    /// Modifiers count (Shift held at start still shifts).
    public func seedPressed(device id: Int, code: UInt16) {
        guard let d = devices[id] else { return }
        if case .keyboard = d.role { modifier(d, code: code, down: true) }
    }

    /// A pad's state when it came into use was fed (`handle`, without SYN_REPORT): what is
    /// down now is taken as seen, so only releases follow — and those are ignored.
    public func seedFrame(device id: Int) {
        guard let d = devices[id], case .gamepad = d.role else { return }
        d.down = Self.stickBits(x: d.stickX, y: d.stickY, was: d.down)
        d.seen = d.down
    }

    // MARK: - Route

    /// Switches where input goes. Leaving the shell emits the release of everything pressed in
    /// it (while the route is still `.shell`); presses made before the switch stay ignored.
    public func setRoute(_ next: InputRoute) {
        guard next != route else { return }
        if next == .host { for d in devices.values { releaseShellPresses(d) } }
        route = next
    }

    private func releaseShellPresses(_ d: Device) {
        switch d.role {
        case .keyboard:
            for code in d.keysInShell {
                if let key = Self.key(code, shift: d.shift > 0) { emit(.key(key, pressed: false, from: d.family)) }
            }
            d.keysInShell.removeAll(keepingCapacity: true)
        case .gamepad(let pad):
            for bit in 0..<36 where d.inShell & (1 << UInt64(bit)) != 0 {
                if let key = Self.padKey(bit: bit, layout: pad.layout) { emit(.key(key, pressed: false, from: d.family)) }
            }
            d.inShell = 0
        case .mouse, .touchpad, .absolutePointer:
            if d.inShell & 1 != 0 { emit(.click(pressed: false)) }
            if d.inShell & 2 != 0 { emit(.key(.back, pressed: false, from: .mouse)) }
            d.inShell = 0
        case .padTouchpad, .padMotion: break
        }
    }

    // MARK: - Events

    /// One evdev event of `device`; a pad's and a mouse's frame is acted on at SYN_REPORT.
    public func handle(device id: Int, type: UInt16, code: UInt16, value: Int32) {
        guard let d = devices[id] else { return }
        switch d.role {
        case .keyboard:
            if type == EV.key { keyboard(d, code: code, value: value) }
        case .gamepad(let pad):
            padEvent(d, pad, type: type, code: code, value: value)
        case .mouse, .touchpad:
            mouse(d, type: type, code: code, value: value)
        case .absolutePointer(let rx, let ry):
            if type == EV.abs {
                if code == EV.absX { d.absX = value; d.placed = true } else if code == EV.absY { d.absY = value; d.placed = true }
            } else if type == EV.syn, code == EV.synReport, d.placed {
                d.placed = false
                if route == .shell { emit(.pointerPlaced(x: Self.fraction(d.absX, rx), y: Self.fraction(d.absY, ry))) }
            }
            mouse(d, type: type, code: code, value: value)
        case .padTouchpad, .padMotion:
            break
        }
    }

    private func modifier(_ d: Device, code: UInt16, down: Bool) {
        let step = down ? 1 : -1
        switch code {
        case 42, 54: d.shift = max(0, d.shift + step)
        case 29, 97: d.ctrl = max(0, d.ctrl + step)
        case 56, 100: d.alt = max(0, d.alt + step)
        default: break
        }
    }

    private func keyboard(_ d: Device, code: UInt16, value: Int32) {
        guard value != 2 else { return }   // the kernel's autorepeat: the shell repeats on its own
        let down = value != 0
        modifier(d, code: code, down: down)
        if down {
            guard route == .shell else { noteFamily(d); return }
            if d.ctrl > 0 && d.alt > 0, let vt = Self.functionKey(code) {
                noteFamily(d)
                emit(.switchConsole(vt))
                return
            }
            guard let key = Self.key(code, shift: d.shift > 0) else { return }
            if case .character = key, d.ctrl > 0 || d.alt > 0 { return }
            noteFamily(d)
            d.keysInShell.insert(code)
            emit(.key(key, pressed: true, from: d.family))
        } else if d.keysInShell.remove(code) != nil, let key = Self.key(code, shift: d.shift > 0) {
            // A character's release is named with the shift state of now; only directions
            // need their release, and those do not shift.
            emit(.key(key, pressed: false, from: d.family))
        }
    }

    private func padEvent(_ d: Device, _ pad: PadDescription, type: UInt16, code: UInt16, value: Int32) {
        switch type {
        case EV.key:
            guard value != 2, let b = pad.layout.button(forKey: code) else { return }
            let bits = UInt64(b.rawValue)
            d.down = value != 0 ? d.down | bits : d.down & ~bits
        case EV.abs:
            if code == EV.absHat0X {
                d.down &= ~UInt64(GamepadButtons([.dpadLeft, .dpadRight]).rawValue)
                if value < 0 { d.down |= UInt64(GamepadButtons.dpadLeft.rawValue) }
                if value > 0 { d.down |= UInt64(GamepadButtons.dpadRight.rawValue) }
            } else if code == EV.absHat0Y {
                d.down &= ~UInt64(GamepadButtons([.dpadUp, .dpadDown]).rawValue)
                if value < 0 { d.down |= UInt64(GamepadButtons.dpadUp.rawValue) }
                if value > 0 { d.down |= UInt64(GamepadButtons.dpadDown.rawValue) }
            } else if let axis = pad.layout.axis(forAbs: code), let range = pad.ranges[code] {
                if axis == .leftStickX { d.stickX = Int32(range.stick(value)) }
                if axis == .leftStickY { d.stickY = Int32(range.stick(value, invert: true)) }   // up is positive
            }
        case EV.syn where code == EV.synReport:
            d.down = Self.stickBits(x: d.stickX, y: d.stickY, was: d.down)
            padFrame(d, pad)
        default:
            break
        }
    }

    /// Bits 32…35 (up, down, left, right) of the left stick at (x, y), with hysteresis against
    /// the bits in `was`; bits 0…31 of `was` are kept.
    static func stickBits(x: Int32, y: Int32, was: UInt64) -> UInt64 {
        func held(_ bit: Int, _ v: Int32) -> Bool {
            was & (1 << UInt64(bit)) != 0 ? v > stickRelease : v > stickPress
        }
        var out = was & 0xFFFF_FFFF
        if held(32, y) { out |= 1 << 32 }
        if held(33, -y) { out |= 1 << 33 }
        if held(34, -x) { out |= 1 << 34 }
        if held(35, x) { out |= 1 << 35 }
        return out
    }

    private func padFrame(_ d: Device, _ pad: PadDescription) {
        let changed = d.down ^ d.seen
        d.seen = d.down
        guard changed != 0 else { return }
        for bit in 0..<36 where changed & (1 << UInt64(bit)) != 0 {
            let mask = UInt64(1) << UInt64(bit)
            guard let key = Self.padKey(bit: bit, layout: pad.layout) else { continue }
            if d.down & mask != 0 {
                noteFamily(d)
                guard route == .shell else { continue }
                d.inShell |= mask
                emit(.key(key, pressed: true, from: d.family))
            } else if d.inShell & mask != 0 {
                d.inShell &= ~mask
                emit(.key(key, pressed: false, from: d.family))
            }
        }
    }

    private func mouse(_ d: Device, type: UInt16, code: UInt16, value: Int32) {
        switch type {
        case EV.rel:
            if code == EV.relX { d.dx &+= value } else if code == EV.relY { d.dy &+= value } else if code == EV.relWheel { d.wheel &+= value }
        case EV.key:
            guard value != 2 else { return }
            let bit: UInt64
            switch code {
            case EV.btnLeft: bit = 1
            case EV.btnRight: bit = 2
            case EV.btnTouch, EV.btnStylus:
                guard case .absolutePointer = d.role else { return }
                bit = code == EV.btnTouch ? 1 : 2
            default: return
            }
            d.buttons = value != 0 ? d.buttons | bit : d.buttons & ~bit
        case EV.syn where code == EV.synReport:
            mouseFrame(d)
        default:
            break
        }
    }

    /// `v`'s place in `r`, 0…1 (a degenerate range is the middle).
    static func fraction(_ v: Int32, _ r: AxisRange) -> Double {
        guard r.maximum > r.minimum else { return 0.5 }
        return min(1, max(0, Double(Int64(v) - Int64(r.minimum)) / Double(Int64(r.maximum) - Int64(r.minimum))))
    }

    private func mouseFrame(_ d: Device) {
        defer { d.dx = 0; d.dy = 0; d.wheel = 0; d.seen = d.buttons }
        let pressed = d.buttons & ~d.seen, released = d.seen & ~d.buttons
        if pressed != 0 { noteFamily(d) }
        if route == .shell, d.dx != 0 || d.dy != 0 { emit(.pointerMoved(dx: d.dx, dy: d.dy)) }
        if pressed & 1 != 0, route == .shell { d.inShell |= 1; emit(.click(pressed: true)) }
        if released & 1 != 0, d.inShell & 1 != 0 { d.inShell &= ~1; emit(.click(pressed: false)) }
        if pressed & 2 != 0, route == .shell { d.inShell |= 2; emit(.key(.back, pressed: true, from: .mouse)) }
        if released & 2 != 0, d.inShell & 2 != 0 { d.inShell &= ~2; emit(.key(.back, pressed: false, from: .mouse)) }
        guard route == .shell, d.wheel != 0 else { return }
        let key: NavigationKey = d.wheel > 0 ? .up : .down
        for _ in 0..<min(Int(d.wheel.magnitude), 8) {
            emit(.key(key, pressed: true, from: .mouse))
            emit(.key(key, pressed: false, from: .mouse))
        }
    }

    // MARK: - Tables

    /// A pad bit's key (bits 32…35: the stick).
    static func padKey(bit: Int, layout: GamepadLayout) -> NavigationKey? {
        switch bit {
        case 32: return .up
        case 33: return .down
        case 34: return .left
        case 35: return .right
        default: break
        }
        let b = GamepadButtons(rawValue: UInt32(1) << UInt32(bit))
        switch b {
        case .a: return .confirm
        case .b: return .back
        case .x: return .erase
        case .start: return .menu
        case .dpadUp: return .up
        case .dpadDown: return .down
        case .dpadLeft: return .left
        case .dpadRight: return .right
        default: return nil
        }
    }

    /// VT number of F1…F12 (evdev codes), nil for other keys.
    static func functionKey(_ code: UInt16) -> Int? {
        switch code {
        case 59...68: Int(code) - 58
        case 87: 11
        case 88: 12
        default: nil
        }
    }

    /// US-layout evdev key code → key (Shift as given); nil for keys the shell does not use.
    public static func key(_ code: UInt16, shift: Bool) -> NavigationKey? {
        switch code {
        case 103: return .up
        case 108: return .down
        case 105: return .left
        case 106: return .right
        case 28, 96: return .confirm          // Enter, keypad Enter
        case 1: return .back                  // Esc
        case 14: return .erase                // Backspace
        case 59, 127, 139: return .menu       // F1, Compose (the PC "menu" key), Menu
        default: break
        }
        if let c = character(code, shift: shift) { return .character(c) }
        return nil
    }

    private static let digitRow: [Character] = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"]
    private static let digitRowShifted: [Character] = ["!", "@", "#", "$", "%", "^", "&", "*", "(", ")"]
    private static let letterRows: [(first: UInt16, letters: [Character])] = [
        (16, Array("qwertyuiop")), (30, Array("asdfghjkl")), (44, Array("zxcvbnm")),
    ]
    /// Keypad 7 8 9 - 4 5 6 + 1 2 3 0 . (codes 71…83).
    private static let keypad: [Character] = ["7", "8", "9", "-", "4", "5", "6", "+", "1", "2", "3", "0", "."]

    static func character(_ code: UInt16, shift: Bool) -> Character? {
        switch code {
        case 2...11: return (shift ? digitRowShifted : digitRow)[Int(code) - 2]
        case 12: return shift ? "_" : "-"
        case 13: return shift ? "+" : "="
        case 26: return shift ? "{" : "["
        case 27: return shift ? "}" : "]"
        case 39: return shift ? ":" : ";"
        case 51: return shift ? "<" : ","
        case 52: return shift ? ">" : "."
        case 53: return shift ? "?" : "/"
        case 71...83: return keypad[Int(code) - 71]
        default: break
        }
        for row in letterRows where code >= row.first && Int(code) < Int(row.first) + row.letters.count {
            let c = row.letters[Int(code - row.first)]
            return shift ? Character(c.uppercased()) : c
        }
        return nil
    }

    // MARK: - Emitting

    private func noteFamily(_ d: Device) {
        guard d.family != lastFamily else { return }
        // A mouse press keeps the glyphs of the device before it (it has none of its own).
        if d.family == .mouse, lastFamily != nil { return }
        lastFamily = d.family
        emit(.deviceUsed(d.family))
    }

    private func emit(_ event: NavigationEvent) { onEvent(event) }
}
