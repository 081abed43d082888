/// A message body of tagged fields: `(tag varint ‖ length varint ‖ value[length])*`
/// (control-plane.md §2.1, also the Feedback and clock datagrams, data-plane.md §8.5).
///
/// Parsing checks every field length against the bytes left before trusting it; a field that
/// runs past the body rejects the whole message. Unknown tags are kept but never looked at, so
/// decoders skip them for free. Integer values are 1–8 bytes little-endian; readers accept any
/// width and range-check to the target type.
public struct TaggedFields: Sendable {
    public struct Field: Sendable {
        public let tag: UInt64
        public let value: ArraySlice<UInt8>
    }

    public let fields: [Field]

    public init(_ body: [UInt8]) throws(WireError) {
        try self.init(body, range: 0..<body.count)
    }

    public init(_ body: ArraySlice<UInt8>) throws(WireError) {
        let array = Array(body)
        try self.init(array, range: 0..<array.count)
    }

    public init(_ bytes: [UInt8], range: Range<Int>) throws(WireError) {
        var r = WireReader(bytes, range: range)
        var out: [Field] = []
        while !r.isAtEnd {
            let tag = try r.readVarInt()
            let length = try r.readVarInt()
            guard length <= UInt64(r.remaining) else {
                throw .fieldOverrun(tag: tag, length: length, remaining: r.remaining)
            }
            out.append(Field(tag: tag, value: try r.readSlice(Int(length))))
        }
        fields = out
    }

    /// The single value of `tag`, or nil when absent. Throws when the tag repeats.
    public func value(_ tag: UInt64) throws(WireError) -> ArraySlice<UInt8>? {
        var found: ArraySlice<UInt8>?
        for f in fields where f.tag == tag {
            guard found == nil else { throw .duplicateField(tag: tag) }
            found = f.value
        }
        return found
    }

    /// Every value of a tag that may repeat, in wire order.
    public func values(_ tag: UInt64) -> [ArraySlice<UInt8>] {
        fields.filter { $0.tag == tag }.map(\.value)
    }

    public func contains(_ tag: UInt64) -> Bool { fields.contains { $0.tag == tag } }

    /// An unsigned integer of any width 1…8, range-checked to `T`.
    public func uint<T: FixedWidthInteger & UnsignedInteger>(_ tag: UInt64, as _: T.Type = T.self) throws(WireError) -> T? {
        guard let v = try value(tag) else { return nil }
        return try Self.decodeUInt(v, tag: tag)
    }

    public func uint<T: FixedWidthInteger & UnsignedInteger>(_ tag: UInt64, default d: T) throws(WireError) -> T {
        try uint(tag, as: T.self) ?? d
    }

    public func requiredUInt<T: FixedWidthInteger & UnsignedInteger>(_ tag: UInt64, as _: T.Type = T.self) throws(WireError) -> T {
        guard let v: T = try uint(tag) else { throw .missingField(tag: tag) }
        return v
    }

    /// bool = one byte (a reader accepts any width), non-zero = true.
    public func bool(_ tag: UInt64) throws(WireError) -> Bool? {
        guard let v: UInt64 = try uint(tag) else { return nil }
        return v != 0
    }

    /// Raw bytes; `exactly` enforces a fixed length.
    public func bytes(_ tag: UInt64, exactly n: Int? = nil) throws(WireError) -> [UInt8]? {
        guard let v = try value(tag) else { return nil }
        if let n, v.count != n { throw .wrongLength(what: "field \(tag)", expected: n, found: v.count) }
        return Array(v)
    }

    /// A UTF-8 string of at most `maxBytes` bytes; invalid or oversized throws.
    public func string(_ tag: UInt64, maxBytes: Int) throws(WireError) -> String? {
        guard let v = try value(tag) else { return nil }
        guard v.count <= maxBytes, let s = String(validating: v, as: UTF8.self) else {
            throw .invalidString(tag: tag)
        }
        return s
    }

    static func decodeUInt<T: FixedWidthInteger & UnsignedInteger>(_ v: ArraySlice<UInt8>, tag: UInt64) throws(WireError) -> T {
        guard (1...8).contains(v.count) else { throw .integerWidth(tag: tag, width: v.count) }
        var x: UInt64 = 0
        for (i, b) in v.enumerated() { x |= UInt64(b) << (8 * i) }
        guard let t = T(exactly: x) else { throw .valueOutOfRange(tag: tag, value: x) }
        return t
    }
}

/// Builds a tagged-field body. Integers are written at their natural width (u8 = 1 byte, …).
public struct FieldWriter: Sendable {
    public private(set) var writer = WireWriter()

    public init() {}

    public var bytes: [UInt8] { writer.bytes }

    public mutating func bytes<S: Collection>(_ tag: UInt64, _ value: S) where S.Element == UInt8 {
        writer.writeVarInt(tag)
        writer.writeVarInt(UInt64(value.count))
        writer.writeBytes(value)
    }

    public mutating func uint<T: FixedWidthInteger & UnsignedInteger>(_ tag: UInt64, _ v: T) {
        writer.writeVarInt(tag)
        writer.writeVarInt(UInt64(MemoryLayout<T>.size))
        writer.writeLE(v)
    }

    public mutating func bool(_ tag: UInt64, _ v: Bool) { uint(tag, UInt8(v ? 1 : 0)) }

    public mutating func string(_ tag: UInt64, _ s: String) { bytes(tag, Array(s.utf8)) }
}
