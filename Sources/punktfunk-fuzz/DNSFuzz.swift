import PunktfunkWire

/// Any bytes as a received mDNS packet: `DNSMessage(decoding:)` either throws a `DNSError` or
/// gives a message whose encoding decodes to the same message (names within their limits by
/// construction); the discovery cache then takes it without trapping.
enum DNSFuzz {
    static func run(_ bytes: [UInt8]) {
        guard let message = try? DNSMessage(decoding: bytes) else { return }
        for record in message.records {
            precondition(record.name.wireLength <= 255, "decoded name of \(record.name.wireLength) bytes")
        }
        let again = try? DNSMessage(decoding: message.encoded())
        precondition(again == message, "DNS round trip differs: \(message)")
    }
}
