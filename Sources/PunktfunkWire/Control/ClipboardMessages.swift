/// Clipboard messages (control-plane.md §5.1). 0x40–0x42 ride the control stream; 0x43 is the
/// first frame of a `StreamType.transfer` stream and 0x44 its answer, after which raw bytes
/// follow until FIN (cancel = reset with `CloseCode.clipboardCancelled`).
public enum ClipboardLimits {
    /// Longest MIME type, bytes.
    public static let mimeMaxBytes = 128
    /// Most formats in one ClipOffer.
    public static let maxKinds = 16
}

/// ClipControl (0x40, client → host): turn the shared clipboard on or off.
public struct ClipControl: TaggedControlMessage {
    public static let messageType = ControlMessageType.clipControl
    /// `flags` bit 0x01: files too.
    public static let flagFiles: UInt8 = 0x01

    /// Tag 1.
    public var enabled: Bool
    /// Tag 2.
    public var flags: UInt8

    public init(enabled: Bool, flags: UInt8 = 0) {
        self.enabled = enabled
        self.flags = flags
    }

    public func write(to w: inout FieldWriter) {
        w.bool(1, enabled)
        w.uint(2, flags)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        enabled = try f.bool(1) ?? false
        flags = try f.uint(2, default: 0)
    }
}

/// ClipState (0x41, host → client): clipboard state and policy.
public struct ClipState: TaggedControlMessage {
    public static let messageType = ControlMessageType.clipState

    /// Tag 1.
    public var enabled: Bool
    /// Tag 2: 0x01 text, 0x02 files.
    public var policy: UInt8
    /// Tag 3: 0 ok, 1 backend unavailable, 2 taken over, 3 policy disabled, 4 no files,
    /// 5 not permitted.
    public var reason: UInt8

    public init(enabled: Bool, policy: UInt8, reason: UInt8) {
        self.enabled = enabled
        self.policy = policy
        self.reason = reason
    }

    public func write(to w: inout FieldWriter) {
        w.bool(1, enabled)
        w.uint(2, policy)
        w.uint(3, reason)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        enabled = try f.bool(1) ?? false
        policy = try f.uint(2, default: 0)
        reason = try f.uint(3, default: 0)
    }
}

/// One format of a ClipOffer.
public struct ClipKind: Hashable, Sendable {
    /// MIME type, ≤ 128 bytes.
    public var mime: String
    /// Expected size in bytes; 0 = unknown.
    public var sizeHint: UInt64

    public init(mime: String, sizeHint: UInt64) {
        self.mime = mime
        self.sizeHint = sizeHint
    }
}

/// ClipOffer (0x42, both directions): the formats on offer, no bytes.
///
/// Tag 2 repeats once per format as `mime ‖ size_hint u64` (the MIME length is the field's
/// minus 8). The writer sends at most 16 formats with MIME types truncated to 128 bytes; the
/// reader throws on more than 16 or on a malformed entry, and reads MIME bytes leniently
/// (invalid UTF-8 is replaced).
public struct ClipOffer: TaggedControlMessage {
    public static let messageType = ControlMessageType.clipOffer

    /// Tag 1.
    public var seq: UInt32
    /// Tag 2, repeated.
    public var kinds: [ClipKind]

    public init(seq: UInt32, kinds: [ClipKind]) {
        self.seq = seq
        self.kinds = kinds
    }

    public func write(to w: inout FieldWriter) {
        w.uint(1, seq)
        for k in kinds.prefix(ClipboardLimits.maxKinds) {
            var v = WireWriter()
            v.writeBytes(k.mime.pfTruncated(toUTF8: ClipboardLimits.mimeMaxBytes).utf8)
            v.writeLE(k.sizeHint)
            w.bytes(2, v.bytes)
        }
    }

    public init(fields f: TaggedFields) throws(WireError) {
        seq = try f.uint(1, default: 0)
        let entries = f.values(2)
        guard entries.count <= ClipboardLimits.maxKinds else {
            throw .malformed("ClipOffer with \(entries.count) formats (max \(ClipboardLimits.maxKinds))")
        }
        kinds = []
        for v in entries {
            guard v.count >= 8, v.count - 8 <= ClipboardLimits.mimeMaxBytes else { throw .invalidString(tag: 2) }
            var r = WireReader(v.suffix(8))
            let mime = String(decoding: v.dropLast(8), as: UTF8.self)
            kinds.append(ClipKind(mime: mime, sizeHint: try r.readLE()))
        }
    }
}

/// ClipFetch (0x43, first frame of a transfer stream): which format of which offer to pull.
public struct ClipFetch: TaggedControlMessage {
    public static let messageType = ControlMessageType.clipFetch
    /// `fileIndex` meaning "not a file".
    public static let noFile: UInt32 = 0xFFFF_FFFF

    /// Tag 1: the offer's sequence.
    public var seq: UInt32
    /// Tag 2.
    public var fileIndex: UInt32
    /// Tag 3: ≤ 128 bytes (longer throws).
    public var mime: String

    public init(seq: UInt32, fileIndex: UInt32 = noFile, mime: String) {
        self.seq = seq
        self.fileIndex = fileIndex
        self.mime = mime
    }

    public func write(to w: inout FieldWriter) {
        w.uint(1, seq)
        w.uint(2, fileIndex)
        w.string(3, mime)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        seq = try f.uint(1, default: 0)
        fileIndex = try f.uint(2, default: 0)
        mime = try f.text(3, maxBytes: ClipboardLimits.mimeMaxBytes)
    }
}

/// ClipFetchHeader (0x44, transfer stream answer; upstream `ClipFetchHdr`): status and size,
/// then the raw bytes until FIN.
public struct ClipFetchHeader: TaggedControlMessage {
    public static let messageType = ControlMessageType.clipFetchHeader

    /// Tag 1: 0 ok, 1 stale, 2 unavailable, 3 denied.
    public var status: UInt8
    /// Tag 2, bytes; 0 = unknown (stream until FIN).
    public var totalSize: UInt64

    public init(status: UInt8, totalSize: UInt64) {
        self.status = status
        self.totalSize = totalSize
    }

    public func write(to w: inout FieldWriter) {
        w.uint(1, status)
        w.uint(2, totalSize)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        status = try f.uint(1, default: 0)
        totalSize = try f.uint(2, default: 0)
    }
}
