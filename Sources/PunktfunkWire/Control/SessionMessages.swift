/// Mid-stream control messages (control-plane.md §5.1). Every field is always written (zero and
/// empty included) unless noted, and an absent field reads as zero/empty/false.

/// Reconfigure (0x20, client → host): switch the display mode without reconnecting.
public struct Reconfigure: TaggedControlMessage {
    public static let messageType = ControlMessageType.reconfigure
    /// Tag 1.
    public var mode: Mode
    public init(mode: Mode) { self.mode = mode }
    public func write(to w: inout FieldWriter) { w.mode(1, mode) }
    public init(fields f: TaggedFields) throws(WireError) { mode = try f.mode(1) ?? .zero }
}

/// Reconfigured (0x21, host → client): the answer to a Reconfigure; on reject `mode` is the
/// mode still active.
public struct Reconfigured: TaggedControlMessage {
    public static let messageType = ControlMessageType.reconfigured
    /// Tag 1.
    public var accepted: Bool
    /// Tag 2.
    public var mode: Mode

    public init(accepted: Bool, mode: Mode) {
        self.accepted = accepted
        self.mode = mode
    }

    public func write(to w: inout FieldWriter) {
        w.bool(1, accepted)
        w.mode(2, mode)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        accepted = try f.bool(1) ?? false
        mode = try f.mode(2) ?? .zero
    }
}

/// StreamConfig (0x22, host → client): the video stream from epoch `epoch` on, sent before
/// that epoch's first packet (epoch 0 right after Ready). A host fact of 0 means its OS did not
/// say. Absent colour reads as all-zero bytes (upstream's default), not as SDR.
public struct StreamConfig: TaggedControlMessage {
    public static let messageType = ControlMessageType.streamConfig

    /// Tag 1.
    public var epoch: UInt8
    /// Tag 2.
    public var mode: Mode
    /// Tag 3: one codec bit.
    public var codec: VideoCodecs
    /// Tag 4: 8 or 10.
    public var bitDepth: UInt8
    /// Tag 5: CICP `[primaries, transfer, matrix, full_range]`.
    public var color: ColorInfo
    /// Tag 6: HEVC chroma_format_idc as sent.
    public var chromaFormat: UInt8
    /// Tag 7.
    public var hostInterfaceKind: InterfaceKind
    /// Tag 8, Mbit/s.
    public var hostLinkMbps: UInt32
    /// Tag 9: the host data socket's send buffer, KiB.
    public var hostSendBufferKB: UInt32
    /// Tag 10: what the host operator pinned: 0 none, then auto, wake, burst, smooth, capped.
    public var hostForcedShape: UInt8

    /// The colour an absent tag 5 reads as.
    public static let zeroColor = ColorInfo(primaries: 0, transfer: 0, matrix: 0, fullRange: false)

    public init(epoch: UInt8 = 0, mode: Mode = .zero, codec: VideoCodecs = [], bitDepth: UInt8 = 0,
                color: ColorInfo = zeroColor, chromaFormat: UInt8 = 0, hostInterfaceKind: InterfaceKind = .unknown,
                hostLinkMbps: UInt32 = 0, hostSendBufferKB: UInt32 = 0, hostForcedShape: UInt8 = 0) {
        self.epoch = epoch
        self.mode = mode
        self.codec = codec
        self.bitDepth = bitDepth
        self.color = color
        self.chromaFormat = chromaFormat
        self.hostInterfaceKind = hostInterfaceKind
        self.hostLinkMbps = hostLinkMbps
        self.hostSendBufferKB = hostSendBufferKB
        self.hostForcedShape = hostForcedShape
    }

    public func write(to w: inout FieldWriter) {
        w.uint(1, epoch)
        w.mode(2, mode)
        w.raw(3, codec)
        w.uint(4, bitDepth)
        w.bytes(5, color.encoded)
        w.uint(6, chromaFormat)
        w.raw(7, hostInterfaceKind)
        w.uint(8, hostLinkMbps)
        w.uint(9, hostSendBufferKB)
        w.uint(10, hostForcedShape)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        self.init()
        epoch = try f.uint(1, default: 0)
        mode = try f.mode(2) ?? .zero
        codec = try f.raw(3) ?? []
        bitDepth = try f.uint(4, default: 0)
        if let v = try f.value(5) { color = try ColorInfo(decoding: v) }
        chromaFormat = try f.uint(6, default: 0)
        hostInterfaceKind = try f.raw(7) ?? .unknown
        hostLinkMbps = try f.uint(8, default: 0)
        hostSendBufferKB = try f.uint(9, default: 0)
        hostForcedShape = try f.uint(10, default: 0)
    }
}

