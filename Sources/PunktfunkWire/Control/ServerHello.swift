/// ServerHello (0x02, host → client): the session (control-plane.md §3.3).
///
/// Written as tags 1, 2, [3], 4…26, [27]. Tag 1 (session id, 16 bytes) is required; an unknown
/// suite id (tag 3) refuses the session; a colour (tag 15) of another length than 4 throws.
/// Decoding folds what a client cannot act on: chroma ≠ 4:4:4 → 4:2:0, channels ∉ {2,6,8} → 2,
/// unknown codec → HEVC, unsupported rate → 48000, bits ∉ {16,24} → 16, a non-zero frame
/// duration is floored at 1000 µs, unknown compositor/gamepad → auto, FEC ≠ 1 → GF(2^8).
public struct ServerHello: TaggedControlMessage {
    public static let messageType = ControlMessageType.serverHello

    /// PCM rates a host may resolve to (ServerHello tag 23).
    public static let supportedAudioRates: Set<UInt32> = [44_100, 48_000, 88_200, 96_000, 176_400]
    /// The management port a client uses when tag 19 is 0.
    public static let defaultManagementPort: UInt16 = 47_990

    /// Tag 1: names the session for `resume`; media-key exporter context.
    public var sessionID: SessionID
    /// Tag 2: the Unix-ns instant media time 0 stands for (§4.3).
    public var clockOriginNs: UInt64
    /// Tag 3: media AEAD; nil only on WebTransport (a native client treats nil as unsupported).
    public var suite: MediaSuite?
    /// Tag 4: bits 16–23 host caps, 24–31 host caps2, ≥ 32 native features in force.
    public var features: FeatureSet
    /// Tag 5: resolved display mode.
    public var mode: Mode
    /// Tag 6 (absent reads as GF(2^16), the only scheme current hosts send).
    public var fecScheme: FECScheme
    /// Tag 7: initial parity percentage.
    public var fecPercent: UInt8
    /// Tag 8: FEC block limit, bytes (hosts send 4096).
    public var maxDataPerBlock: UInt16
    /// Tag 9: sealed shard payload, bytes.
    public var shardPayload: UInt16
    /// Tag 10: frames the host will send (test hosts); 0 = unbounded.
    public var frames: UInt32
    /// Tag 11.
    public var compositor: Compositor
    /// Tag 12: resolved virtual-gamepad backend.
    public var gamepad: GamepadKind
    /// Tag 13: configured encoder budget, kbit/s.
    public var bitrateKbps: UInt32
    /// Tag 14: 8 or 10.
    public var bitDepth: UInt8
    /// Tag 15: CICP colour (default SDR BT.709).
    public var color: ColorInfo
    /// Tag 16.
    public var chromaFormat: ChromaFormat
    /// Tag 17: channels the host encodes — build the decoder from this.
    public var audioChannels: UInt8
    /// Tag 18: the one codec bit the host emits.
    public var codec: VideoCodecs
    /// Tag 19: management API TCP port; 0 ⇒ `defaultManagementPort` (see `managementPort`).
    public var mgmtPort: UInt16
    /// Tag 20 (default `.all`).
    public var grants: AccessGrants
    /// Tag 21: seconds until access expires; 0 = permanent.
    public var expiresInSecs: UInt32
    /// Tag 22 (default Opus).
    public var audioCodec: AudioCodec
    /// Tag 23, Hz (one of `supportedAudioRates`).
    public var audioRateHz: UInt32
    /// Tag 24: 16 or 24.
    public var audioBits: UInt8
    /// Tag 25: PCM frame duration, µs; 0 for Opus (fixed 5 ms).
    public var audioFrameUs: UInt16
    /// Tag 26: coupling actually encoded.
    public var audioLayout: AudioLayout
    /// Tag 27: the profile the session resolved to (≤ 64 bytes; invalid reads as nil).
    public var profile: String?

