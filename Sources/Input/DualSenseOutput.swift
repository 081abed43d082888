import PunktfunkWire

/// The DualSense's output state and the reports that carry it. Pure.
///
/// Layout facts (the kernel's hid-playstation; data-plane.md §7.2): a 47-byte common block —
/// `[0]` valid_flag0, `[1]` valid_flag1, `[2]` right (high-frequency) motor, `[3]` left
/// (low-frequency) motor, `[4…9]` audio control, `[8]` mic-mute LED, `[10…20]` R2 trigger
/// effect, `[21…31]` L2 trigger effect, `[37]` audio control 2, `[38]` valid_flag2, `[42]` LED
/// brightness, `[43]` player LEDs, `[44…46]` lightbar R G B. USB: report 0x02, the block at
/// byte 1, 63 bytes in all. Bluetooth: report 0x31, `[1]` sequence number << 4, `[2]` tag 0x10,
/// the block at byte 3, 78 bytes in all, the last 4 a little-endian CRC-32 over the seed byte
/// 0xA2 followed by bytes 0…73.
///
/// A report sets only the valid flags of what changed since the previous one, so the pad keeps
/// everything else as it is.
public struct DualSenseOutput: Sendable, Equatable {
    public enum Transport: Sendable, Equatable { case usb, bluetooth }

    public static let usbReportID: UInt8 = 0x02
    public static let usbReportLength = 63
    public static let bluetoothReportID: UInt8 = 0x31
    public static let bluetoothReportLength = 78
    public static let bluetoothTag: UInt8 = 0x10
    public static let bluetoothCRCSeed: UInt8 = 0xA2
    static let commonLength = 47

    // valid_flag0
    static let flag0Vibration: UInt8 = 0x01, flag0HapticsSelect: UInt8 = 0x02
    static let flag0RightTrigger: UInt8 = 0x04, flag0LeftTrigger: UInt8 = 0x08
    // valid_flag1
    static let flag1MicLED: UInt8 = 0x01, flag1Lightbar: UInt8 = 0x04, flag1ReleaseLEDs: UInt8 = 0x08
    static let flag1PlayerLEDs: UInt8 = 0x10
    // valid_flag2
    static let flag2Vibration2: UInt8 = 0x04

    /// What the host asked for (nil: never set, the pad keeps its own).
    public var motors: (right: UInt8, left: UInt8)?
    public var lightbar: (r: UInt8, g: UInt8, b: UInt8)?
    public var playerLEDs: UInt8?
    public var micLED: UInt8?
    /// R2 (`which` 1) and L2 (`which` 0) effect blocks, 11 bytes each as sent (zero-padded).
    public var rightTrigger: [UInt8]?
    public var leftTrigger: [UInt8]?
    /// AudioCtl: valid_flag0 bits and report bytes 5…10.
    public var audio: (flags: UInt8, raw: [UInt8])?

    public init() {}

    public static func == (a: DualSenseOutput, b: DualSenseOutput) -> Bool {
        a.motors?.right == b.motors?.right && a.motors?.left == b.motors?.left
            && a.lightbar?.r == b.lightbar?.r && a.lightbar?.g == b.lightbar?.g && a.lightbar?.b == b.lightbar?.b
            && a.playerLEDs == b.playerLEDs && a.micLED == b.micLED && a.rightTrigger == b.rightTrigger
            && a.leftTrigger == b.leftTrigger && a.audio?.flags == b.audio?.flags && a.audio?.raw == b.audio?.raw
    }

    /// Applies a 0xCD datagram. - Returns: false for kinds a DualSense does not take.
    public mutating func apply(_ output: HIDOutput) -> Bool {
        switch output {
        case let .led(_, r, g, b): lightbar = (r, g, b)
        case let .playerLEDs(_, bits): playerLEDs = bits & 0x1F
        case let .trigger(_, which, effect):
            let block = Array(effect.prefix(HIDOutput.triggerEffectMax)) + [UInt8](repeating: 0, count: max(0, HIDOutput.triggerEffectMax - effect.count))
            if which == 0 { leftTrigger = block } else if which == 1 { rightTrigger = block } else { return false }
        case let .micLED(_, mode): micLED = mode
        case let .audioControl(_, flags, raw): audio = (flags, raw)
        case .trackpadHaptic, .hidRaw: return false
        }
        return true
    }

