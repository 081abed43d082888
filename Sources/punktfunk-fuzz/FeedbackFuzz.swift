import PunktfunkWire

/// Any bytes as a Feedback datagram body (kind 0x03 without its kind byte):
/// `FeedbackDatagram(body:)` either throws or gives a value whose encoding decodes to the same
/// value; a decoded NACK names 1…16 shards and only ever comes with an ask number ≠ 0; the
/// re-encoding is a fixed point (encoding the second decode gives the same bytes).
enum FeedbackFuzz {
    static func run(_ bytes: [UInt8]) {
        guard let first = try? FeedbackDatagram(body: bytes) else { return }
        check(first)
        let body = first.body
        let second: FeedbackDatagram
        do { second = try FeedbackDatagram(body: body) } catch {
            fatalError("feedback re-encoding does not decode (\(error)): \(first) → \(body)")
        }
        precondition(second == first, "feedback round trip differs: \(first) → \(second)")
        precondition(second.body == body, "feedback encoding is not a fixed point: \(first)")
    }

    static func check(_ d: FeedbackDatagram) {
        if let w = d.window { precondition(w.number != 0, "decoded a window numbered 0") }
        if let a = d.ask {
            precondition(a.number != 0, "decoded an ask numbered 0")
            if let n = a.nack {
                precondition(!n.shards.isEmpty, "decoded a NACK without shards")
                precondition(n.shards.count <= FeedbackDatagram.Nack.maxShards, "decoded a NACK of \(n.shards.count) shards")
            }
        }
    }
}