    /// A hello carrying `sessionID` and every other field at its absent-tag default.
    public init(sessionID: SessionID) {
        self.sessionID = sessionID
        clockOriginNs = 0
        suite = nil
        features = .empty
        mode = .zero
        fecScheme = .gf16
        fecPercent = 0
        maxDataPerBlock = 0
        shardPayload = 0
        frames = 0
        compositor = .auto
        gamepad = .auto
        bitrateKbps = 0
        bitDepth = 8
        color = .sdrBT709
        chromaFormat = .yuv420
        audioChannels = 2
        codec = .hevc
        mgmtPort = 0
        grants = .all
        expiresInSecs = 0
        audioCodec = .opus
        audioRateHz = 48_000
        audioBits = 16
        audioFrameUs = 0
        audioLayout = .legacy
        profile = nil
    }

    /// The management port to dial.
    public var managementPort: UInt16 { mgmtPort == 0 ? Self.defaultManagementPort : mgmtPort }

    public func write(to w: inout FieldWriter) {
        w.bytes(1, sessionID.bytes)
        w.uint(2, clockOriginNs)
        if let suite { w.raw(3, suite) }
        w.bytes(4, features.encoded)
        w.mode(5, mode)
        w.raw(6, fecScheme)
        w.uint(7, fecPercent)
        w.uint(8, maxDataPerBlock)
        w.uint(9, shardPayload)
        w.uint(10, frames)
        w.raw(11, compositor)
        w.raw(12, gamepad)
        w.uint(13, bitrateKbps)
        w.uint(14, bitDepth)
        w.bytes(15, color.encoded)
        w.raw(16, chromaFormat)
        w.uint(17, audioChannels)
        w.raw(18, codec)
        w.uint(19, mgmtPort)
        w.raw(20, grants)
        w.uint(21, expiresInSecs)
        w.raw(22, audioCodec)
        w.uint(23, audioRateHz)
        w.uint(24, audioBits)
        w.uint(25, audioFrameUs)
        w.raw(26, audioLayout)
        if let profile { w.string(27, profile) }
    }

    public init(fields f: TaggedFields) throws(WireError) {
        guard let id = try f.value(1) else { throw .missingField(tag: 1) }
        self.init(sessionID: try SessionID(decoding: id))
        clockOriginNs = try f.uint(2, default: 0)
        if let raw: UInt8 = try f.uint(3) {
            // An id this build does not know cannot open the media: refuse the session.
            guard let s = MediaSuite(rawValue: raw) else { throw .valueOutOfRange(tag: 3, value: UInt64(raw)) }
            suite = s
        }
        features = FeatureSet(decoding: try f.value(4) ?? [])
        mode = try f.mode(5) ?? .zero
        if let scheme: UInt8 = try f.uint(6) { fecScheme = scheme == 1 ? .gf16 : .gf8 }
        fecPercent = try f.uint(7, default: 0)
        maxDataPerBlock = try f.uint(8, default: 0)
        shardPayload = try f.uint(9, default: 0)
        frames = try f.uint(10, default: 0)
        compositor = try f.raw(11) ?? .auto
        gamepad = try f.raw(12) ?? .auto
        bitrateKbps = try f.uint(13, default: 0)
        bitDepth = try f.uint(14, default: 8)
        if let v = try f.value(15) { color = try ColorInfo(decoding: v) }
        chromaFormat = try f.uint(16, as: UInt8.self) == ChromaFormat.yuv444.rawValue ? .yuv444 : .yuv420
        audioChannels = ClientHello.normalisedChannels(try f.uint(17, default: 2))
        let c: VideoCodecs = try f.raw(18) ?? .hevc
        codec = [VideoCodecs.h264, .av1, .pyroWave].contains(c) ? c : .hevc
        mgmtPort = try f.uint(19, default: 0)
        grants = try f.raw(20) ?? .all
        expiresInSecs = try f.uint(21, default: 0)
        audioCodec = try f.raw(22) ?? .opus
        let rate: UInt32 = try f.uint(23, default: 48_000)
        audioRateHz = Self.supportedAudioRates.contains(rate) ? rate : 48_000
        audioBits = ClientHello.normalisedBits(try f.uint(24, default: 16))
        let frameUs: UInt16 = try f.uint(25, default: 0)
        audioFrameUs = frameUs == 0 ? 0 : max(frameUs, 1_000)
        audioLayout = try f.raw(26) ?? .legacy
        profile = try f.label(27, maxBytes: ClientHello.profileMaxBytes)
    }
}
