/// A message with no fields of its own. Its body is written empty; a reader still parses the
/// body as tagged fields (so a malformed body throws) and skips whatever tags it holds.
public protocol EmptyControlMessage: TaggedControlMessage {
    init()
}

extension EmptyControlMessage {
    public func write(to w: inout FieldWriter) {}
    public init(fields: TaggedFields) throws(WireError) { self.init() }
}

/// Ready (0x03, client → host): decoder and reassembler exist; send the first frame. Wire
/// form `03 00` (control-plane.md §3.4).
public struct Ready: EmptyControlMessage {
    public static let messageType = ControlMessageType.ready
    public init() {}
}

/// Pending (0x04, host → client): still deciding (console approval); sent immediately, then
/// every 10 s for up to 180 s. The client keeps reading (control-plane.md §3.4).
public struct Pending: EmptyControlMessage {
    public static let messageType = ControlMessageType.pending
    public init() {}
}

/// Redirect (0x05, host → client, instead of ServerHello; only toward `FeatureBit.profiles`
/// clients): dial `addr:port` once with the same ClientHello (control-plane.md §3.4).
///
/// Every tag is always written (empty strings as zero-length fields). Decoding throws on port 0,
/// on a string over its bound or not UTF-8, and on a pin that is neither empty nor 64 hex digits.
public struct Redirect: TaggedControlMessage {
    public static let messageType = ControlMessageType.redirect
    /// Field bounds in UTF-8 bytes; `pinLength` is exact (or 0).
    public static let addrMaxBytes = 253
    public static let profileMaxBytes = 64
    public static let seatLabelMaxBytes = 64
    public static let pinLength = 64

    /// Tag 1: host name or IP literal; empty = the address already dialled.
    public var addr: String
    /// Tag 2: UDP port, never 0.
    public var port: UInt16
    /// Tag 3: the profile the host resolved.
    public var profile: String
    /// Tag 4.
    public var seatNumber: UInt8
    /// Tag 5.
    public var seatName: String
    /// Tag 6: the device already on that seat, when joining a live session.
    public var occupant: String
    /// Tag 7: the new host's SHA-256 certificate fingerprint as 64 hex digits; empty keeps the
    /// pin already in use.
    public var pin: String

    public init(addr: String = "", port: UInt16, profile: String = "", seatNumber: UInt8 = 0,
                seatName: String = "", occupant: String = "", pin: String = "") {
        self.addr = addr
        self.port = port
        self.profile = profile
        self.seatNumber = seatNumber
        self.seatName = seatName
        self.occupant = occupant
        self.pin = pin
    }

    public func write(to w: inout FieldWriter) {
        w.string(1, addr)
        w.uint(2, port)
        w.string(3, profile)
        w.uint(4, seatNumber)
        w.string(5, seatName)
        w.string(6, occupant)
        w.string(7, pin)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        addr = try f.text(1, maxBytes: Self.addrMaxBytes)
        port = try f.uint(2, default: 0)
        guard port != 0 else { throw .valueOutOfRange(tag: 2, value: 0) }
        profile = try f.text(3, maxBytes: Self.profileMaxBytes)
        seatNumber = try f.uint(4, default: 0)
        seatName = try f.text(5, maxBytes: Self.seatLabelMaxBytes)
        occupant = try f.text(6, maxBytes: Self.seatLabelMaxBytes)
        pin = try f.text(7, maxBytes: Self.pinLength)
        guard pin.isEmpty || (pin.utf8.count == Self.pinLength && pin.utf8.allSatisfy(\.pfIsHexDigit)) else {
            throw .malformed("redirect pin is neither empty nor 64 hex digits")
        }
    }
}

/// Refused (0x06, host → client, browser plane): why the close that follows happens
/// (control-plane.md §3.4). Native clients read the QUIC close code and reason instead.
public struct Refused: TaggedControlMessage {
    public static let messageType = ControlMessageType.refused
    /// Bound on `reason`, UTF-8 bytes.
    public static let reasonMaxBytes = 256

    /// Tag 1: a close code (§3.5).
    public var code: UInt32
    /// Tag 2: human sentence, ≤ 256 UTF-8 bytes (longer throws on decode).
    public var reason: String

    public init(code: UInt32, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `code` as a typed close code.
    public var closeCode: CloseCode { CloseCode(code: UInt64(code)) }

    public func write(to w: inout FieldWriter) {
        w.uint(1, code)
        w.string(2, reason)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        code = try f.uint(1, default: 0)
        reason = try f.text(2, maxBytes: Self.reasonMaxBytes)
    }
}

private extension UInt8 {
    /// `0-9a-fA-F`.
    var pfIsHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