    /// Rumble levels (0…0xFFFF) onto the motor bytes: low → left, high → right.
    public mutating func rumble(low: UInt16, high: UInt16) {
        motors = (right: UInt8(high >> 8), left: UInt8(low >> 8))
    }

    /// The 47-byte common block carrying every field that differs from `previous` (all set
    /// fields when `previous` is nil, e.g. after the pad reconnects).
    public func commonBlock(since previous: DualSenseOutput?) -> [UInt8] {
        var c = [UInt8](repeating: 0, count: Self.commonLength)
        let p = previous
        if let m = motors, p == nil || p?.motors?.right != m.right || p?.motors?.left != m.left {
            c[0] |= Self.flag0Vibration | Self.flag0HapticsSelect
            c[38] |= Self.flag2Vibration2
            c[2] = m.right
            c[3] = m.left
        }
        if let a = audio, p == nil || p?.audio?.flags != a.flags || p?.audio?.raw != a.raw {
            c[0] |= a.flags
            for (i, v) in a.raw.prefix(6).enumerated() { c[4 + i] = v }
        }
        if let t = rightTrigger, p == nil || p?.rightTrigger != t {
            c[0] |= Self.flag0RightTrigger
            c.replaceSubrange(10..<21, with: t)
        }
        if let t = leftTrigger, p == nil || p?.leftTrigger != t {
            c[0] |= Self.flag0LeftTrigger
            c.replaceSubrange(21..<32, with: t)
        }
        if let mic = micLED, p == nil || p?.micLED != mic {
            c[1] |= Self.flag1MicLED
            c[8] = mic
        }
        if let bits = playerLEDs, p == nil || p?.playerLEDs != bits {
            c[1] |= Self.flag1PlayerLEDs
            c[43] = bits
        }
        if let l = lightbar, p == nil || p?.lightbar?.r != l.r || p?.lightbar?.g != l.g || p?.lightbar?.b != l.b {
            c[1] |= Self.flag1Lightbar
            c[44] = l.r; c[45] = l.g; c[46] = l.b
        }
        return c
    }

    /// The block that ends a session: motors off, both trigger effects released (mode 0, enable
    /// bits set so the pad drops a latched effect) and the LEDs released to the pad's driver.
    public static func sessionEndBlock() -> [UInt8] {
        var c = [UInt8](repeating: 0, count: commonLength)
        c[0] = flag0Vibration | flag0HapticsSelect | flag0RightTrigger | flag0LeftTrigger
        c[1] = flag1ReleaseLEDs
        c[38] = flag2Vibration2
        return c
    }

    /// Whether a block sets nothing (no report needed).
    public static func isEmpty(_ block: [UInt8]) -> Bool { block[0] == 0 && block[1] == 0 && block[38] == 0 }

    /// The output report for `transport`; `sequence` is the Bluetooth sequence number (0…15).
    public static func report(_ block: [UInt8], transport: Transport, sequence: UInt8) -> [UInt8] {
        switch transport {
        case .usb:
            var r = [UInt8](repeating: 0, count: usbReportLength)
            r[0] = usbReportID
            r.replaceSubrange(1..<(1 + commonLength), with: block)
            return r
        case .bluetooth:
            var r = [UInt8](repeating: 0, count: bluetoothReportLength)
            r[0] = bluetoothReportID
            r[1] = (sequence & 0x0F) << 4
            r[2] = bluetoothTag
            r.replaceSubrange(3..<(3 + commonLength), with: block)
            let crc = bluetoothCRC(r)
            r[74] = UInt8(truncatingIfNeeded: crc)
            r[75] = UInt8(truncatingIfNeeded: crc >> 8)
            r[76] = UInt8(truncatingIfNeeded: crc >> 16)
            r[77] = UInt8(truncatingIfNeeded: crc >> 24)
            return r
        }
    }

    /// CRC-32 (IEEE, reflected, as zlib) over the seed byte 0xA2 and `report[0..<74]`.
    public static func bluetoothCRC(_ report: [UInt8]) -> UInt32 {
        var crc = CRC32.update(0xFFFF_FFFF, byte: bluetoothCRCSeed)
        for b in report.prefix(bluetoothReportLength - 4) { crc = CRC32.update(crc, byte: b) }
        return ~crc
    }
}

/// CRC-32/ISO-HDLC (polynomial 0xEDB88320 reflected), table-driven.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { i -> UInt32 in
        var c = UInt32(i)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func update(_ crc: UInt32, byte: UInt8) -> UInt32 {
        table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
    }
}
