import CEvdev

/// The evdev event types and codes the mapping reads, as `UInt16` (the kernel's
/// `input-event-codes.h`, imported through CEvdev).
public enum EV {
    public static let syn = UInt16(EV_SYN), key = UInt16(EV_KEY), rel = UInt16(EV_REL), abs = UInt16(EV_ABS)
    public static let synReport = UInt16(SYN_REPORT), synDropped = UInt16(SYN_DROPPED)

    public static let relX = UInt16(REL_X), relY = UInt16(REL_Y)
    public static let relWheel = UInt16(REL_WHEEL), relHWheel = UInt16(REL_HWHEEL)
    public static let relWheelHiRes = UInt16(REL_WHEEL_HI_RES), relHWheelHiRes = UInt16(REL_HWHEEL_HI_RES)

    public static let btnLeft = UInt16(BTN_LEFT), btnRight = UInt16(BTN_RIGHT), btnMiddle = UInt16(BTN_MIDDLE)
    public static let btnSide = UInt16(BTN_SIDE), btnExtra = UInt16(BTN_EXTRA)
    public static let btnTouch = UInt16(BTN_TOUCH)
    public static let btnStylus = UInt16(BTN_STYLUS), btnStylus2 = UInt16(BTN_STYLUS2)

    public static let btnSouth = UInt16(BTN_SOUTH), btnEast = UInt16(BTN_EAST)
    /// 0x133: BTN_NORTH in gamepad.rst, BTN_X as xpad uses it.
    public static let btnNorth = UInt16(BTN_NORTH)
    /// 0x134: BTN_WEST in gamepad.rst, BTN_Y as xpad uses it.
    public static let btnWest = UInt16(BTN_WEST)
    public static let btnTL = UInt16(BTN_TL), btnTR = UInt16(BTN_TR), btnTL2 = UInt16(BTN_TL2), btnTR2 = UInt16(BTN_TR2)
    public static let btnSelect = UInt16(BTN_SELECT), btnStart = UInt16(BTN_START), btnMode = UInt16(BTN_MODE)
    public static let btnThumbL = UInt16(BTN_THUMBL), btnThumbR = UInt16(BTN_THUMBR)
    public static let btnDpadUp = UInt16(BTN_DPAD_UP), btnDpadDown = UInt16(BTN_DPAD_DOWN)
    public static let btnDpadLeft = UInt16(BTN_DPAD_LEFT), btnDpadRight = UInt16(BTN_DPAD_RIGHT)
    public static let btnTriggerHappy5 = UInt16(BTN_TRIGGER_HAPPY5)

    public static let absX = UInt16(ABS_X), absY = UInt16(ABS_Y), absZ = UInt16(ABS_Z)
    public static let absRX = UInt16(ABS_RX), absRY = UInt16(ABS_RY), absRZ = UInt16(ABS_RZ)
    public static let absHat0X = UInt16(ABS_HAT0X), absHat0Y = UInt16(ABS_HAT0Y)
    public static let absHat2X = UInt16(ABS_HAT2X), absHat2Y = UInt16(ABS_HAT2Y)
    public static let absMTSlot = UInt16(ABS_MT_SLOT), absMTTrackingID = UInt16(ABS_MT_TRACKING_ID)
    public static let absMTPositionX = UInt16(ABS_MT_POSITION_X), absMTPositionY = UInt16(ABS_MT_POSITION_Y)

    public static let keyQ = UInt16(KEY_Q)
}

/// One absolute axis's range (`struct input_absinfo`: minimum, maximum, resolution).
public struct AxisRange: Sendable, Equatable {
    public var minimum: Int32
    public var maximum: Int32
    /// Units per mm, per g (accelerometer) or per °/s (gyro); 0 when the driver does not say.
    public var resolution: Int32

    public init(minimum: Int32, maximum: Int32, resolution: Int32 = 0) {
        self.minimum = minimum; self.maximum = maximum; self.resolution = resolution
    }

    /// The value a stick rests at: the middle of the range, rounded up (0…255 rests at 128,
    /// −32768…32767 at 0), so a pad at rest reads exactly 0.
    public var centre: Int64 { (Int64(minimum) + Int64(maximum) + 1) >> 1 }

    /// `v` onto a stick's i16 range: `centre` → 0, `maximum` → 32767, `minimum` → −32768, each
    /// side scaled on its own; `invert` flips the sign (evdev +y is down, the wire's +y is up). A
    /// degenerate range reads as centred.
    public func stick(_ v: Int32, invert: Bool = false) -> Int16 {
        guard maximum > minimum else { return 0 }
        let c = centre, d = Int64(v) - c
        var x = d >= 0 ? Double(d) / Double(max(1, Int64(maximum) - c)) * 32767 : Double(d) / Double(max(1, c - Int64(minimum))) * 32768
        if invert { x = -x }
        return Int16(max(-32768, min(32767, x.rounded())))
    }

    /// `v` onto a trigger's 0…255.
    public func trigger(_ v: Int32) -> UInt8 {
        guard maximum > minimum else { return 0 }
        let x = (Double(v) - Double(minimum)) / (Double(maximum) - Double(minimum)) * 255
        return UInt8(max(0, min(255, x.rounded())))
    }
}
