/// A self-tagged side-plane datagram: the first byte names the layout (0xC8…0xD3,
/// data-plane.md §5–§7). punktfunk/1 sends it as the whole QUIC DATAGRAM; punktfunk/2 prefixes a
/// kind varint that must agree with the tag (data-plane.md §8.5, `HostDatagram`, `ClientDatagram`).
///
/// Conformers implement the two primitives; `encoded` and `init(decoding:)` come for free.
/// Decoders check every length before reading, never trap, and throw `WireError`.
public protocol TaggedDatagram: Equatable, Sendable {
    /// Appends the datagram, tag byte first. Never fails.
    func encode(into writer: inout WireWriter)

    /// Decodes one datagram from `reader`, which is positioned on the tag byte; the datagram
    /// runs to `reader.end`. Layouts the spec calls extensible ignore bytes past their known
    /// prefix; the others take the rest as their payload.
    static func decode(from reader: inout WireReader) throws(WireError) -> Self
}

extension TaggedDatagram {
    /// The datagram's bytes, tag byte first.
    public var encoded: [UInt8] {
        var w = WireWriter()
        encode(into: &w)
        return w.bytes
    }

    /// Decodes a whole self-tagged datagram (no kind prefix).
    public init(decoding bytes: [UInt8]) throws(WireError) {
        var r = WireReader(bytes)
        self = try Self.decode(from: &r)
    }
}

extension WireReader {
    /// Consumes the tag byte and checks it against `expected`.
    mutating func readTag(_ expected: UInt8) throws(WireError) {
        let found = try readByte()
        guard found == expected else { throw .wrongTag(expected: expected, found: found) }
    }

    /// The bytes from `offset` to `end` parsed as tagged fields (Feedback and clock payloads,
    /// data-plane.md §8.5), without copying them.
    func remainingFields() throws(WireError) -> TaggedFields {
        try TaggedFields(bytes, range: offset..<end)
    }
}
