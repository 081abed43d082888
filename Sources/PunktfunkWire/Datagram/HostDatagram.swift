/// Every punktfunk/2 QUIC DATAGRAM a client receives, typed (data-plane.md §8.5).
///
/// Decoding reads the kind varint and decodes the payload; a self-tagged payload must start
/// with a tag its kind carries in the host → client direction, else it throws. Kinds only a
/// client sends (0x02 input, 0x03 feedback, a clock probe, 0xCB mic audio) throw
/// `.malformed`. Kinds outside the registry decode to `.unknown` so the caller can count and
/// drop them. Encoding (for a test host) is the exact inverse.
public enum HostDatagram: Hashable, Sendable {
    /// Kind 0x00: a v2 media packet (WebTransport-style carriers only), raw.
    case media([UInt8])
    /// Kind 0x01: 0xC9 / 0xD2 / 0xD3 / 0xD1 (never `.mic`).
    case audio(AudioPacket)
    /// Kind 0x04: the host's answer to a clock probe.
    case clockEcho(t1: UInt64, t2: UInt64, t3: UInt64)
    /// Kind 0x05.
    case rumble(Rumble)
    /// Kind 0x06.
    case hidOutput(HIDOutput)
    /// Kind 0x07.
    case cursor(CursorState)
    /// Kind 0x08.
    case hostTiming(HostTiming)
    /// Kind 0x09.
    case hdrMetadata(HDRMetadata)
    /// A kind this build does not know; drop it. - Precondition for encoding: `kind < 2^62`.
    case unknown(kind: UInt64, payload: [UInt8])

    public init(decoding datagram: [UInt8]) throws(WireError) {
        var (rawKind, r) = try QuicDatagram.unwrap(datagram)
        guard let kind = DatagramKind(rawValue: rawKind) else {
            self = .unknown(kind: rawKind, payload: r.readRest())
            return
        }
        switch kind {
        case .media: self = .media(r.readRest())
        case .audio:
            let packet = try AudioPacket.decode(from: &r)
            if case .mic = packet { throw .malformed("mic audio (0xCB) is client → host") }
            self = .audio(packet)
        case .clock:
            guard case let .echo(t1, t2, t3) = try ClockDatagram(fields: try r.remainingFields()) else {
                throw .malformed("clock probe is client → host")
            }
            self = .clockEcho(t1: t1, t2: t2, t3: t3)
        case .rumble: self = .rumble(try Rumble.decode(from: &r))
        case .hidOutput: self = .hidOutput(try HIDOutput.decode(from: &r))
        case .cursorState: self = .cursor(try CursorState.decode(from: &r))
        case .hostTiming: self = .hostTiming(try HostTiming.decode(from: &r))
        case .hdrMeta: self = .hdrMetadata(try HDRMetadataDatagram.decode(from: &r).metadata)
        case .inputState, .feedback: throw .malformed("datagram kind \(rawKind) is client → host")
        }
    }

    /// The whole QUIC DATAGRAM: kind varint ‖ payload.
    public var encoded: [UInt8] {
        var w = WireWriter()
        switch self {
        case .media(let bytes): w.writeVarInt(DatagramKind.media.rawValue); w.writeBytes(bytes)
        case .audio(let p): w.writeVarInt(DatagramKind.audio.rawValue); p.encode(into: &w)
        case let .clockEcho(t1, t2, t3):
            w.writeVarInt(DatagramKind.clock.rawValue)
            w.writeBytes(ClockDatagram.echo(t1: t1, t2: t2, t3: t3).body)
        case .rumble(let p): w.writeVarInt(DatagramKind.rumble.rawValue); p.encode(into: &w)
        case .hidOutput(let p): w.writeVarInt(DatagramKind.hidOutput.rawValue); p.encode(into: &w)
        case .cursor(let p): w.writeVarInt(DatagramKind.cursorState.rawValue); p.encode(into: &w)
        case .hostTiming(let p): w.writeVarInt(DatagramKind.hostTiming.rawValue); p.encode(into: &w)
        case .hdrMetadata(let m):
            w.writeVarInt(DatagramKind.hdrMeta.rawValue)
            HDRMetadataDatagram(m).encode(into: &w)
        case let .unknown(kind, payload): w.writeVarInt(kind); w.writeBytes(payload)
        }
        return w.bytes
    }
}
