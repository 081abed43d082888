/// Host cursor position and visibility, tag 0xD0 (data-plane.md §7.3; punktfunk/2 kind 0x07):
/// `D0 ‖ serial u32 ‖ flags u8 ‖ x i32 ‖ y i32` (14 bytes; extensible — extra bytes ignored).
/// Sent once per captured frame, latest wins. The image comes on the control stream
/// (`CursorShape`, matched by `serial`); keep the previous shape until it arrives.
public struct CursorState: TaggedDatagram, Hashable {
    public struct Flags: OptionSet, Hashable, Sendable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Draw the cursor.
        public static let visible = Flags(rawValue: 0x01)
        /// The host app captured the pointer; run relative mode (advisory).
        public static let relativeHint = Flags(rawValue: 0x02)
    }

    public static let tag: UInt8 = 0xD0
    public static let encodedLength = 14

    /// `CursorShape` serial.
    public var serial: UInt32
    /// Unknown bits are kept.
    public var flags: Flags
    /// Hotspot in host output pixels (the video mode's space).
    public var x: Int32
    public var y: Int32

    public init(serial: UInt32, flags: Flags, x: Int32, y: Int32) {
        self.serial = serial
        self.flags = flags
        self.x = x
        self.y = y
    }

    public func encode(into w: inout WireWriter) {
        w.writeByte(Self.tag)
        w.writeLE(serial)
        w.writeByte(flags.rawValue)
        w.writeLE(x)
        w.writeLE(y)
    }

    public static func decode(from r: inout WireReader) throws(WireError) -> CursorState {
        try r.readTag(tag)
        try r.need(encodedLength - 1)
        return CursorState(serial: try r.readLE(), flags: Flags(rawValue: try r.readByte()),
                           x: try r.readLE(), y: try r.readLE())
    }
}
