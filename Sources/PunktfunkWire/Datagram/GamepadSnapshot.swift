/// One pad's whole state, packed into input kind 12 `GamepadState` (data-plane.md §6.2):
///
/// - `code`  = buttons
/// - `x`     = `(ls_x as u16) << 16 | (ls_y as u16)`
/// - `y`     = `(rs_x as u16) << 16 | (rs_y as u16)`
/// - `flags` = `seq << 24 | lt << 16 | rt << 8 | pad`
///
/// Sent only to hosts with `HOST_CAP_GAMEPAD_STATE`; the host applies it only when `seq` is
/// newer (`isNewer(_:than:)`).
public struct GamepadSnapshot: Hashable, Sendable {
    /// Wire pad index 0..<16.
    public var pad: UInt8
    /// Per-pad wrapping send counter.
    public var seq: UInt8
    public var buttons: GamepadButtons
    /// Triggers 0…255.
    public var leftTrigger: UInt8
    public var rightTrigger: UInt8
    /// Sticks, +y = up.
    public var leftStickX: Int16
    public var leftStickY: Int16
    public var rightStickX: Int16
    public var rightStickY: Int16

    public init(pad: UInt8, seq: UInt8, buttons: GamepadButtons = [], leftTrigger: UInt8 = 0,
                rightTrigger: UInt8 = 0, leftStickX: Int16 = 0, leftStickY: Int16 = 0,
                rightStickX: Int16 = 0, rightStickY: Int16 = 0) {
        self.pad = pad
        self.seq = seq
        self.buttons = buttons
        self.leftTrigger = leftTrigger
        self.rightTrigger = rightTrigger
        self.leftStickX = leftStickX
        self.leftStickY = leftStickY
        self.rightStickX = rightStickX
        self.rightStickY = rightStickY
    }

    /// The kind-12 event.
    public var event: InputEvent {
        InputEvent(kind: .gamepadState, code: buttons.rawValue,
                   x: Self.pack(leftStickX, leftStickY), y: Self.pack(rightStickX, rightStickY),
                   flags: UInt32(seq) << 24 | UInt32(leftTrigger) << 16 | UInt32(rightTrigger) << 8 | UInt32(pad))
    }

    /// Unpacks a kind-12 event; nil for any other kind.
    public init?(_ event: InputEvent) {
        guard event.kind == .gamepadState else { return nil }
        let (lx, ly) = Self.unpack(event.x)
        let (rx, ry) = Self.unpack(event.y)
        self.init(pad: UInt8(truncatingIfNeeded: event.flags), seq: UInt8(truncatingIfNeeded: event.flags >> 24),
                  buttons: GamepadButtons(rawValue: event.code),
                  leftTrigger: UInt8(truncatingIfNeeded: event.flags >> 16),
                  rightTrigger: UInt8(truncatingIfNeeded: event.flags >> 8),
                  leftStickX: lx, leftStickY: ly, rightStickX: rx, rightStickY: ry)
    }

    /// The 8-bit reorder gate shared by snapshots, GamepadRemove and rumble (data-plane.md §6.2,
    /// §7.1): `seq` supersedes `last` iff `(seq − last) as i8 > 0`. Nothing applied yet
    /// (`last == nil`) always accepts.
    public static func isNewer(_ seq: UInt8, than last: UInt8?) -> Bool {
        guard let last else { return true }
        return Int8(bitPattern: seq &- last) > 0
    }

    static func pack(_ high: Int16, _ low: Int16) -> Int32 {
        Int32(bitPattern: UInt32(UInt16(bitPattern: high)) << 16 | UInt32(UInt16(bitPattern: low)))
    }

    static func unpack(_ v: Int32) -> (high: Int16, low: Int16) {
        let u = UInt32(bitPattern: v)
        return (Int16(bitPattern: UInt16(truncatingIfNeeded: u >> 16)), Int16(bitPattern: UInt16(truncatingIfNeeded: u)))
    }
}
