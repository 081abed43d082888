/// InputEvent frame (0x50, client → host, toward `HostCaps2.inputEdges` hosts): one key
/// press or release that must not be lost, in order with the others (control-plane.md §5.1,
/// data-plane.md §6.2). Upstream calls the v1 form `InputEdge`.
///
/// The body is *not* tagged fields: it is the 18-byte input event encoding itself, tag byte
/// 0xC8 included (`40 50 12 ‖ event`). This codec checks only the length and the tag byte; the
/// event's fields belong to the input-event codec.
public struct InputEdge: ControlMessageCodable {
    public static let messageType = ControlMessageType.inputEvent
    /// Length of an encoded input event.
    public static let eventLength = 18
    /// The event's first byte.
    public static let eventTag: UInt8 = 0xC8

    /// The raw 18-byte event, starting with 0xC8.
    public let event: [UInt8]

    /// nil unless `event` is 18 bytes starting with 0xC8.
    public init?(event: [UInt8]) {
        guard let checked = try? Self(body: event) else { return nil }
        self = checked
    }

    public var body: [UInt8] { event }

    public init(body: [UInt8]) throws(WireError) {
        guard body.count == Self.eventLength else {
            throw .wrongLength(what: "input event", expected: Self.eventLength, found: body.count)
        }
        guard body[0] == Self.eventTag else { throw .wrongTag(expected: Self.eventTag, found: body[0]) }
        event = body
    }
}

/// PadIdentity (0x51, client → host): a captured Steam Controller 2's USB serial and its
/// replies to Steam's feature queries, sent before the pad's arrival so the host's virtual pad
/// answers as the physical one.
///
/// Decoding throws when `slot` ≥ 4, the serial exceeds 32 bytes, `replies` exceeds 4096 bytes
/// or is not a whole `[len][request][len][reply]…` packing (each part ≤ 64 bytes).
public struct PadIdentity: TaggedControlMessage {
    public static let messageType = ControlMessageType.padIdentity
    /// Bounds in bytes: serial, whole packing, one packed part.
    public static let serialMaxBytes = 32
    public static let repliesMaxBytes = 4096
    public static let replyPartMaxBytes = 64

    /// Tag 1: pad index.
    public var pad: UInt8
    /// Tag 2: the USB serial string.
    public var serial: String
    /// Tag 3: packed `(request, reply)` pairs (`PadIdentity.pack`).
    public var replies: [UInt8]
    /// Tag 4: a Puck pad's slot 0–3; 0 for a cabled or Bluetooth pad.
    public var slot: UInt8

    public init(pad: UInt8, serial: String, replies: [UInt8] = [], slot: UInt8 = 0) {
        self.pad = pad
        self.serial = serial
        self.replies = replies
        self.slot = slot
    }

    public func write(to w: inout FieldWriter) {
        w.uint(1, pad)
        w.string(2, serial)
        w.bytes(3, replies)
        w.uint(4, slot)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        pad = try f.uint(1, default: 0)
        serial = try f.text(2, maxBytes: Self.serialMaxBytes)
        replies = try f.bytes(3) ?? []
        slot = try f.uint(4, default: 0)
        guard slot < 4 else { throw .valueOutOfRange(tag: 4, value: UInt64(slot)) }
        guard replies.count <= Self.repliesMaxBytes, Self.unpack(replies) != nil else {
            throw .malformed("PadIdentity replies are not a whole packing")
        }
    }

    /// Packs pairs as `[len][request][len][reply]…`, each part cut at 64 bytes.
    public static func pack(_ pairs: [(request: [UInt8], reply: [UInt8])]) -> [UInt8] {
        pairs.flatMap { p in
            [p.request, p.reply].flatMap { part in [UInt8(min(part.count, replyPartMaxBytes))] + part.prefix(replyPartMaxBytes) }
        }
    }

    /// The pairs `pack` packed; nil when a length runs past the end, exceeds 64, or a reply is
    /// missing.
    public static func unpack(_ bytes: [UInt8]) -> [(request: [UInt8], reply: [UInt8])]? {
        var r = WireReader(bytes)
        var parts: [[UInt8]] = []
        while !r.isAtEnd {
            guard let n = try? r.readByte(), Int(n) <= replyPartMaxBytes,
                  let part = try? r.readBytes(Int(n)) else { return nil }
            parts.append(part)
        }
        guard parts.count % 2 == 0 else { return nil }
        return stride(from: 0, to: parts.count, by: 2).map { (request: parts[$0], reply: parts[$0 + 1]) }
    }
}

/// PadFeature (0x52, host → client, under `FeatureBit.padWrites`): a feature report the host's
/// stack set on a pad's virtual device, id first, for the physical pad. `data` is 1…64 bytes.
public struct PadFeature: TaggedControlMessage {
    public static let messageType = ControlMessageType.padFeature
    /// Longest HID report (`HID_REPORT_MAX`).
    public static let dataMaxBytes = 64

    /// Tag 1: pad index.
    public var pad: UInt8
    /// Tag 2: the report, id first.
    public var data: [UInt8]

    public init(pad: UInt8, data: [UInt8]) {
        self.pad = pad
        self.data = data
    }

    public func write(to w: inout FieldWriter) {
        w.uint(1, pad)
        w.bytes(2, data)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        pad = try f.uint(1, default: 0)
        data = try f.bytes(2) ?? []
        guard (1...Self.dataMaxBytes).contains(data.count) else {
            throw .wrongLength(what: "pad feature report", expected: Self.dataMaxBytes, found: data.count)
        }
    }
}
