/// Appends wire encodings to a growing byte array (control plane and datagrams).
/// Integers are little-endian unless the method says `BE`; varints use the shortest form.
public struct WireWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public var count: Int { bytes.count }

    public mutating func writeByte(_ b: UInt8) { bytes.append(b) }

    public mutating func writeBytes<S: Sequence>(_ s: S) where S.Element == UInt8 {
        bytes.append(contentsOf: s)
    }

    public mutating func writeLE<T: FixedWidthInteger>(_ v: T) {
        for i in 0..<MemoryLayout<T>.size { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }

    public mutating func writeBE<T: FixedWidthInteger>(_ v: T) {
        let n = MemoryLayout<T>.size
        for i in 0..<n { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * (n - 1 - i)))) }
    }

    /// A QUIC varint in its shortest form. - Precondition: `v < 2^62` (callers encode
    /// lengths, tags and types, all far below it).
    public mutating func writeVarInt(_ v: UInt64) {
        precondition(v <= VarInt.max, "varint out of range")
        switch v {
        case 0..<64:
            bytes.append(UInt8(v))
        case 64..<16384:
            writeBE(UInt16(v) | 0x4000)
        case 16384..<(1 << 30):
            writeBE(UInt32(v) | 0x8000_0000)
        default:
            writeBE(v | 0xC000_0000_0000_0000)
        }
    }

    /// Overwrites bytes already written (used to back-patch lengths).
    public mutating func overwrite(at index: Int, with b: UInt8) { bytes[index] = b }
}

/// QUIC variable-length integers (RFC 9000 §16).
public enum VarInt {
    public static let max: UInt64 = (1 << 62) - 1

    /// Bytes the shortest encoding of `v` takes.
    public static func encodedLength(_ v: UInt64) -> Int {
        switch v {
        case 0..<64: return 1
        case 64..<16384: return 2
        case 16384..<(1 << 30): return 4
        default: return 8
        }
    }

    public static func encode(_ v: UInt64) -> [UInt8] {
        var w = WireWriter(capacity: 8)
        w.writeVarInt(v)
        return w.bytes
    }
}
