/// Every way a DNS message (RFC 1035 §4, as mDNS uses it: RFC 6762) can fail to decode or a name
/// fail to build. Decoders throw these; they never trap on bad input.
public enum DNSError: Error, Equatable, Sendable {
    /// The message ended inside a header, question, record or name: `needed` bytes at `offset`.
    case truncated(offset: Int, needed: Int)
    /// A label longer than 63 bytes (RFC 1035 §2.3.4), or a label length byte with the reserved
    /// top bits `01`/`10`.
    case badLabel(offset: Int, length: UInt8)
    /// A name longer than 255 bytes in wire form (RFC 1035 §2.3.4), counting every length byte
    /// and the root.
    case nameTooLong(offset: Int)
    /// A compression pointer that does not point strictly before the bytes of the name read so far
    /// (which rules out loops and forward references).
    case badPointer(offset: Int, target: Int)
    /// A record's data does not match its RDLENGTH or its type's layout.
    case badRecordData(type: UInt16, offset: Int, reason: String)
}

extension DNSError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .truncated(let offset, let needed): "DNS message truncated: \(needed) more bytes needed at offset \(offset)"
        case .badLabel(let offset, let length): "DNS label length byte 0x\(String(length, radix: 16)) at offset \(offset) is not allowed"
        case .nameTooLong(let offset): "DNS name at offset \(offset) is longer than 255 bytes"
        case .badPointer(let offset, let target): "DNS compression pointer at offset \(offset) to \(target) does not point backwards"
        case .badRecordData(let type, let offset, let reason): "DNS record of type \(type) at offset \(offset): \(reason)"
        }
    }
}
