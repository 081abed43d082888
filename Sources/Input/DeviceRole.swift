import PunktfunkWire

/// What one evdev node is to the kiosk, decided from its capabilities and its siblings.
public enum DeviceRole: Sendable, Equatable {
    /// Has letter keys.
    case keyboard
    /// Relative X/Y and a left button.
    case mouse
    /// A multi-touch pointer surface that is not part of a pad (moves the pointer).
    case touchpad(x: AxisRange, y: AxisRange)
    /// An absolute pointing device — a tablet, a single-touch screen, a VM's tablet: ABS_X/ABS_Y
    /// give the pointer's place on the screen (BTN_TOUCH and the stylus buttons click).
    case absolutePointer(x: AxisRange, y: AxisRange)
    /// A game controller (BTN_SOUTH / BTN_GAMEPAD, or an SDL mapping names it).
    case gamepad(PadDescription)
    /// A pad's touch surface node (DualSense): `controller` is the pad node's device id.
    case padTouchpad(controller: Int, x: AxisRange, y: AxisRange)
    /// A pad's motion-sensor node (INPUT_PROP_ACCELEROMETER): accel on ABS_X/Y/Z, gyro on
    /// ABS_RX/RY/RZ, each with its resolution.
    case padMotion(controller: Int, accel: [AxisRange], gyro: [AxisRange])
}

/// A pad as the mapping needs it.
public struct PadDescription: Sendable, Equatable {
    public var kind: GamepadKind
    /// Serial / Bluetooth address (`uniq`), the key of a stable slot.
    public var uniq: String?
    public var layout: GamepadLayout
    /// Ranges of the ABS codes the layout reads, by code.
    public var ranges: [UInt16: AxisRange]
    /// The pad has analog triggers (else BTN_TL2/TR2 become 0/255).
    public var analogTriggers: Bool
    /// Force feedback (FF_RUMBLE) is there.
    public var hasRumble: Bool

    public init(kind: GamepadKind, uniq: String?, layout: GamepadLayout, ranges: [UInt16: AxisRange],
                analogTriggers: Bool, hasRumble: Bool = false) {
        self.kind = kind; self.uniq = uniq; self.layout = layout; self.ranges = ranges
        self.analogTriggers = analogTriggers; self.hasRumble = hasRumble
    }

    /// The pad kind a USB/Bluetooth identity implies (Sony's DualSense 0x0CE6 / Edge 0x0DF2,
    /// DualShock 4; Microsoft's pads read as Xbox One, older ones as 360).
    public static func kind(vendor: UInt16, product: UInt16) -> GamepadKind {
        switch (vendor, product) {
        case (0x054C, 0x0CE6): .dualSense
        case (0x054C, 0x0DF2): .dualSenseEdge
        case (0x054C, 0x05C4), (0x054C, 0x09CC): .dualShock4
        case (0x045E, 0x028E), (0x045E, 0x028F), (0x045E, 0x0719): .xbox360
        case (0x045E, _): .xboxOne
        default: .auto
        }
    }
}
