/// [UI Command] codes of <User Control Pressed> (CEC 17, "UI Command"; `CEC_OP_UI_CMD_*` in
/// linux/cec.h) that a TV remote sends and the box gives a meaning. Codes not listed still
/// decode (`CECMessage.userControlPressed` carries the raw byte); they mean nothing here.
public enum CECUserControl {
    public static let select: UInt8 = 0x00
    public static let up: UInt8 = 0x01
    public static let down: UInt8 = 0x02
    public static let left: UInt8 = 0x03
    public static let right: UInt8 = 0x04
    public static let rootMenu: UInt8 = 0x09
    public static let setupMenu: UInt8 = 0x0A
    public static let contentsMenu: UInt8 = 0x0B
    /// "Exit" in CEC 1.4, "Back" in CEC 2.0.
    public static let back: UInt8 = 0x0D
    public static let mediaContextMenu: UInt8 = 0x11
    /// 0x20 is "0" (or "10"), 0x21…0x29 are "1"…"9".
    public static let number0: UInt8 = 0x20
    public static let number9: UInt8 = 0x29
    public static let enter: UInt8 = 0x2B
    public static let clear: UInt8 = 0x2C
    public static let channelUp: UInt8 = 0x30
    public static let channelDown: UInt8 = 0x31
    public static let play: UInt8 = 0x44
    public static let stop: UInt8 = 0x45
    public static let pause: UInt8 = 0x46
    public static let rewind: UInt8 = 0x48
    public static let fastForward: UInt8 = 0x49
    public static let skipForward: UInt8 = 0x4B
    public static let skipBackward: UInt8 = 0x4C
    /// The remote's power key (a toggle).
    public static let power: UInt8 = 0x40
    public static let playFunction: UInt8 = 0x60
    public static let pausePlayFunction: UInt8 = 0x61
    public static let powerToggleFunction: UInt8 = 0x6B
    public static let powerOffFunction: UInt8 = 0x6C
    public static let powerOnFunction: UInt8 = 0x6D

    /// The digit of a number key, nil for other codes.
    public static func digit(_ code: UInt8) -> Int? {
        code >= number0 && code <= number9 ? Int(code - number0) : nil
    }
}