/// AudioConfig (0x23, host → client): one audio stream's config from `epoch` on. Defined by
/// the registry; no host sender has been observed.
public struct AudioConfig: TaggedControlMessage {
    public static let messageType = ControlMessageType.audioConfig

    /// Tag 1.
    public var stream: UInt8
    /// Tag 2.
    public var epoch: UInt8
    /// Tag 3.
    public var codec: AudioCodec
    /// Tag 4, Hz.
    public var rateHz: UInt32
    /// Tag 5.
    public var bits: UInt8
    /// Tag 6.
    public var channels: UInt8
    /// Tag 7.
    public var layout: AudioLayout
    /// Tag 8, µs.
    public var frameUs: UInt16
    /// Tag 9: each datagram also carries the previous frame.
    public var redundant: Bool

    public init(stream: UInt8 = 0, epoch: UInt8 = 0, codec: AudioCodec = .opus, rateHz: UInt32 = 0,
                bits: UInt8 = 0, channels: UInt8 = 0, layout: AudioLayout = .legacy, frameUs: UInt16 = 0,
                redundant: Bool = false) {
        self.stream = stream
        self.epoch = epoch
        self.codec = codec
        self.rateHz = rateHz
        self.bits = bits
        self.channels = channels
        self.layout = layout
        self.frameUs = frameUs
        self.redundant = redundant
    }

    public func write(to w: inout FieldWriter) {
        w.uint(1, stream)
        w.uint(2, epoch)
        w.raw(3, codec)
        w.uint(4, rateHz)
        w.uint(5, bits)
        w.uint(6, channels)
        w.raw(7, layout)
        w.uint(8, frameUs)
        w.bool(9, redundant)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        self.init()
        stream = try f.uint(1, default: 0)
        epoch = try f.uint(2, default: 0)
        codec = try f.raw(3) ?? .opus
        rateHz = try f.uint(4, default: 0)
        bits = try f.uint(5, default: 0)
        channels = try f.uint(6, default: 0)
        layout = try f.raw(7) ?? .legacy
        frameUs = try f.uint(8, default: 0)
        redundant = try f.bool(9) ?? false
    }
}

/// SetBitrate (0x24, client → host): retarget the encoder, kbit/s; 0 = host default.
/// Golden: `{80000}` = `24 06 01 04 80 38 01 00` (control-plane.md §9).
public struct SetBitrate: TaggedControlMessage {
    public static let messageType = ControlMessageType.setBitrate
    /// Tag 1, kbit/s.
    public var kbps: UInt32
    public init(kbps: UInt32) { self.kbps = kbps }
    public func write(to w: inout FieldWriter) { w.uint(1, kbps) }
    public init(fields f: TaggedFields) throws(WireError) { kbps = try f.uint(1, default: 0) }
}

/// BitrateChanged (0x25, host → client): the rate in force and, toward clients with
/// `ABRFeatures.ackReason`, why it is short of the ask. An unknown reason reads as nil (the ack
/// still stands). Golden: `{1, cadence}` = `25 09 01 04 01 00 00 00 02 01 02`.
public struct BitrateChanged: TaggedControlMessage {
    public static let messageType = ControlMessageType.bitrateChanged
    /// Tag 1, kbit/s.
    public var kbps: UInt32
    /// Tag 2, written only when non-nil.
    public var reason: BitrateChangeReason?

    public init(kbps: UInt32, reason: BitrateChangeReason? = nil) {
        self.kbps = kbps
        self.reason = reason
    }

    public func write(to w: inout FieldWriter) {
        w.uint(1, kbps)
        if let reason { w.raw(2, reason) }
    }

    public init(fields f: TaggedFields) throws(WireError) {
        kbps = try f.uint(1, default: 0)
        reason = try f.raw(2)
    }
}

