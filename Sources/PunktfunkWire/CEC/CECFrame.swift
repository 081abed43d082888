/// One frame on the CEC bus (CEC 6, "Frame Description"): a header block — initiator in the high
/// nibble, destination in the low one — then, unless it is a poll, the opcode and up to 14
/// operand bytes. 16 bytes at most (`CEC_MAX_MSG_SIZE`).
///
/// Bytes from the bus are untrusted: `init(decoding:)` checks every length and never traps.
public struct CECFrame: Sendable, Equatable {
    /// The longest frame: header + opcode + 14 operands.
    public static let maxLength = 16

    /// 0…15.
    public var initiator: UInt8
    /// 0…15; 15 is broadcast.
    public var destination: UInt8
    /// nil: a poll (the header alone).
    public var message: CECMessage?

    /// - Precondition: both addresses are 0…15.
    public init(from initiator: UInt8, to destination: UInt8, _ message: CECMessage?) {
        precondition(initiator < 16 && destination < 16, "CEC logical addresses are 0…15")
        self.initiator = initiator
        self.destination = destination
        self.message = message
    }

    public var isBroadcast: Bool { destination == CECLogicalAddress.broadcast }

    /// - Throws: `WireError.truncated` for an empty frame or a message short of its operands,
    ///   `WireError.wrongLength` for more than 16 bytes.
    public init(decoding bytes: some Collection<UInt8>) throws(WireError) {
        let b = Array(bytes)
        guard !b.isEmpty else { throw .truncated(needed: 1, available: 0) }
        guard b.count <= Self.maxLength else { throw .wrongLength(what: "CEC frame", expected: Self.maxLength, found: b.count) }
        initiator = b[0] >> 4
        destination = b[0] & 0x0F
        message = b.count == 1 ? nil : try CECMessage(opcode: b[1], operands: b[2...])
    }

    /// The frame's bytes (1…16).
    public var encoded: [UInt8] {
        var out: [UInt8] = [initiator << 4 | destination]
        out.reserveCapacity(Self.maxLength)
        message?.encode(into: &out)
        return out
    }
}

extension CECFrame: CustomStringConvertible {
    public var description: String {
        let hex = encoded.map { String($0, radix: 16, uppercase: false) }.map { $0.count == 1 ? "0" + $0 : $0 }
        return hex.joined(separator: ":")
    }
}

/// Physical address helpers (CEC 8.7): four nibbles `a.b.c.d`, 0xFFFF invalid.
public enum CECPhysicalAddress {
    public static let invalid: UInt16 = 0xFFFF

    /// "1.0.0.0" for 0x1000.
    public static func text(_ a: UInt16) -> String {
        a == invalid ? "f.f.f.f" : "\(a >> 12).\(a >> 8 & 0xF).\(a >> 4 & 0xF).\(a & 0xF)"
    }
}
