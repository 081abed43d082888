import PunktfunkWire

/// How a pad's evdev buttons and axes become wire buttons and axes.
///
/// The kernel's gamepad layout (Documentation/input/gamepad.rst) names face buttons by
/// position: BTN_SOUTH bottom, BTN_EAST right, BTN_NORTH top, BTN_WEST left — the wire names
/// them as Xbox letters by the same positions (A bottom, B right, Y top, X left). xpad predates
/// that and reports the letters (BTN_X = 0x133, BTN_Y = 0x134, the codes gamepad.rst calls
/// north and west), which is what upstream `gamepad-button-vectors.json` lists; `.letters`
/// reads a pad that way. Sticks: ABS_X/Y left, ABS_RX/RY right; triggers ABS_Z/ABS_RZ (or
/// ABS_HAT2Y/ABS_HAT2X, or digital BTN_TL2/TR2 when the pad has no analog trigger); the d-pad is
/// ABS_HAT0X/Y or BTN_DPAD_*.
public struct GamepadLayout: Sendable, Equatable {
    public enum FaceButtons: Sendable, Equatable {
        /// gamepad.rst: 0x133 north → Y, 0x134 west → X.
        case positional
        /// xpad: 0x133 BTN_X → X, 0x134 BTN_Y → Y.
        case letters
    }

    public var face: FaceButtons
    /// Per wire axis (`GamepadAxis` order), the evdev ABS code read for it.
    public var axisCodes: [UInt16]
    /// Overrides from an SDL mapping: evdev key code → wire button.
    public var buttonOverrides: [UInt16: GamepadButtons]

    public init(face: FaceButtons = .positional,
                axisCodes: [UInt16] = [EV.absX, EV.absY, EV.absRX, EV.absRY, EV.absZ, EV.absRZ],
                buttonOverrides: [UInt16: GamepadButtons] = [:]) {
        self.face = face; self.axisCodes = axisCodes; self.buttonOverrides = buttonOverrides
    }

    /// The layout a pad's identity implies: Microsoft's vendor id (xpad and its kin) reads
    /// letters; everything else reads positions.
    public static func forDevice(vendor: UInt16) -> GamepadLayout {
        GamepadLayout(face: vendor == 0x045E ? .letters : .positional)
    }

    /// The wire button of an evdev key code; nil for codes that are not buttons of the wire.
    public func button(forKey code: UInt16) -> GamepadButtons? {
        if let o = buttonOverrides[code] { return o }
        switch code {
        case EV.btnSouth: return .a
        case EV.btnEast: return .b
        case EV.btnNorth: return face == .positional ? .y : .x
        case EV.btnWest: return face == .positional ? .x : .y
        case EV.btnTL: return .leftBumper
        case EV.btnTR: return .rightBumper
        case EV.btnSelect: return .back
        case EV.btnStart: return .start
        case EV.btnMode: return .guide
        case EV.btnThumbL: return .leftStickClick
        case EV.btnThumbR: return .rightStickClick
        case EV.btnDpadUp: return .dpadUp
        case EV.btnDpadDown: return .dpadDown
        case EV.btnDpadLeft: return .dpadLeft
        case EV.btnDpadRight: return .dpadRight
        case EV.btnTriggerHappy5: return .paddle1
        case EV.btnTriggerHappy5 + 1: return .paddle3
        case EV.btnTriggerHappy5 + 2: return .paddle2
        case EV.btnTriggerHappy5 + 3: return .paddle4
        default: return nil
        }
    }

    /// The wire axis an ABS code feeds, nil if none.
    public func axis(forAbs code: UInt16) -> GamepadAxis? {
        axisCodes.firstIndex(of: code).flatMap { GamepadAxis(rawValue: UInt32($0)) }
    }

    /// Reads the triggers from ABS_HAT2Y (left) / ABS_HAT2X (right), for pads that report them
    /// there instead of ABS_Z / ABS_RZ.
    public mutating func useHatTriggers() {
        axisCodes[Int(GamepadAxis.leftTrigger.rawValue)] = EV.absHat2Y
        axisCodes[Int(GamepadAxis.rightTrigger.rawValue)] = EV.absHat2X
    }
}