/// PipelineGap (0x26, host → client): the host rebuilt capture/encoder and nothing flowed for
/// `gapMs`; the client discards its in-flight ABR report window.
public struct PipelineGap: TaggedControlMessage {
    public static let messageType = ControlMessageType.pipelineGap
    /// Tag 1, ms.
    public var gapMs: UInt32
    public init(gapMs: UInt32) { self.gapMs = gapMs }
    public func write(to w: inout FieldWriter) { w.uint(1, gapMs) }
    public init(fields f: TaggedFields) throws(WireError) { gapMs = try f.uint(1, default: 0) }
}

/// ProbeRequest (0x2B, client → host; upstream `ProbeShaped`): a speed test beside live video
/// (control-plane.md §5.3).
public struct ProbeRequest: TaggedControlMessage {
    public static let messageType = ControlMessageType.probeRequest
    /// Tag 1, kbit/s.
    public var targetKbps: UInt32
    /// Tag 2, ms (host clamps to 5 s).
    public var durationMs: UInt32
    /// Tag 3: bursts per second; 0 = smooth.
    public var burstHz: UInt16
    /// Tag 4, bytes per group.
    public var groupBytes: UInt32
    /// Tag 5, kbit/s; 0 = line rate.
    public var groupRateKbps: UInt32

    public init(targetKbps: UInt32, durationMs: UInt32, burstHz: UInt16 = 0, groupBytes: UInt32 = 0,
                groupRateKbps: UInt32 = 0) {
        self.targetKbps = targetKbps
        self.durationMs = durationMs
        self.burstHz = burstHz
        self.groupBytes = groupBytes
        self.groupRateKbps = groupRateKbps
    }

    public func write(to w: inout FieldWriter) {
        w.uint(1, targetKbps)
        w.uint(2, durationMs)
        w.uint(3, burstHz)
        w.uint(4, groupBytes)
        w.uint(5, groupRateKbps)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        targetKbps = try f.uint(1, default: 0)
        durationMs = try f.uint(2, default: 0)
        burstHz = try f.uint(3, default: 0)
        groupBytes = try f.uint(4, default: 0)
        groupRateKbps = try f.uint(5, default: 0)
    }
}

/// ProbeResult (0x2C, host → client): the burst's counts; also sent (zeroed) for a declined probe.
public struct ProbeResult: TaggedControlMessage {
    public static let messageType = ControlMessageType.probeResult
    /// Tag 1.
    public var bytesSent: UInt64
    /// Tag 2.
    public var packetsSent: UInt32
    /// Tag 3, ms.
    public var durationMs: UInt32
    /// Tag 4.
    public var wirePacketsSent: UInt32
    /// Tag 5: packets the host's socket dropped.
    public var sendDropped: UInt32

    public init(bytesSent: UInt64 = 0, packetsSent: UInt32 = 0, durationMs: UInt32 = 0,
                wirePacketsSent: UInt32 = 0, sendDropped: UInt32 = 0) {
        self.bytesSent = bytesSent
        self.packetsSent = packetsSent
        self.durationMs = durationMs
        self.wirePacketsSent = wirePacketsSent
        self.sendDropped = sendDropped
    }

    public func write(to w: inout FieldWriter) {
        w.uint(1, bytesSent)
        w.uint(2, packetsSent)
        w.uint(3, durationMs)
        w.uint(4, wirePacketsSent)
        w.uint(5, sendDropped)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        bytesSent = try f.uint(1, default: 0)
        packetsSent = try f.uint(2, default: 0)
        durationMs = try f.uint(3, default: 0)
        wirePacketsSent = try f.uint(4, default: 0)
        sendDropped = try f.uint(5, default: 0)
    }
}

/// CursorShape (0x30, host → client): a new pointer bitmap, cached by `serial`.
/// Decoding requires 1 ≤ w, h ≤ 120 and `rgba.count == w·h·4`.
public struct CursorShape: TaggedControlMessage {
    public static let messageType = ControlMessageType.cursorShape
    /// Per-side pixel cap (hosts downscale anything larger).
    public static let maxSide: UInt16 = 120

