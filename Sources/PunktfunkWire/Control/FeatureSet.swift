/// The punktfunk/2 128-bit capability set (control-plane.md §3.6).
///
/// Bit n is bit (n mod 8) of byte n/8. Encoded little-endian with trailing zero bytes dropped
/// (the empty set is zero bytes); readers take the first 16 bytes and keep unknown bits (a bit
/// they do not know is a feature they do not have). The four punktfunk/1 capability bytes sit
/// in place: `videoCaps` bits 0–7, `clientCaps` 8–15, `hostCaps` 16–23, `hostCaps2` 24–31;
/// bits from 32 up (`FeatureBit`) exist only on this wire.
public struct FeatureSet: Hashable, Sendable, CustomStringConvertible {
    /// Bits 0–63.
    public var low: UInt64
    /// Bits 64–127.
    public var high: UInt64

    /// No bits (encodes as zero bytes).
    public static let empty = FeatureSet()
    /// The widest set a reader keeps.
    public static let bitCount = 128

    /// A set from its two 64-bit halves.
    public init(low: UInt64 = 0, high: UInt64 = 0) {
        self.low = low
        self.high = high
    }

    /// A set holding `bits` (each 0…127; others are ignored).
    public init<S: Sequence>(bits: S) where S.Element == Int {
        self.init()
        for b in bits { insert(b) }
    }

    /// The v1 capability bytes in place plus any native `bits`.
    public init(videoCaps: VideoCaps = [], clientCaps: ClientCaps = [], hostCaps: HostCaps = [],
                hostCaps2: HostCaps2 = [], bits: [Int] = []) {
        self.init()
        for b in bits { insert(b) }
        self.videoCaps = videoCaps
        self.clientCaps = clientCaps
        self.hostCaps = hostCaps
        self.hostCaps2 = hostCaps2
    }

    /// Reads a wire value. Never fails: short = fewer features, long = a newer peer (bytes
    /// past 16 are ignored).
    public init<C: Collection>(decoding bytes: C) where C.Element == UInt8 {
        self.init()
        for (i, b) in bytes.prefix(16).enumerated() {
            if i < 8 { low |= UInt64(b) << (8 * i) } else { high |= UInt64(b) << (8 * (i - 8)) }
        }
    }

    /// Little-endian bytes with trailing zeros dropped.
    public var encoded: [UInt8] {
        var out = (0..<16).map { i in UInt8(truncatingIfNeeded: (i < 8 ? low : high) >> (8 * (i % 8))) }
        while out.last == 0 { out.removeLast() }
        return out
    }

    /// Whether `bit` is set; false outside 0…127.
    public func contains(_ bit: Int) -> Bool {
        guard (0..<Self.bitCount).contains(bit) else { return false }
        return (bit < 64 ? low >> bit : high >> (bit - 64)) & 1 == 1
    }

    /// Sets `bit`; a bit outside 0…127 is ignored.
    public mutating func insert(_ bit: Int) {
        guard (0..<Self.bitCount).contains(bit) else { return }
        if bit < 64 { low |= 1 << bit } else { high |= 1 << (bit - 64) }
    }

    /// Clears `bit`; a bit outside 0…127 is ignored.
    public mutating func remove(_ bit: Int) {
        guard (0..<Self.bitCount).contains(bit) else { return }
        if bit < 64 { low &= ~(1 << bit) } else { high &= ~(1 << (bit - 64)) }
    }

    /// A copy with `bit` set.
    public func inserting(_ bit: Int) -> FeatureSet {
        var s = self
        s.insert(bit)
        return s
    }

    /// Bits in either set.
    public func union(_ o: FeatureSet) -> FeatureSet { FeatureSet(low: low | o.low, high: high | o.high) }
    /// Bits in both sets (the features in force).
    public func intersection(_ o: FeatureSet) -> FeatureSet { FeatureSet(low: low & o.low, high: high & o.high) }

    /// Only the bits from 32 up: what this wire alone can say.
    public var native: FeatureSet { FeatureSet(low: low & ~0xFFFF_FFFF, high: high) }

    private func byte(at shift: Int) -> UInt8 { UInt8(truncatingIfNeeded: low >> shift) }
    private mutating func setByte(_ v: UInt8, at shift: Int) {
        low = (low & ~(0xFF << UInt64(shift))) | UInt64(v) << UInt64(shift)
    }

    /// Bits 0–7 (`VIDEO_CAP_*`).
    public var videoCaps: VideoCaps {
        get { VideoCaps(rawValue: byte(at: 0)) }
        set { setByte(newValue.rawValue, at: 0) }
    }
    /// Bits 8–15 (`CLIENT_CAP_*`).
    public var clientCaps: ClientCaps {
        get { ClientCaps(rawValue: byte(at: 8)) }
        set { setByte(newValue.rawValue, at: 8) }
    }
    /// Bits 16–23 (`HOST_CAP_*`).
    public var hostCaps: HostCaps {
        get { HostCaps(rawValue: byte(at: 16)) }
        set { setByte(newValue.rawValue, at: 16) }
    }
    /// Bits 24–31 (`HOST_CAP2_*`).
    public var hostCaps2: HostCaps2 {
        get { HostCaps2(rawValue: byte(at: 24)) }
        set { setByte(newValue.rawValue, at: 24) }
    }

    /// The set bits, e.g. `FeatureSet(6,14,32)`.
    public var description: String {
        "FeatureSet(" + (0..<Self.bitCount).filter(contains).map(String.init).joined(separator: ",") + ")"
    }
}

