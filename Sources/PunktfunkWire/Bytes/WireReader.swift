/// A cursor over a byte array for the control plane and datagram codecs.
///
/// Invariant: `start <= offset <= end <= bytes.count`. Every read checks `remaining` first and
/// throws `WireError.truncated` instead of reading past `end`. Multi-byte integers are
/// little-endian unless the method name says `BE` (data-plane.md conventions); QUIC varints are
/// big-endian by RFC 9000 §16.
public struct WireReader: Sendable {
    public let bytes: [UInt8]
    public private(set) var offset: Int
    public let end: Int

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.offset = 0
        self.end = bytes.count
    }

    public init(_ slice: ArraySlice<UInt8>) {
        self.init(Array(slice))
    }

    /// A reader limited to `range` of `bytes`. - Precondition: `range` lies within `bytes`.
    public init(_ bytes: [UInt8], range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count)
        self.bytes = bytes
        self.offset = range.lowerBound
        self.end = range.upperBound
    }

    public var remaining: Int { end - offset }
    public var isAtEnd: Bool { offset == end }

    @inline(__always)
    func need(_ n: Int) throws(WireError) {
        guard n >= 0, n <= remaining else {
            throw .truncated(needed: n, available: remaining)
        }
    }

    public mutating func readByte() throws(WireError) -> UInt8 {
        try need(1)
        defer { offset += 1 }
        return bytes[offset]
    }

    public func peekByte() throws(WireError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated(needed: 1, available: 0) }
        return bytes[offset]
    }

    /// The next `count` bytes as a slice of the underlying array (no copy).
    public mutating func readSlice(_ count: Int) throws(WireError) -> ArraySlice<UInt8> {
        try need(count)
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    public mutating func readBytes(_ count: Int) throws(WireError) -> [UInt8] {
        Array(try readSlice(count))
    }

    /// Everything up to `end`.
    public mutating func readRest() -> [UInt8] {
        defer { offset = end }
        return Array(bytes[offset..<end])
    }

    public mutating func skip(_ count: Int) throws(WireError) {
        try need(count)
        offset += count
    }

    /// A little-endian fixed-width integer.
    public mutating func readLE<T: FixedWidthInteger>(_: T.Type = T.self) throws(WireError) -> T {
        let n = MemoryLayout<T>.size
        try need(n)
        var v: T = 0
        for i in 0..<n { v |= T(truncatingIfNeeded: bytes[offset + i]) << (8 * i) }
        offset += n
        return v
    }

    /// A big-endian fixed-width integer.
    public mutating func readBE<T: FixedWidthInteger>(_: T.Type = T.self) throws(WireError) -> T {
        let n = MemoryLayout<T>.size
        try need(n)
        var v: T = 0
        for i in 0..<n { v = (v << 8) | T(truncatingIfNeeded: bytes[offset + i]) }
        offset += n
        return v
    }

    /// A QUIC variable-length integer (RFC 9000 §16). Longer-than-needed forms are accepted.
    public mutating func readVarInt() throws(WireError) -> UInt64 {
        let first = try peekByte()
        let length = 1 << Int(first >> 6)
        try need(length)
        var v = UInt64(first & 0x3F)
        for i in 1..<length { v = (v << 8) | UInt64(bytes[offset + i]) }
        offset += length
        return v
    }
}
