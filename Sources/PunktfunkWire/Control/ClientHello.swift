/// A session id: the 16 random bytes ServerHello tag 1 names a session by, sent back as
/// ClientHello tag 1 (`resume`) and used as the media-key exporter context (control-plane.md
/// §3.3, §3.4). Invariant: exactly 16 bytes.
public struct SessionID: Hashable, Sendable, CustomStringConvertible {
    /// Bytes in a session id.
    public static let length = 16
    /// The 16 id bytes.
    public let bytes: [UInt8]

    /// nil unless `bytes` is exactly 16 long.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.length else { return nil }
        self.bytes = bytes
    }

    init(decoding v: ArraySlice<UInt8>) throws(WireError) {
        guard v.count == Self.length else {
            throw .wrongLength(what: "session id", expected: Self.length, found: v.count)
        }
        bytes = Array(v)
    }

    /// Lowercase hex.
    public var description: String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}

/// The settings preset a session was dialled with (ClientHello tag 21): `id_len u8 ‖ id ‖
/// name_len u8 ‖ name`. Informational only.
///
/// Invariant (enforced by the initialiser and on decode): `id` is 1…32 printable ASCII
/// characters, `name` is trimmed, control-free and ≤ 64 UTF-8 bytes.
public struct SessionPreset: Hashable, Sendable {
    /// Bound on `id`, characters (= bytes, ASCII).
    public static let idMaxBytes = 32
    /// Bound on `name`, UTF-8 bytes.
    public static let nameMaxBytes = 64

    /// The client's stable preset id (what a host keys on).
    public let id: String
    /// The preset's display name.
    public let name: String

    /// Bounds and strips both parts (id: trimmed, printable ASCII only, first 32 characters;
    /// name: the label rule). nil when the id is empty afterwards.
    public init?(id: String, name: String) {
        let graphic = id.unicodeScalars.filter { (0x21...0x7E).contains($0.value) }
        let cleanID = String(graphic.prefix(Self.idMaxBytes))
        guard !cleanID.isEmpty else { return nil }
        self.id = cleanID
        self.name = name.pfSanitisedLabel(maxBytes: Self.nameMaxBytes)
    }

    var encoded: [UInt8] {
        [UInt8(id.utf8.count)] + Array(id.utf8) + [UInt8(name.utf8.count)] + Array(name.utf8)
    }

    /// A malformed value is no preset, never a failed handshake (tag 21 informs, never gates).
    init?(decoding v: ArraySlice<UInt8>) {
        var r = WireReader(v)
        guard let idLen = try? r.readByte(), let idBytes = try? r.readSlice(Int(idLen)),
              let nameLen = try? r.readByte(), let nameBytes = try? r.readSlice(Int(nameLen)),
              let id = String(validating: idBytes, as: UTF8.self) else { return nil }
        self.init(id: id, name: String(decoding: nameBytes, as: UTF8.self))
    }
}

/// What the client's OS says about its end of the path (ClientHello tag 22):
/// `kind u8 ‖ mbps u32` (5 bytes). The default (unknown, 0) is not sent.
public struct LinkFacts: Hashable, Sendable {
    /// The client NIC's kind.
    public var kind: InterfaceKind
    /// Link speed in Mbit/s; 0 = not sampled.
    public var mbps: UInt32

    /// Nothing known (the default, not sent).
    public static let unknown = LinkFacts(kind: .unknown, mbps: 0)

    public init(kind: InterfaceKind, mbps: UInt32) {
        self.kind = kind
        self.mbps = mbps
    }

    var encoded: [UInt8] {
        var w = WireWriter(capacity: 5)
        w.writeByte(kind.rawValue)
        w.writeLE(mbps)
        return w.bytes
    }

    /// A short value zero-fills; bytes past 5 are ignored.
    init(decoding v: ArraySlice<UInt8>) {
        var b = Array(v.prefix(5))
        b += [UInt8](repeating: 0, count: 5 - b.count)
        var r = WireReader(b)
        kind = InterfaceKind(rawValue: (try? r.readByte()) ?? 0)
        mbps = (try? r.readLE(UInt32.self)) ?? 0
    }
}

