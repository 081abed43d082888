/// One audio datagram (data-plane.md §5). Host → client: 0xC9 Opus, 0xD2 redundant Opus,
/// 0xD3 PCM, 0xD1 pad audio; client → host: 0xCB mic. punktfunk/2 wraps each in kind 0x01.
///
/// Every form carries `seq u32 ‖ pts_ns u64` (the "audio stamp"): at offset 1 for
/// 0xC9/0xD2/0xD3/0xCB (a 13-byte header with the tag) and at offset 3 for 0xD1.
public enum AudioPacket: TaggedDatagram, Hashable {
    /// 0xC9: one 5 ms, 48 kHz Opus packet. An empty payload is DTX (play nothing, no PLC).
    case opus(AudioFrame)
    /// 0xD2: the primary Opus packet plus a copy of the previous one (RED, §5.2).
    case redundant(RedundantAudioFrame)
    /// 0xD3: interleaved little-endian PCM at the session's rate and depth (§5.3).
    case pcm(AudioFrame)
    /// 0xD1: DualSense haptics / speaker Opus for one pad (§5.4).
    case pad(PadAudioFrame)
    /// 0xCB: 10 ms mono Opus from the client's microphone (§5.5).
    case mic(AudioFrame)

    public static let opusTag: UInt8 = 0xC9
    public static let redundantTag: UInt8 = 0xD2
    public static let pcmTag: UInt8 = 0xD3
    public static let padTag: UInt8 = 0xD1
    public static let micTag: UInt8 = 0xCB

    /// Tag (1) + seq (4) + pts (8): the fixed header of 0xC9, 0xD3 and 0xCB.
    public static let headerLength = 13

    public var tag: UInt8 {
        switch self {
        case .opus: return Self.opusTag
        case .redundant: return Self.redundantTag
        case .pcm: return Self.pcmTag
        case .pad: return Self.padTag
        case .mic: return Self.micTag
        }
    }

    /// The sequence number, whatever the form.
    public var seq: UInt32 {
        switch self {
        case .opus(let f), .pcm(let f), .mic(let f): return f.seq
        case .redundant(let f): return f.seq
        case .pad(let f): return f.seq
        }
    }

    /// The presentation stamp in ns (session media clock on punktfunk/2, §8.6).
    public var ptsNs: UInt64 {
        switch self {
        case .opus(let f), .pcm(let f), .mic(let f): return f.ptsNs
        case .redundant(let f): return f.ptsNs
        case .pad(let f): return f.ptsNs
        }
    }

    public func encode(into w: inout WireWriter) {
        w.writeByte(tag)
        switch self {
        case .opus(let f), .pcm(let f), .mic(let f):
            w.writeAudioStamp(seq: f.seq, ptsNs: f.ptsNs)
            w.writeBytes(f.payload)
        case .redundant(let f):
            w.writeAudioStamp(seq: f.seq, ptsNs: f.ptsNs)
            // A primary longer than a u16 cannot be split on the wire: send its first 65535
            // bytes and no previous copy rather than a length that mis-splits (§5.2).
            let primaryLength = UInt16(clamping: f.primary.count)
            w.writeLE(primaryLength)
            w.writeBytes(f.primary.prefix(Int(primaryLength)))
            if f.primary.count == Int(primaryLength) { w.writeBytes(f.previous) }
        case .pad(let f):
            w.writeByte(f.pad)
            w.writeByte(f.kind.rawValue)
            w.writeAudioStamp(seq: f.seq, ptsNs: f.ptsNs)
            w.writeBytes(f.payload)
        }
    }

    public static func decode(from r: inout WireReader) throws(WireError) -> AudioPacket {
        let tag = try r.readByte()
        switch tag {
        case opusTag, pcmTag, micTag:
            let frame = try AudioFrame.decodeBody(from: &r)
            return tag == opusTag ? .opus(frame) : tag == pcmTag ? .pcm(frame) : .mic(frame)
        case redundantTag:
            let (seq, pts) = try r.readAudioStamp()
            let primaryLength = Int(try r.readLE(UInt16.self))
            let primary = try r.readBytes(primaryLength)   // throws when the split lies outside
            return .redundant(RedundantAudioFrame(seq: seq, ptsNs: pts, primary: primary, previous: r.readRest()))
        case padTag:
            let pad = try r.readByte()
            let kind = PadAudioKind(rawValue: try r.readByte())
            let (seq, pts) = try r.readAudioStamp()
            return .pad(PadAudioFrame(pad: pad, kind: kind, seq: seq, ptsNs: pts, payload: r.readRest()))
        default:
            throw .malformed("tag 0x\(String(tag, radix: 16)) is not an audio datagram")
        }
    }
}

