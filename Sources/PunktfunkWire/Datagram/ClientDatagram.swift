/// Every punktfunk/2 QUIC DATAGRAM a client sends, typed (data-plane.md §8.5). Decoding is for
/// a test host: host-only kinds (0x00, 0x05–0x09, a clock echo, host audio tags) throw
/// `.malformed`, a payload tag its kind does not carry throws, and kinds outside the registry
/// decode to `.unknown`.
public enum ClientDatagram: Hashable, Sendable {
    /// Kind 0x02, tag 0xC8.
    case input(InputEvent)
    /// Kind 0x02, tag 0xCC.
    case richInput(RichInput)
    /// Kind 0x03.
    case feedback(FeedbackDatagram)
    /// Kind 0x01, tag 0xCB: microphone Opus.
    case mic(AudioFrame)
    /// Kind 0x04: t1 = client wall clock at send, ns.
    case clockProbe(t1: UInt64)
    /// A kind this build does not know. - Precondition for encoding: `kind < 2^62`.
    case unknown(kind: UInt64, payload: [UInt8])

    public init(decoding datagram: [UInt8]) throws(WireError) {
        var (rawKind, r) = try QuicDatagram.unwrap(datagram)
        guard let kind = DatagramKind(rawValue: rawKind) else {
            self = .unknown(kind: rawKind, payload: r.readRest())
            return
        }
        switch kind {
        case .inputState:
            switch try r.peekByte() {
            case InputEvent.tag: self = .input(try InputEvent.decode(from: &r))
            case RichInput.tag: self = .richInput(try RichInput.decode(from: &r))
            case let tag: throw .malformed("tag 0x\(String(tag, radix: 16)) is not carried by kind 0x02")
            }
        case .audio:
            try r.readTag(AudioPacket.micTag)
            self = .mic(try AudioFrame.decodeBody(from: &r))
        case .feedback:
            self = .feedback(try FeedbackDatagram(fields: try r.remainingFields()))
        case .clock:
            guard case .probe(let t1) = try ClockDatagram(fields: try r.remainingFields()) else {
                throw .malformed("clock echo is host → client")
            }
            self = .clockProbe(t1: t1)
        case .media, .rumble, .hidOutput, .cursorState, .hostTiming, .hdrMeta:
            throw .malformed("datagram kind \(rawKind) is host → client")
        }
    }

    /// The whole QUIC DATAGRAM: kind varint ‖ payload.
    public var encoded: [UInt8] {
        var w = WireWriter()
        switch self {
        case .input(let e): w.writeVarInt(DatagramKind.inputState.rawValue); e.encode(into: &w)
        case .richInput(let e): w.writeVarInt(DatagramKind.inputState.rawValue); e.encode(into: &w)
        case .feedback(let f): w.writeVarInt(DatagramKind.feedback.rawValue); w.writeBytes(f.body)
        case .mic(let f): w.writeVarInt(DatagramKind.audio.rawValue); AudioPacket.mic(f).encode(into: &w)
        case .clockProbe(let t1):
            w.writeVarInt(DatagramKind.clock.rawValue)
            w.writeBytes(ClockDatagram.probe(t1: t1).body)
        case let .unknown(kind, payload): w.writeVarInt(kind); w.writeBytes(payload)
        }
        return w.bytes
    }
}