    /// Tag 1: bumped only on shape change.
    public var serial: UInt32
    /// Tag 2, pixels.
    public var width: UInt16
    /// Tag 3, pixels.
    public var height: UInt16
    /// Tag 4, pixels from the left.
    public var hotX: UInt16
    /// Tag 5, pixels from the top.
    public var hotY: UInt16
    /// Tag 6: straight-alpha RGBA8, row-major, exactly `width·height·4` bytes.
    public var rgba: [UInt8]

    public init(serial: UInt32, width: UInt16, height: UInt16, hotX: UInt16, hotY: UInt16, rgba: [UInt8]) {
        self.serial = serial
        self.width = width
        self.height = height
        self.hotX = hotX
        self.hotY = hotY
        self.rgba = rgba
    }

    public func write(to w: inout FieldWriter) {
        w.uint(1, serial)
        w.uint(2, width)
        w.uint(3, height)
        w.uint(4, hotX)
        w.uint(5, hotY)
        w.bytes(6, rgba)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        serial = try f.uint(1, default: 0)
        width = try f.uint(2, default: 0)
        height = try f.uint(3, default: 0)
        hotX = try f.uint(4, default: 0)
        hotY = try f.uint(5, default: 0)
        rgba = try f.bytes(6) ?? []
        for (tag, side) in [(UInt64(2), width), (3, height)] where !(1...Self.maxSide).contains(side) {
            throw .valueOutOfRange(tag: tag, value: UInt64(side))
        }
        let expected = Int(width) * Int(height) * 4
        guard rgba.count == expected else { throw .wrongLength(what: "cursor rgba", expected: expected, found: rgba.count) }
    }
}

/// CursorRenderMode (0x31, client → host — the registry comment says h→c, the host decodes it
/// from the client; control-plane.md §11.3): who draws the pointer.
public struct CursorRenderMode: TaggedControlMessage {
    public static let messageType = ControlMessageType.cursorRenderMode
    /// Tag 1: true = the client draws (host forwards CursorShape / 0xD0).
    public var clientDraws: Bool
    public init(clientDraws: Bool) { self.clientDraws = clientDraws }
    public func write(to w: inout FieldWriter) { w.bool(1, clientDraws) }
    public init(fields f: TaggedFields) throws(WireError) { clientDraws = try f.bool(1) ?? false }
}

/// AccessUpdate (0x32, host → client): grants or remaining lifetime changed (latest wins).
public struct AccessUpdate: TaggedControlMessage {
    public static let messageType = ControlMessageType.accessUpdate
    /// Tag 1 (as received; see `AccessGrants.normalized`).
    public var grants: AccessGrants
    /// Tag 2: seconds until expiry; 0 = permanent.
    public var remainingSecs: UInt32

    public init(grants: AccessGrants, remainingSecs: UInt32) {
        self.grants = grants
        self.remainingSecs = remainingSecs
    }

    public func write(to w: inout FieldWriter) {
        w.raw(1, grants)
        w.uint(2, remainingSecs)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        grants = try f.raw(1) ?? []
        remainingSecs = try f.uint(2, default: 0)
    }
}

/// AudioState (0x33, host → client): the operator muted or unmuted this session.
public struct AudioState: TaggedControlMessage {
    public static let messageType = ControlMessageType.audioState
    /// Tag 1.
    public var muted: Bool
    public init(muted: Bool) { self.muted = muted }
    public func write(to w: inout FieldWriter) { w.bool(1, muted) }
    public init(fields f: TaggedFields) throws(WireError) { muted = try f.bool(1) ?? false }
}

/// LaunchOutcome (0x34, host → client): what became of the session's library launch.
/// `message` is the host's sentence (≤ 200 UTF-8 bytes; longer throws); it is stripped of
/// control characters and trimmed both when built and when decoded, so it is safe to show.
public struct LaunchOutcome: TaggedControlMessage {
    public static let messageType = ControlMessageType.launchOutcome
    public static let messageMaxBytes = 200

    /// Tag 1 (unknown → `.spawned`).
    public var kind: LaunchOutcomeKind
    /// Tag 2.
    public var message: String

    /// Sanitises `message` (trim, drop control characters, truncate to 200 bytes).
    public init(kind: LaunchOutcomeKind, message: String) {
        self.kind = kind
        self.message = message.pfSanitisedLabel(maxBytes: Self.messageMaxBytes)
    }