/// Feature bits from 32 up (registry `FEATURE_*`, control-plane.md §3.6).
public enum FeatureBit {
    /// `FEATURE_STREAM_CONFIG`: host sends StreamConfig per epoch; client switches at that
    /// epoch's first frame.
    public static let streamConfig = 32
    /// `FEATURE_PAD_WRITES`: pad feature reports ride the control stream (PadFeature 0x52).
    public static let padWrites = 33
    /// `FEATURE_PROFILES`: client reads the profile echo and follows Redirect.
    public static let profiles = 34
}

/// `video_caps`, FeatureSet bits 0–7 (control-plane.md §3.6).
public struct VideoCaps: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// `VIDEO_CAP_10BIT`: decodes Main10 (alone = 10-bit SDR).
    public static let tenBit = VideoCaps(rawValue: 0x01)
    /// `VIDEO_CAP_HDR`: presents BT.2020 PQ (set with `tenBit`).
    public static let hdr = VideoCaps(rawValue: 0x02)
    /// `VIDEO_CAP_444`: wants HEVC 4:4:4.
    public static let yuv444 = VideoCaps(rawValue: 0x04)
    /// `VIDEO_CAP_HOST_TIMING`: consumes 0xCF host-timing datagrams.
    public static let hostTiming = VideoCaps(rawValue: 0x08)
    /// `VIDEO_CAP_PROBE_SEQ`: probe filler in its own frame-index space.
    public static let probeSeq = VideoCaps(rawValue: 0x10)
    /// `VIDEO_CAP_STREAMED_AU`: accepts streamed access units.
    public static let streamedAU = VideoCaps(rawValue: 0x20)
    /// `VIDEO_CAP_CHACHA20`: wants ChaCha20-Poly1305 media.
    public static let chaCha20 = VideoCaps(rawValue: 0x40)
    /// `VIDEO_CAP_MULTI_SLICE`: decoder accepts multi-slice AUs.
    public static let multiSlice = VideoCaps(rawValue: 0x80)
}

/// `client_caps`, FeatureSet bits 8–15 (control-plane.md §3.6). 0x02 and 0x80 are unallocated.
public struct ClientCaps: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// `CLIENT_CAP_CURSOR`: client draws the cursor (CursorShape / 0xD0).
    public static let cursor = ClientCaps(rawValue: 0x01)
    /// `CLIENT_CAP_AUDIO_RED`: decodes 0xD2 redundant audio.
    public static let audioRed = ClientCaps(rawValue: 0x04)
    /// `CLIENT_CAP_PAD_AUDIO`: pad audio plane 0xD1.
    public static let padAudio = ClientCaps(rawValue: 0x08)
    /// `CLIENT_CAP_AUDIO_HIRES`: wants PCM at the requested rate/bits.
    public static let audioHiRes = ClientCaps(rawValue: 0x10)
    /// `CLIENT_CAP_KEEP_HOST_AUDIO`: don't re-route the host's speakers.
    public static let keepHostAudio = ClientCaps(rawValue: 0x20)
    /// `CLIENT_CAP_EXT`: every client sets it.
    public static let ext = ClientCaps(rawValue: 0x40)
}

/// `host_caps`, FeatureSet bits 16–23 (control-plane.md §3.6).
public struct HostCaps: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// `HOST_CAP_GAMEPAD_STATE`: send full pad snapshots.
    public static let gamepadState = HostCaps(rawValue: 0x01)
    /// `HOST_CAP_CLIPBOARD`: clipboard available.
    public static let clipboard = HostCaps(rawValue: 0x02)
    /// `HOST_CAP_TEXT_INPUT`: host types Unicode text events.
    public static let textInput = HostCaps(rawValue: 0x04)
    /// `HOST_CAP_CURSOR`: host forwards the cursor and stops compositing it.
    public static let cursor = HostCaps(rawValue: 0x08)
    /// `HOST_CAP_PEN`: pen batches accepted.
    public static let pen = HostCaps(rawValue: 0x10)
    /// `HOST_CAP_AUDIO_RED`: 0xD2 redundant audio in use.
    public static let audioRed = HostCaps(rawValue: 0x20)
    /// `HOST_CAP_PAD_AUDIO`: pad audio plane.
    public static let padAudio = HostCaps(rawValue: 0x40)
    /// `HOST_CAP_AUDIO_HIRES`: session is on PCM 0xD3.
    public static let audioHiRes = HostCaps(rawValue: 0x80)
}

/// `host_caps2`, FeatureSet bits 24–31 (control-plane.md §3.6).
public struct HostCaps2: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// `HOST_CAP2_REPEAT_MARK`: idle re-encodes flagged USER_FLAG_REPEAT.
    public static let repeatMark = HostCaps2(rawValue: 0x01)
    /// `HOST_CAP2_TOUCH`: touch injection works.
    public static let touch = HostCaps2(rawValue: 0x02)
    /// `HOST_CAP2_EXT`: host reads client extension entries.
    public static let ext = HostCaps2(rawValue: 0x04)
    /// `HOST_CAP2_SCROLL`: accepts InputKind::Scroll.
    public static let scroll = HostCaps2(rawValue: 0x08)
    /// `HOST_CAP2_RAMP`: serves bring-up ramp probes before the first frame.
    public static let ramp = HostCaps2(rawValue: 0x10)
    /// `HOST_CAP2_DELIVERY`: reserved.
    public static let delivery = HostCaps2(rawValue: 0x20)
    /// `HOST_CAP2_INPUT_EDGES`: send key down/up on the control stream (InputEvent 0x50).
    public static let inputEdges = HostCaps2(rawValue: 0x40)
}