/// ClientHello (0x01, client → host): the first frame of the control stream
/// (control-plane.md §3.2).
///
/// Writer order is 1…22, 24, 25, 23, 26 with conditional tags only when present, which
/// reproduces the §9 golden byte-for-byte. Decoding applies the spec's folds, so a decoded
/// value re-encodes canonically: channels ∉ {2,6,8} → 2, rate 0 → 48000, bits ∉ {16,24} → 16,
/// unknown compositor/gamepad → auto, invalid name/launch/profile → nil, HDR of another length →
/// nil, and the informational tags 19–26 never fail the hello.
public struct ClientHello: TaggedControlMessage {
    public static let messageType = ControlMessageType.clientHello

    /// Field bounds in UTF-8 bytes (tags 7, 8, 19, 23).
    public static let nameMaxBytes = 64
    public static let launchMaxBytes = 128
    public static let clientLabelMaxBytes = 96
    public static let profileMaxBytes = 64
    /// What a rate of 0 (or an absent tag 15) reads as, Hz.
    public static let defaultAudioRateHz: UInt32 = 48_000

    /// Tag 1: the lost session to take back.
    public var resume: SessionID?
    /// Tag 2: media AEADs, most wanted first (sent when non-empty; unknown ids dropped on read).
    public var suites: [MediaSuite]
    /// Tag 3: requested display mode; the host creates its virtual display at exactly this.
    public var mode: Mode
    /// Tag 4.
    public var compositor: Compositor
    /// Tag 5.
    public var gamepad: GamepadKind
    /// Tag 6, kbit/s; 0 = host default.
    public var bitrateKbps: UInt32
    /// Tag 7: device label, ≤ 64 UTF-8 bytes (the writer truncates on a scalar boundary).
    public var name: String?
    /// Tag 8: store-qualified library id (`steam:570`), ≤ 128 bytes (writer truncates).
    public var launch: String?
    /// Tag 9: bits 0–7 video caps, 8–15 client caps, ≥ 32 native features.
    public var features: FeatureSet
    /// Tag 10: 2, 6 or 8.
    public var audioChannels: UInt8
    /// Tag 11: codecs the client decodes (empty ⇒ HEVC only, see `VideoCodecs.effectiveClientMask`).
    public var videoCodecs: VideoCodecs
    /// Tag 12: one codec bit or empty (no preference).
    public var preferredCodec: VideoCodecs
    /// Tag 13: the client panel's HDR metadata, when it is HDR.
    public var displayHDR: HDRMetadata?
    /// Tag 14: largest sealed shard payload accepted, bytes; non-zero allows mid-session changes.
    public var maxShardPayload: UInt16
    /// Tag 15: requested PCM rate, Hz.
    public var audioRateHz: UInt32
    /// Tag 16: 16 or 24.
    public var audioBits: UInt8
    /// Tag 17.
    public var audioLayout: AudioLayout
    /// Tag 18: 0 = fit, others crop/stretch (`VideoFit::wire`).
    public var videoFit: UInt8
    /// Tag 19: build/shell string for host logs; sanitised (trimmed, no control characters,
    /// ≤ 96 bytes) on write and read, sent when non-empty.
    public var clientLabel: String?
    /// Tag 20, sent when non-empty.
    public var abrFeatures: ABRFeatures
    /// Tag 21.
    public var preset: SessionPreset?
    /// Tag 22, sent unless `.unknown`.
    public var link: LinkFacts
    /// Tag 24: diagnostic dial — the host serves probes only.
    public var probeOnly: Bool
    /// Tag 25: PyroWave quality in bits/pixel × 100; 0 = host's.
    public var pyroWaveBppX100: UInt16
    /// Tag 23: host profile to play as; sent only when ≤ 64 bytes (never truncated).
    public var profile: String?
    /// Tag 26: request-access dial (host closes 0x72 when approved).
    public var accessOnly: Bool

    /// A hello with the decode defaults; set what you need.
    public init(mode: Mode = .zero) {
        resume = nil
        suites = []
        self.mode = mode
        compositor = .auto
        gamepad = .auto
        bitrateKbps = 0
        name = nil
        launch = nil
        features = .empty
        audioChannels = 2
        videoCodecs = []
        preferredCodec = []
        displayHDR = nil
        maxShardPayload = 0
        audioRateHz = Self.defaultAudioRateHz
        audioBits = 16
        audioLayout = .legacy
        videoFit = 0
        clientLabel = nil
        abrFeatures = []
        preset = nil
        link = .unknown
        probeOnly = false
        pyroWaveBppX100 = 0
        profile = nil
        accessOnly = false
    }