    /// The line to show: the host's sentence, when the player did not get the game as asked.
    public var notice: String? { kind.needsTelling && !message.isEmpty ? message : nil }

    public func write(to w: inout FieldWriter) {
        w.raw(1, kind)
        w.string(2, message)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        self.init(kind: try f.raw(1) ?? .spawned, message: try f.text(2, maxBytes: Self.messageMaxBytes))
    }
}

/// PadSlots (0x35, host → client): the OS pad slots this session holds (bit n = slot n, which
/// is player n + 1 to a local co-op game); 0 = none.
public struct PadSlots: TaggedControlMessage {
    public static let messageType = ControlMessageType.padSlots
    /// Tag 1.
    public var slots: UInt16
    public init(slots: UInt16) { self.slots = slots }
    public func write(to w: inout FieldWriter) { w.uint(1, slots) }
    public init(fields f: TaggedFields) throws(WireError) { slots = try f.uint(1, default: 0) }
}

/// The shared layout of ShardPayloadChanged / ShardPayloadAck: `{1 shard_payload u16}`.
public protocol ShardPayloadMessage: TaggedControlMessage {
    /// Sealed video shard payload, bytes.
    var shardPayload: UInt16 { get }
    init(shardPayload: UInt16)
}

extension ShardPayloadMessage {
    public func write(to w: inout FieldWriter) { w.uint(1, shardPayload) }
    public init(fields f: TaggedFields) throws(WireError) { self.init(shardPayload: try f.uint(1, default: 0)) }
}

/// ShardPayloadChanged (0x38, host → client): the sealed shard size changes; sent only to
/// clients that advertised `ClientHello.maxShardPayload`.
public struct ShardPayloadChanged: ShardPayloadMessage {
    public static let messageType = ControlMessageType.shardPayloadChanged
    public var shardPayload: UInt16
    public init(shardPayload: UInt16) { self.shardPayload = shardPayload }
}

/// ShardPayloadAck (0x39, client → host): accepts a change; sent only when the size is even
/// and within [512, the client's max]. Silence refuses.
public struct ShardPayloadAck: ShardPayloadMessage {
    public static let messageType = ControlMessageType.shardPayloadAck
    public var shardPayload: UInt16
    public init(shardPayload: UInt16) { self.shardPayload = shardPayload }

    /// Whether a client with `maxShardPayload` acks a change to `size` (control-plane.md §5.1).
    public static func accepts(_ size: UInt16, maxShardPayload: UInt16) -> Bool {
        size % 2 == 0 && size >= 512 && size <= maxShardPayload
    }
}

/// ClockProbe (0x3A, client → host): one clock round; `t1Ns` = client wall clock, Unix ns (§4).
public struct ClockProbe: TaggedControlMessage {
    public static let messageType = ControlMessageType.clockProbe
    /// Tag 1, ns.
    public var t1Ns: UInt64
    public init(t1Ns: UInt64) { self.t1Ns = t1Ns }
    public func write(to w: inout FieldWriter) { w.uint(1, t1Ns) }
    public init(fields f: TaggedFields) throws(WireError) { t1Ns = try f.uint(1, default: 0) }
}

/// ClockEcho (0x3B, host → client): `t1` echoed, `t2` host receive and `t3` host send time,
/// ns on the session media clock (§4.1, §4.3).
public struct ClockEcho: TaggedControlMessage {
    public static let messageType = ControlMessageType.clockEcho
    /// Tags 1–3, ns.
    public var t1Ns: UInt64, t2Ns: UInt64, t3Ns: UInt64

    public init(t1Ns: UInt64, t2Ns: UInt64, t3Ns: UInt64) {
        self.t1Ns = t1Ns
        self.t2Ns = t2Ns
        self.t3Ns = t3Ns
    }

    public func write(to w: inout FieldWriter) {
        w.uint(1, t1Ns)
        w.uint(2, t2Ns)
        w.uint(3, t3Ns)
    }

    public init(fields f: TaggedFields) throws(WireError) {
        t1Ns = try f.uint(1, default: 0)
        t2Ns = try f.uint(2, default: 0)
        t3Ns = try f.uint(3, default: 0)
    }
}
