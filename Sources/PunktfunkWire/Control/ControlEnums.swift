/// The small value vocabularies of the control plane. Enums fold unknown wire values where the
/// spec says so (each decoder names its default); `RawRepresentable` structs keep any byte so a
/// newer peer's value survives a round trip.

/// Video codec bits (ClientHello tags 11/12, ServerHello tag 18, StreamConfig tag 3;
/// control-plane.md §3.2). A mask in ClientHello, exactly one bit in ServerHello/StreamConfig.
public struct VideoCodecs: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// `CODEC_*` bits.
    public static let h264 = VideoCodecs(rawValue: 0x01)
    public static let hevc = VideoCodecs(rawValue: 0x02)
    public static let av1 = VideoCodecs(rawValue: 0x04)
    /// PyroWave: never auto-picked, only via `preferredCodec`.
    public static let pyroWave = VideoCodecs(rawValue: 0x08)

    /// ClientHello tag 11 semantics: an empty mask means HEVC only.
    public var effectiveClientMask: VideoCodecs { isEmpty ? .hevc : self }
}

/// Compositor preference / resolution (ClientHello tag 4, ServerHello tag 11). Unknown → `.auto`.
public enum Compositor: UInt8, Sendable, CaseIterable {
    case auto = 0, kwin = 1, wlroots = 2, mutter = 3, gamescope = 4, hyprland = 5
    /// Echoed by Windows hosts only.
    case windows = 6
}

/// Virtual gamepad kind, `GamepadPref` wire byte 0–18 (ClientHello tag 5, ServerHello tag 12;
/// control-plane.md §3.2, upstream `gamepad-kind-vectors.json`). Unknown → `.auto`.
public enum GamepadKind: UInt8, Sendable, CaseIterable {
    case auto = 0
    case xbox360 = 1
    case dualSense = 2
    case xboxOne = 3
    case dualShock4 = 4
    case steamController = 5
    case steamDeck = 6
    case dualSenseEdge = 7
    case switchPro = 8
    case steamController2 = 9
    case steamController2Puck = 10
    case xboxElite = 11
    case eightBitDoUltimate2 = 12
    case eightBitDoPro2 = 13
    case eightBitDoPro3 = 14
    case horipadSteam = 15
    case joyConPair = 16
    case switch2Pro = 17
    case switch2GameCube = 18
}

/// Opus surround coupling, an `AudioLayout` wire id (ClientHello tag 17, ServerHello tag 26,
/// AudioConfig tag 7). 0 = legacy coupling; unknown ids are kept, never guessed.
public struct AudioLayout: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// (FL,FR)+(FC,LFE) coupled, (RL,RR) too on 7.1 — what punktfunk/1 shipped.
    public static let legacy = AudioLayout(rawValue: 0)
    /// RFC 7845 mapping family 1 coupling.
    public static let standard = AudioLayout(rawValue: 1)
    /// One mono stream per channel.
    public static let uncoupled = AudioLayout(rawValue: 2)
}

/// Audio codec id (ServerHello tag 22, AudioConfig tag 3). Unknown ids are kept.
public struct AudioCodec: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Opus on 0xC9 / 0xD2 (default).
    public static let opus = AudioCodec(rawValue: 0)
    /// Reserved (FLAC); never sent.
    public static let flacReserved = AudioCodec(rawValue: 1)
    /// Raw interleaved LE PCM on 0xD3.
    public static let pcm = AudioCodec(rawValue: 2)
}

/// Network interface kind (ClientHello tag 22, StreamConfig tag 7). Unknown ids are kept.
public struct InterfaceKind: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// `IFACE_KIND_*` values.
    public static let unknown = InterfaceKind(rawValue: 0)
    public static let ethernet = InterfaceKind(rawValue: 1)
    public static let wifi = InterfaceKind(rawValue: 2)
    public static let other = InterfaceKind(rawValue: 3)
}

/// HEVC `chroma_format_idc` (ServerHello tag 16). Any other value reads as `.yuv420`.
public enum ChromaFormat: UInt8, Sendable, CaseIterable {
    case yuv420 = 1
    case yuv444 = 3
}

/// FEC field (ServerHello tag 6). 1 = GF(2^16) Leopard; anything else reads as GF(2^8).
public enum FECScheme: UInt8, Sendable, CaseIterable {
    case gf8 = 0
    case gf16 = 1
}

/// Why a BitrateChanged is short of the ask (tag 2; control-plane.md §5.1). Unknown → none.
public enum BitrateChangeReason: UInt8, Sendable, CaseIterable {
    case granted = 0
    case encoderLimit = 1
    /// Encode fell behind the frame cadence.
    case cadence = 2
    /// The shared-path governor.
    case governor = 3
    /// Pinned (PyroWave).
    case pinned = 4
}

/// How a session's library launch turned out (LaunchOutcome tag 1). Unknown → `.spawned`, the
/// reading under which a client keeps waiting rather than raise an alarm.
public enum LaunchOutcomeKind: UInt8, Sendable, CaseIterable {
    case spawned = 0
    case adopted = 1
    case adoptedUnknown = 2
    case refused = 3
    case failed = 4
    case signInNeeded = 5

    /// The player did not get the game as asked; the host's message should be shown.
    public var needsTelling: Bool {
        switch self {
        case .adoptedUnknown, .refused, .failed, .signInNeeded: return true
        case .spawned, .adopted: return false
        }
    }
}

/// ClientHello tag 20 ABR feature bits.
public struct ABRFeatures: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// `EXT_ABR_ACK_REASON`: the client reads the reason in BitrateChanged. Core always sets it.
    public static let ackReason = ABRFeatures(rawValue: 0x01)
}