    public func write(to w: inout FieldWriter) {
        if let resume { w.bytes(1, resume.bytes) }
        if !suites.isEmpty { w.bytes(2, suites.map(\.rawValue)) }
        w.mode(3, mode)
        w.raw(4, compositor)
        w.raw(5, gamepad)
        w.uint(6, bitrateKbps)
        if let name { w.string(7, name.pfTruncated(toUTF8: Self.nameMaxBytes)) }
        if let launch { w.string(8, launch.pfTruncated(toUTF8: Self.launchMaxBytes)) }
        w.bytes(9, features.encoded)
        w.uint(10, audioChannels)
        w.raw(11, videoCodecs)
        w.raw(12, preferredCodec)
        if let displayHDR { w.bytes(13, displayHDR.encoded) }
        w.uint(14, maxShardPayload)
        w.uint(15, audioRateHz)
        w.uint(16, audioBits)
        w.raw(17, audioLayout)
        w.uint(18, videoFit)
        if let label = clientLabel?.pfSanitisedLabel(maxBytes: Self.clientLabelMaxBytes), !label.isEmpty {
            w.string(19, label)
        }
        if !abrFeatures.isEmpty { w.raw(20, abrFeatures) }
        if let preset { w.bytes(21, preset.encoded) }
        if link != .unknown { w.bytes(22, link.encoded) }
        if probeOnly { w.uint(24, UInt8(1)) }  // 24 before 23: the §9 golden pins it
        if pyroWaveBppX100 != 0 { w.uint(25, pyroWaveBppX100) }
        if let profile, profile.utf8.count <= Self.profileMaxBytes { w.string(23, profile) }
        if accessOnly { w.uint(26, UInt8(1)) }
    }

    public init(fields f: TaggedFields) throws(WireError) {
        self.init()
        if let v = try f.value(1) { resume = try SessionID(decoding: v) }
        suites = (try f.value(2) ?? []).compactMap(MediaSuite.init(rawValue:))
        mode = try f.mode(3) ?? .zero
        compositor = try f.raw(4) ?? .auto
        gamepad = try f.raw(5) ?? .auto
        bitrateKbps = try f.uint(6, default: 0)
        name = try f.label(7, maxBytes: Self.nameMaxBytes)
        launch = try f.label(8, maxBytes: Self.launchMaxBytes)
        features = FeatureSet(decoding: try f.value(9) ?? [])
        audioChannels = Self.normalisedChannels(try f.uint(10, default: 2))
        videoCodecs = try f.raw(11) ?? []
        preferredCodec = try f.raw(12) ?? []
        if let v = try f.value(13), v.count == HDRMetadata.encodedLength {
            displayHDR = try HDRMetadata(decoding: v)
        }
        maxShardPayload = try f.uint(14, default: 0)
        let rate: UInt32 = try f.uint(15, default: 0)
        audioRateHz = rate == 0 ? Self.defaultAudioRateHz : rate
        audioBits = Self.normalisedBits(try f.uint(16, default: 16))
        audioLayout = try f.raw(17) ?? .legacy
        videoFit = try f.uint(18, default: 0)
        // Tags 19–26 inform and never gate: a bad value reads as the default.
        if let v = try f.value(19) {
            let label = String(decoding: v, as: UTF8.self).pfSanitisedLabel(maxBytes: Self.clientLabelMaxBytes)
            clientLabel = label.isEmpty ? nil : label
        }
        abrFeatures = ABRFeatures(rawValue: try f.value(20)?.first ?? 0)
        preset = try f.value(21).flatMap(SessionPreset.init(decoding:))
        link = try f.value(22).map(LinkFacts.init(decoding:)) ?? .unknown
        probeOnly = try f.value(24) != nil
        if let v = try f.value(25), v.count >= 2 {
            pyroWaveBppX100 = UInt16(v[v.startIndex]) | UInt16(v[v.startIndex + 1]) << 8
        }
        profile = try f.label(23, maxBytes: Self.profileMaxBytes)
        accessOnly = try f.value(26)?.first == 1
    }

    /// 2, 6 and 8 are negotiable; anything else is stereo.
    static func normalisedChannels(_ c: UInt8) -> UInt8 { [6, 8].contains(c) ? c : 2 }
    /// 16 and 24 are supported; anything else is 16.
    static func normalisedBits(_ b: UInt8) -> UInt8 { b == 24 ? 24 : 16 }
}
