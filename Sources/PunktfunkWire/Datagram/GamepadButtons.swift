/// Gamepad wire button bits (`BTN_*`, GameStream `buttonFlags | buttonFlags2 << 16`), carried by
/// input kinds 7 (one bit) and 12 (the whole mask) — data-plane.md §6.2 "Gamepad", pinned by
/// `gamepad-button-vectors.json`. Names follow the Xbox layout (A bottom, B right, X left, Y top).
public struct GamepadButtons: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let dpadUp = GamepadButtons(rawValue: 0x0001)
    public static let dpadDown = GamepadButtons(rawValue: 0x0002)
    public static let dpadLeft = GamepadButtons(rawValue: 0x0004)
    public static let dpadRight = GamepadButtons(rawValue: 0x0008)
    public static let start = GamepadButtons(rawValue: 0x0010)
    public static let back = GamepadButtons(rawValue: 0x0020)
    public static let leftStickClick = GamepadButtons(rawValue: 0x0040)
    public static let rightStickClick = GamepadButtons(rawValue: 0x0080)
    public static let leftBumper = GamepadButtons(rawValue: 0x0100)
    public static let rightBumper = GamepadButtons(rawValue: 0x0200)
    public static let guide = GamepadButtons(rawValue: 0x0400)
    public static let a = GamepadButtons(rawValue: 0x1000)
    public static let b = GamepadButtons(rawValue: 0x2000)
    public static let x = GamepadButtons(rawValue: 0x4000)
    public static let y = GamepadButtons(rawValue: 0x8000)
    /// Back grip R4.
    public static let paddle1 = GamepadButtons(rawValue: 0x1_0000)
    /// Back grip L4.
    public static let paddle2 = GamepadButtons(rawValue: 0x2_0000)
    /// Back grip R5.
    public static let paddle3 = GamepadButtons(rawValue: 0x4_0000)
    /// Back grip L5.
    public static let paddle4 = GamepadButtons(rawValue: 0x8_0000)
    /// DualSense touchpad click.
    public static let touchpad = GamepadButtons(rawValue: 0x10_0000)
    /// Share / capture / quick access.
    public static let misc1 = GamepadButtons(rawValue: 0x20_0000)

    /// Every defined bit with its upstream `BTN_*` name (without the prefix), in the order of
    /// `gamepad-button-vectors.json`.
    public static let wireNames: [(name: String, button: GamepadButtons)] = [
        ("A", .a), ("B", .b), ("X", .x), ("Y", .y), ("LB", .leftBumper), ("RB", .rightBumper),
        ("BACK", .back), ("START", .start), ("GUIDE", .guide),
        ("LS_CLICK", .leftStickClick), ("RS_CLICK", .rightStickClick),
        ("DPAD_UP", .dpadUp), ("DPAD_DOWN", .dpadDown), ("DPAD_LEFT", .dpadLeft), ("DPAD_RIGHT", .dpadRight),
        ("PADDLE1", .paddle1), ("PADDLE2", .paddle2), ("PADDLE3", .paddle3), ("PADDLE4", .paddle4),
        ("TOUCHPAD", .touchpad), ("MISC1", .misc1),
    ]

    /// The union of every defined bit; other bits are not on the wire contract.
    public static let all = GamepadButtons(wireNames.map(\.button))

    /// The button with upstream name `name` (e.g. `"LS_CLICK"`), nil if unknown.
    public static func named(_ name: String) -> GamepadButtons? {
        wireNames.first { $0.name == name }?.button
    }

    public var description: String {
        var parts = Self.wireNames.filter { contains($0.button) }.map(\.name)
        let unknown = rawValue & ~Self.all.rawValue
        if unknown != 0 { parts.append("0x" + String(unknown, radix: 16)) }
        return "[" + parts.joined(separator: " ") + "]"
    }
}

/// Gamepad axis ids for input kind 8 (data-plane.md §6.2). Sticks are i16 −32768…32767 with
/// **+y = up**; triggers 0…255.
public enum GamepadAxis: UInt32, Sendable, CaseIterable {
    case leftStickX = 0
    case leftStickY = 1
    case rightStickX = 2
    case rightStickY = 3
    case leftTrigger = 4
    case rightTrigger = 5
}

/// Gamepad constants of the input plane (data-plane.md §6.2, §6.3).
public enum Gamepad {
    /// Wire pad indices are 0..<16 (`MAX_PADS`).
    public static let maxPads = 16
    /// `RichInput.motion` gyro scale: raw LSB per °/s (saturates at ±1638 °/s).
    public static let gyroLSBPerDegreePerSecond = 20
    /// `RichInput.motion` accelerometer scale: raw LSB per g.
    public static let accelLSBPerG = 10_000
    /// Accelerometer at rest: 1 g along index 1 (up).
    public static let neutralAccel = SIMD3<Int16>(0, 10_000, 0)
}
