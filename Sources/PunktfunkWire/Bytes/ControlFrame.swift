/// One punktfunk/2 control-stream frame: `type varint ‖ length varint ‖ body[length]`
/// (control-plane.md §2.1).
public struct ControlFrame: Equatable, Sendable {
    public var type: UInt64
    public var body: [UInt8]

    public init(type: UInt64, body: [UInt8]) {
        self.type = type
        self.body = body
    }

    /// Header plus body, as written on the stream.
    public var encoded: [UInt8] {
        var w = WireWriter(capacity: body.count + 4)
        w.writeVarInt(type)
        w.writeVarInt(UInt64(body.count))
        w.writeBytes(body)
        return w.bytes
    }

    /// The largest body a reader buffers for `type` (registry `FRAMES` table,
    /// control-plane.md §2.1). Unknown types are bounded at 64 KiB, then skipped.
    public static func bodyLimit(forType type: UInt64) -> Int {
        switch type {
        case 0x01, 0x02: return 16 * 1024            // ClientHello, ServerHello
        case 0x03: return 256                         // Ready
        case 0x04, 0x05, 0x06: return 1024            // Pending, Redirect, Refused
        case 0x10: return 4096                        // PairRequest
        case 0x11: return 1024                        // PairChallenge
        case 0x12, 0x13, 0x14: return 256             // PairProof, PairResult, AuthChallenge
        case 0x15: return 1024                        // AuthResponse
        case 0x20, 0x21: return 1024                  // Reconfigure, Reconfigured
        case 0x22: return 4096                        // StreamConfig
        case 0x23: return 1024                        // AudioConfig
        case 0x30: return 128 * 1024                  // CursorShape
        case 0x34: return 1024                        // LaunchOutcome
        case 0x42: return 8 * 1024                    // ClipOffer
        case 0x43: return 1024                        // ClipFetch
        case 0x51: return 8 * 1024                    // PadIdentity
        case 0x24...0x26, 0x2B...0x2D, 0x31...0x33, 0x35, 0x38...0x3B, 0x40, 0x41, 0x44, 0x50, 0x52:
            return 256
        default: return 64 * 1024
        }
    }

    /// Decodes exactly one frame from `bytes` (no trailing bytes allowed).
    public static func decode(_ bytes: [UInt8]) throws(WireError) -> ControlFrame {
        var reader = FrameReader()
        reader.append(bytes)
        guard let f = try reader.next() else {
            throw .truncated(needed: bytes.count + 1, available: bytes.count)
        }
        guard reader.bufferedCount == 0 else { throw .malformed("trailing bytes after frame") }
        return f
    }
}

/// Cuts a byte stream into `ControlFrame`s.
///
/// Invariant: `buffer[consumed...]` holds the bytes not yet returned as frames. A frame whose
/// declared length exceeds `ControlFrame.bodyLimit(forType:)` throws as soon as its header is
/// complete — before its body is buffered — so a hostile peer cannot make the reader hold more
/// than one bounded frame. After a throw the stream is unusable (the session closes it).
public struct FrameReader: Sendable {
    private var buffer: [UInt8] = []
    private var consumed = 0

    public init() {}

    public var bufferedCount: Int { buffer.count - consumed }

    public mutating func append<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        if consumed > 0 && consumed == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            consumed = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, nil when more bytes are needed.
    public mutating func next() throws(WireError) -> ControlFrame? {
        var r = WireReader(buffer, range: consumed..<buffer.count)
        guard let type = try? r.readVarInt(), let length = try? r.readVarInt() else {
            return nil
        }
        let limit = ControlFrame.bodyLimit(forType: type)
        guard length <= UInt64(limit) else {
            throw .frameTooLong(type: type, length: length, limit: limit)
        }
        guard r.remaining >= Int(length) else { return nil }
        let body = try r.readBytes(Int(length))
        consumed = r.offset
        if consumed > 64 * 1024 {
            buffer.removeFirst(consumed)
            consumed = 0
        }
        return ControlFrame(type: type, body: body)
    }
}

/// The varint every QUIC stream begins with in its opener's direction (control-plane.md §2.1).
public enum StreamType: UInt64, Sendable, CaseIterable {
    case control = 0x00
    case input = 0x01
    case transfer = 0x02
    case management = 0x03
}
