/// Netlink messages as the kernel lays them out (linux/netlink.h, linux/genetlink.h), host byte
/// order: `nlmsghdr` (len u32, type u16, flags u16, seq u32, pid u32), for generic netlink a
/// `genlmsghdr` (cmd u8, version u8, reserved u16), then attributes — `nla_len u16 ‖ nla_type u16
/// ‖ payload`, each padded to 4 bytes; the type's top two bits are flags (nested, net byte order).
/// Pure: no socket (`GenericNetlink`, in PunktfunkSession, is the socket).
public enum NetlinkCodec {
    public static let headerLength = 16, genericHeaderLength = 4
    /// `NLMSG_ERROR`, `NLMSG_DONE`.
    public static let error: UInt16 = 2, done: UInt16 = 3
    /// `NLM_F_REQUEST`, `NLM_F_ACK`, `NLM_F_DUMP` (ROOT | MATCH), `NLM_F_MULTI`.
    public static let request: UInt16 = 0x1, ack: UInt16 = 0x4, dump: UInt16 = 0x300, multi: UInt16 = 0x2
    /// `NLA_TYPE_MASK`: the attribute's number without its flags.
    public static let typeMask: UInt16 = 0x3FFF

    /// One message: its header's type, flags and sequence, and the bytes after the header.
    public struct Message: Equatable, Sendable {
        public var type: UInt16, flags: UInt16, sequence: UInt32
        public var payload: ArraySlice<UInt8>

        /// A generic netlink message's command and attributes (nil: too short).
        public var generic: (command: UInt8, attributes: Attributes)? {
            guard payload.count >= genericHeaderLength else { return nil }
            return (payload[payload.startIndex], Attributes(payload.dropFirst(genericHeaderLength)))
        }

        /// `NLMSG_ERROR`'s error: 0 an acknowledgement, else a negative errno.
        public var errorCode: Int32? {
            guard type == NetlinkCodec.error, payload.count >= 4 else { return nil }
            return Int32(bitPattern: NetlinkCodec.u32(payload, payload.startIndex))
        }
    }

    /// Attributes by number (the first of each; flags masked off).
    public struct Attributes: Equatable, Sendable {
        public private(set) var values: [UInt16: ArraySlice<UInt8>] = [:]

        /// Reads attributes until the bytes end or one is malformed (its length short of the header
        /// or past the end): what came before it is kept.
        public init(_ bytes: ArraySlice<UInt8>) {
            var i = bytes.startIndex
            while bytes.endIndex - i >= 4 {
                let length = Int(NetlinkCodec.u16(bytes, i)), type = NetlinkCodec.u16(bytes, i + 2) & NetlinkCodec.typeMask
                guard length >= 4, i + length <= bytes.endIndex else { break }
                if values[type] == nil { values[type] = bytes[(i + 4)..<(i + length)] }
                i += (length + 3) & ~3
            }
        }

        public subscript(_ type: UInt16) -> ArraySlice<UInt8>? { values[type] }
        public func nested(_ type: UInt16) -> Attributes? { values[type].map(Attributes.init) }
        public func u8(_ type: UInt16) -> UInt8? { values[type].flatMap { $0.count >= 1 ? $0[$0.startIndex] : nil } }
        public func s8(_ type: UInt16) -> Int8? { u8(type).map { Int8(bitPattern: $0) } }
        public func u16(_ type: UInt16) -> UInt16? { values[type].flatMap { $0.count >= 2 ? NetlinkCodec.u16($0, $0.startIndex) : nil } }
        public func u32(_ type: UInt16) -> UInt32? { values[type].flatMap { $0.count >= 4 ? NetlinkCodec.u32($0, $0.startIndex) : nil } }
        /// A NUL-terminated (or not) string attribute.
        public func string(_ type: UInt16) -> String? {
            values[type].map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
    }

    /// Splits a datagram into its messages (a truncated last one is dropped).
    public static func messages(_ bytes: ArraySlice<UInt8>) -> [Message] {
        var out: [Message] = []
        var i = bytes.startIndex
        while bytes.endIndex - i >= headerLength {
            let length = Int(u32(bytes, i))
            guard length >= headerLength, i + length <= bytes.endIndex else { break }
            out.append(Message(type: u16(bytes, i + 4), flags: u16(bytes, i + 6), sequence: u32(bytes, i + 8),
                               payload: bytes[(i + headerLength)..<(i + length)]))
            i += (length + 3) & ~3
        }
        return out
    }

    /// A generic netlink request: `family`'s `command` (version 1) with `attributes` (number,
    /// payload) in order.
    public static func generic(family: UInt16, command: UInt8, flags: UInt16, sequence: UInt32,
                               attributes: [(UInt16, [UInt8])]) -> [UInt8] {
        var body: [UInt8] = [command, 1, 0, 0]
        for (type, value) in attributes { body += attribute(type, value) }
        var out: [UInt8] = []
        put32(&out, UInt32(headerLength + body.count)); put16(&out, family); put16(&out, flags)
        put32(&out, sequence); put32(&out, 0)
        return out + body
    }

    /// One attribute, padded to 4 bytes.
    public static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        put16(&out, UInt16(4 + value.count)); put16(&out, type)
        out += value
        out += [UInt8](repeating: 0, count: (4 - (value.count & 3)) & 3)
        return out
    }

    public static func le32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }

    // Host byte order is little-endian on every box this runs on (x86-64, AArch64 LE).
    static func u16(_ b: ArraySlice<UInt8>, _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    static func u32(_ b: ArraySlice<UInt8>, _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }
    private static func put16(_ out: inout [UInt8], _ v: UInt16) { out += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private static func put32(_ out: inout [UInt8], _ v: UInt32) { out += le32(v) }
}