/// The common body of 0xC9 Opus, 0xD3 PCM and 0xCB mic: `seq u32 ‖ pts_ns u64 ‖ payload`
/// (data-plane.md §5.1, §5.3, §5.5).
public struct AudioFrame: Hashable, Sendable {
    /// +1 per datagram (wrapping); a gap means a lost frame to conceal.
    public var seq: UInt32
    /// Capture stamp, ns.
    public var ptsNs: UInt64
    /// One Opus packet (empty = DTX) or raw PCM samples.
    public var payload: [UInt8]

    public init(seq: UInt32, ptsNs: UInt64, payload: [UInt8]) {
        self.seq = seq
        self.ptsNs = ptsNs
        self.payload = payload
    }

    /// Reads `seq ‖ pts_ns ‖ payload` after the tag byte; the payload runs to `r.end`.
    static func decodeBody(from r: inout WireReader) throws(WireError) -> AudioFrame {
        let (seq, pts) = try r.readAudioStamp()
        return AudioFrame(seq: seq, ptsNs: pts, payload: r.readRest())
    }
}

/// 0xD2 body: `seq u32 ‖ pts_ns u64 ‖ primary_len u16 ‖ primary ‖ previous` (data-plane.md §5.2).
public struct RedundantAudioFrame: Hashable, Sendable {
    public var seq: UInt32
    public var ptsNs: UInt64
    /// This datagram's Opus packet (frame `seq`). At most 65535 bytes.
    public var primary: [UInt8]
    /// A copy of frame `seq − 1`; empty = no predecessor (first frame, capture reopen).
    public var previous: [UInt8]

    public init(seq: UInt32, ptsNs: UInt64, primary: [UInt8], previous: [UInt8]) {
        self.seq = seq
        self.ptsNs = ptsNs
        self.primary = primary
        self.previous = previous
    }

    /// True when the datagram carries a copy of the previous frame.
    public var hasPrevious: Bool { !previous.isEmpty }
}

/// What a 0xD1 pad-audio frame drives (data-plane.md §5.4). Unknown values are kept.
public struct PadAudioKind: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// DualSense voice-coil haptics, 5 ms Opus.
    public static let haptics = PadAudioKind(rawValue: 0)
    /// Controller speaker, 10 ms Opus.
    public static let speaker = PadAudioKind(rawValue: 1)
}

/// 0xD1 body: `pad u8 ‖ kind u8 ‖ seq u32 ‖ pts_ns u64 ‖ Opus` (data-plane.md §5.4).
public struct PadAudioFrame: Hashable, Sendable {
    /// Wire pad index 0…15.
    public var pad: UInt8
    public var kind: PadAudioKind
    /// Per (pad, kind) sequence number.
    public var seq: UInt32
    public var ptsNs: UInt64
    /// One Opus packet; empty = DTX silence.
    public var payload: [UInt8]

    public init(pad: UInt8, kind: PadAudioKind, seq: UInt32, ptsNs: UInt64, payload: [UInt8]) {
        self.pad = pad
        self.kind = kind
        self.seq = seq
        self.ptsNs = ptsNs
        self.payload = payload
    }
}

// The audio stamp `seq u32 ‖ pts_ns u64`, shared by every audio form (data-plane.md §5).
extension WireWriter {
    mutating func writeAudioStamp(seq: UInt32, ptsNs: UInt64) {
        writeLE(seq)
        writeLE(ptsNs)
    }
}

extension WireReader {
    mutating func readAudioStamp() throws(WireError) -> (seq: UInt32, ptsNs: UInt64) {
        try need(12)
        return (try readLE(UInt32.self), try readLE(UInt64.self))
    }
}
