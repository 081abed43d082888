/// Rich controller input, tag 0xCC: `CC ‖ kind u8 ‖ …` (data-plane.md §6.3). punktfunk/2 sends
/// it in kind 0x02 datagrams. Fixed layouts take their known prefix and ignore extra bytes.
public enum RichInput: TaggedDatagram, Hashable {
    /// Kind 1 (9 B): one touchpad contact; `x`/`y` 0…65535 across the pad, origin top-left,
    /// +y down; `active == false` lifts.
    case touchpad(pad: UInt8, finger: UInt8, active: Bool, x: UInt16, y: UInt16)
    /// Kind 2 (15 B): gyro in `Gamepad.gyroLSBPerDegreePerSecond` (20 LSB per °/s), accel in
    /// `Gamepad.accelLSBPerG` (10000 LSB per g; at rest `Gamepad.neutralAccel`).
    case motion(pad: UInt8, gyro: SIMD3<Int16>, accel: SIMD3<Int16>)
    /// Kind 3 (12 B): trackpad contact; `surface` 0 DualSense, 1 Steam left, 2 Steam right;
    /// `x`/`y` signed, centred, +y down; `pressure` 0 without a force sensor. The state byte
    /// carries bit 0 touching, bit 1 click; other bits are dropped.
    case touchpadEx(pad: UInt8, surface: UInt8, finger: UInt8, touching: Bool, click: Bool,
                    x: Int16, y: Int16, pressure: UInt16)
    /// Kind 4: a raw HID input report (≤ 64 bytes, report id first). A torn datagram decodes
    /// to the bytes that arrived; a declared length over 64 is clamped.
    case hidReport(pad: UInt8, data: [UInt8])
    /// Kind 5: a pen batch (`HOST_CAP_PEN`), kept as the opaque bytes after `CC 05` — its layout
    /// is not in the spec (data-plane.md §11 item 9).
    case pen([UInt8])

    public static let tag: UInt8 = 0xCC
    /// `HID_REPORT_MAX`.
    public static let hidReportMax = 64

    /// The kind byte after the tag.
    public var kind: UInt8 {
        switch self {
        case .touchpad: return 1
        case .motion: return 2
        case .touchpadEx: return 3
        case .hidReport: return 4
        case .pen: return 5
        }
    }

    public func encode(into w: inout WireWriter) {
        w.writeByte(Self.tag)
        w.writeByte(kind)
        switch self {
        case let .touchpad(pad, finger, active, x, y):
            w.writeBytes([pad, finger, active ? 1 : 0])
            w.writeLE(x)
            w.writeLE(y)
        case let .motion(pad, gyro, accel):
            w.writeByte(pad)
            for v in [gyro.x, gyro.y, gyro.z, accel.x, accel.y, accel.z] { w.writeLE(v) }
        case let .touchpadEx(pad, surface, finger, touching, click, x, y, pressure):
            w.writeBytes([pad, surface, finger, (touching ? 1 : 0) | (click ? 2 : 0)])
            w.writeLE(x)
            w.writeLE(y)
            w.writeLE(pressure)
        case let .hidReport(pad, data):
            let n = min(data.count, Self.hidReportMax)
            w.writeBytes([pad, UInt8(n)])
            w.writeBytes(data.prefix(n))
        case .pen(let bytes):
            w.writeBytes(bytes)
        }
    }

    public static func decode(from r: inout WireReader) throws(WireError) -> RichInput {
        try r.readTag(tag)
        let kind = try r.readByte()
        switch kind {
        case 1:
            try r.need(7)
            return .touchpad(pad: try r.readByte(), finger: try r.readByte(), active: try r.readByte() != 0,
                             x: try r.readLE(), y: try r.readLE())
        case 2:
            try r.need(13)
            let pad = try r.readByte()
            return .motion(pad: pad, gyro: try readVector(&r), accel: try readVector(&r))
        case 3:
            try r.need(10)
            let pad = try r.readByte(), surface = try r.readByte(), finger = try r.readByte()
            let state = try r.readByte()
            return .touchpadEx(pad: pad, surface: surface, finger: finger, touching: state & 1 != 0,
                               click: state & 2 != 0, x: try r.readLE(), y: try r.readLE(), pressure: try r.readLE())
        case 4:
            let pad = try r.readByte()
            let declared = Int(try r.readByte())
            return .hidReport(pad: pad, data: try r.readBytes(min(declared, hidReportMax, r.remaining)))
        case 5:
            return .pen(r.readRest())
        default:
            throw .malformed("rich input kind \(kind)")
        }
    }

    private static func readVector(_ r: inout WireReader) throws(WireError) -> SIMD3<Int16> {
        SIMD3(try r.readLE(), try r.readLE(), try r.readLE())
    }
}
