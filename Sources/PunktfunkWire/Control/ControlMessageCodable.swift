/// One control-stream message with a fixed frame type: an encoder (`body`) and a decoder
/// (`init(body:)`) for the bytes after the frame header (control-plane.md §2.1).
///
/// Decoders never trap on hostile input; they throw `WireError`.
public protocol ControlMessageCodable: Sendable, Equatable {
    /// The frame type this message travels under.
    static var messageType: ControlMessageType { get }
    /// The frame body as written on the wire.
    var body: [UInt8] { get }
    /// Decodes a frame body of `messageType`.
    init(body: [UInt8]) throws(WireError)
}

extension ControlMessageCodable {
    /// This message as a frame (type + body).
    public var frame: ControlFrame { ControlFrame(type: Self.messageType.rawValue, body: body) }

    /// Header plus body, ready for the control stream.
    public var encoded: [UInt8] { frame.encoded }

    /// Decodes `frame`, which must carry `messageType`.
    public init(frame: ControlFrame) throws(WireError) {
        guard frame.type == Self.messageType.rawValue else {
            throw .malformed("frame type \(frame.type) is not \(Self.messageType)")
        }
        try self.init(body: frame.body)
    }
}

/// A message whose body is a sequence of tagged fields (control-plane.md §2.1). Conformers
/// write their fields in the spec's writer order and read them order-independently; unknown
/// tags are skipped and a repeated known tag throws `.duplicateField` (via `TaggedFields.value`).
public protocol TaggedControlMessage: ControlMessageCodable {
    /// Appends this message's fields in writer order.
    func write(to w: inout FieldWriter)
    /// Reads this message from parsed fields.
    init(fields: TaggedFields) throws(WireError)
}

extension TaggedControlMessage {
    public var body: [UInt8] {
        var w = FieldWriter()
        write(to: &w)
        return w.bytes
    }

    public init(body: [UInt8]) throws(WireError) {
        try self.init(fields: TaggedFields(body))
    }
}

// MARK: - Field helpers shared by the control codecs

extension TaggedFields {
    /// A 12-byte `Mode`, nil when absent; another length throws `.wrongLength`.
    func mode(_ tag: UInt64) throws(WireError) -> Mode? {
        guard let v = try value(tag) else { return nil }
        return try Mode(decoding: v)
    }

    /// A raw-valued wire enum or option set; nil when absent or when the value names no case.
    /// Integer width rules as `uint` (any 1…8, range-checked to the raw type).
    func raw<E: RawRepresentable>(_ tag: UInt64, as _: E.Type = E.self) throws(WireError) -> E?
    where E.RawValue: FixedWidthInteger & UnsignedInteger {
        guard let v: E.RawValue = try uint(tag) else { return nil }
        return E(rawValue: v)
    }

    /// A lenient label: absent, empty, longer than `maxBytes` or not UTF-8 all read as nil
    /// ("invalid → none", control-plane.md §3.2 tag 7). A repeated tag still throws.
    func label(_ tag: UInt64, maxBytes: Int) throws(WireError) -> String? {
        guard let v = try value(tag), !v.isEmpty, v.count <= maxBytes else { return nil }
        return String(validating: v, as: UTF8.self)
    }

    /// A bounded UTF-8 string defaulting to "" when absent; oversized or invalid throws.
    func text(_ tag: UInt64, maxBytes: Int) throws(WireError) -> String {
        try string(tag, maxBytes: maxBytes) ?? ""
    }

    /// A byte array that must be present with exactly `count` bytes.
    func requiredBytes(_ tag: UInt64, count: Int) throws(WireError) -> [UInt8] {
        guard let v = try bytes(tag, exactly: count) else { throw .missingField(tag: tag) }
        return v
    }
}

extension FieldWriter {
    /// A `Mode` as its 12-byte value.
    mutating func mode(_ tag: UInt64, _ m: Mode) { bytes(tag, m.encoded) }

    /// A raw-valued enum or option set at the raw type's natural width.
    mutating func raw<E: RawRepresentable>(_ tag: UInt64, _ e: E)
    where E.RawValue: FixedWidthInteger & UnsignedInteger {
        uint(tag, e.rawValue)
    }
}

// MARK: - String bounds

extension String {
    /// The longest prefix of at most `maxBytes` UTF-8 bytes that ends on a scalar boundary
    /// (the writer-side truncation of control-plane.md §3.2 tag 7).
    func pfTruncated(toUTF8 maxBytes: Int) -> String {
        guard utf8.count > maxBytes else { return self }
        var out = String.UnicodeScalarView()
        var used = 0
        for s in unicodeScalars {
            let n = UTF8.width(s)
            guard used + n <= maxBytes else { break }
            used += n
            out.append(s)
        }
        return String(out)
    }

    /// Trimmed of surrounding whitespace, control characters (Cc) dropped, then truncated to
    /// `maxBytes` on a scalar boundary — the host's label rule (client label, preset name,
    /// launch message). Whitespace the cut exposes is trimmed too, so this is idempotent.
    public func pfSanitisedLabel(maxBytes: Int) -> String {
        var scalars = unicodeScalars.filter { $0.properties.generalCategory != .control }
        while let f = scalars.first, f.properties.isWhitespace { scalars.removeFirst() }
        scalars = String(scalars).pfTruncated(toUTF8: maxBytes).unicodeScalars
        while let l = scalars.last, l.properties.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
