/// The punktfunk/2 QUIC DATAGRAM kinds: every datagram is `kind varint ‖ payload`
/// (data-plane.md §8.5, registry `DGRAM_*`). All kinds are below 0x40, so the varint is one byte.
public enum DatagramKind: UInt64, Sendable, CaseIterable {
    /// h→c: a v2 media packet, only on carriers without a raw UDP path (WebTransport).
    case media = 0x00
    /// both: 0xC9 Opus, 0xD2 RED, 0xD3 PCM, 0xD1 pad audio (h→c); 0xCB mic (c→h).
    case audio = 0x01
    /// c→h: 0xC8 input event, 0xCC rich input.
    case inputState = 0x02
    /// c→h: tagged fields (`FeedbackDatagram`, data-plane.md §8.7).
    case feedback = 0x03
    /// both: tagged fields, probe `{1: t1}` / echo `{1: t1, 2: t2, 3: t3}` (`ClockDatagram`).
    case clock = 0x04
    /// h→c: 0xCA.
    case rumble = 0x05
    /// h→c: 0xCD.
    case hidOutput = 0x06
    /// h→c: 0xD0.
    case cursorState = 0x07
    /// h→c: 0xCF.
    case hostTiming = 0x08
    /// h→c: 0xCE.
    case hdrMeta = 0x09

    /// The tag bytes a payload of this kind may start with (its own tag included, and it must
    /// agree with the kind). Empty for `media`, `feedback` and `clock`, whose payloads are
    /// not self-tagged.
    public var innerTags: [UInt8] {
        switch self {
        case .media, .feedback, .clock: return []
        case .audio: return [AudioPacket.opusTag, AudioPacket.redundantTag, AudioPacket.pcmTag,
                             AudioPacket.padTag, AudioPacket.micTag]
        case .inputState: return [InputEvent.tag, RichInput.tag]
        case .rumble: return [Rumble.tag]
        case .hidOutput: return [HIDOutput.tag]
        case .cursorState: return [CursorState.tag]
        case .hostTiming: return [HostTiming.tag]
        case .hdrMeta: return [HDRMetadataDatagram.tag]
        }
    }

    /// The kind a punktfunk/1 self-tagged datagram rides under, from its first byte.
    public init?(innerTag: UInt8) {
        guard let k = Self.allCases.first(where: { $0.innerTags.contains(innerTag) }) else { return nil }
        self = k
    }
}

/// Framing of a punktfunk/2 QUIC DATAGRAM: `kind varint ‖ payload` (data-plane.md §8.5).
/// `HostDatagram` and `ClientDatagram` build on these to type the payload.
public enum QuicDatagram {
    /// `kind ‖ payload`.
    public static func wrap<C: Collection>(_ kind: DatagramKind, _ payload: C) -> [UInt8] where C.Element == UInt8 {
        var w = WireWriter(capacity: payload.count + 1)
        w.writeVarInt(kind.rawValue)
        w.writeBytes(payload)
        return w.bytes
    }

    /// A punktfunk/1 self-tagged datagram under the kind its tag belongs to; nil for an
    /// empty datagram or a tag no kind carries.
    public static func wrap(tagged datagram: [UInt8]) -> [UInt8]? {
        guard let tag = datagram.first, let kind = DatagramKind(innerTag: tag) else { return nil }
        return wrap(kind, datagram)
    }

    /// Splits off the kind varint. The raw kind is returned so unknown kinds can be counted
    /// and dropped; the reader covers the payload without copying it.
    public static func unwrap(_ datagram: [UInt8]) throws(WireError) -> (kind: UInt64, payload: WireReader) {
        var r = WireReader(datagram)
        let kind = try r.readVarInt()
        return (kind, r)
    }
}
