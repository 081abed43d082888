/// Every way bytes from the network can fail to decode in `PunktfunkWire`.
///
/// Associated values say what was expected and what was found, so a log line or a test
/// failure names the exact defect. Decoders throw these; they never trap on bad input.
public enum WireError: Error, Equatable, Sendable {
    /// Fewer bytes than the encoding needs.
    case truncated(needed: Int, available: Int)
    /// A QUIC varint value above 2^62 − 1 was handed to an encoder.
    case varintTooLarge(UInt64)
    /// A frame's declared body length exceeds the bound for its type (control-plane.md §2.1),
    /// rejected before any of the body is buffered.
    case frameTooLong(type: UInt64, length: UInt64, limit: Int)
    /// A tagged field's declared length runs past the end of the message body.
    case fieldOverrun(tag: UInt64, length: UInt64, remaining: Int)
    /// A tag that may appear once appeared again.
    case duplicateField(tag: UInt64)
    /// A required field is absent.
    case missingField(tag: UInt64)
    /// An integer field was 0 or more than 8 bytes wide.
    case integerWidth(tag: UInt64, width: Int)
    /// An integer field's value does not fit its target type or legal range.
    case valueOutOfRange(tag: UInt64, value: UInt64)
    /// A fixed-size value (mode, session id, HDR body, …) had the wrong length.
    case wrongLength(what: String, expected: Int, found: Int)
    /// A string field was not valid UTF-8 or exceeded its byte bound.
    case invalidString(tag: UInt64)
    /// A tagged datagram's first byte is not the tag its kind requires.
    case wrongTag(expected: UInt8, found: UInt8)
    /// A value is outside the set the spec defines (reserved bits, unknown enum where the
    /// spec says refuse, inconsistent geometry, …).
    case malformed(String)
}
