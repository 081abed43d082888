/// A device's access mask, u32 on the wire (ServerHello tag 20, AccessUpdate tag 1;
/// control-plane.md §3.8). The host enforces it; the client uses it to skip capture that cannot
/// land. Bits above 0xFF are kept as received (a newer host's grants) and ignored by `level`.
public struct AccessGrants: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// GAMEPAD … MANAGE_GAMES: one grant per bit (control-plane.md §3.8).
    public static let gamepad = AccessGrants(rawValue: 0x01)
    public static let pointer = AccessGrants(rawValue: 0x02)
    public static let keyboard = AccessGrants(rawValue: 0x04)
    public static let clipboard = AccessGrants(rawValue: 0x08)
    public static let mic = AccessGrants(rawValue: 0x10)
    public static let launch = AccessGrants(rawValue: 0x20)
    public static let power = AccessGrants(rawValue: 0x40)
    public static let manageGames = AccessGrants(rawValue: 0x80)
    /// Every grant this wire defines (0xFF); also ServerHello's default when tag 20 is absent.
    public static let all = AccessGrants(rawValue: 0xFF)

    /// Preset "full" (0xFF).
    public static let full = all
    /// Preset "controller-only" (0x01).
    public static let controllerOnly = gamepad
    /// Preset "view-only" (0).
    public static let viewOnly: AccessGrants = []

    /// The "all" masks stored before POWER (0x3F) and MANAGE_GAMES (0x7F) existed.
    public static let legacyAllMasks: [UInt32] = [0x3F, 0x7F]

    /// Legacy "all" masks read as `.all`; every other mask is unchanged (exact match only).
    public var normalized: AccessGrants {
        Self.legacyAllMasks.contains(rawValue) ? .all : self
    }

    /// The preset this mask reads as, judged on the normalised defined bits (`& 0xFF`).
    public var level: AccessLevel {
        switch normalized.rawValue & Self.all.rawValue {
        case 0: return .view
        case Self.controllerOnly.rawValue: return .controller
        case Self.all.rawValue: return .full
        default: return .custom
        }
    }
}

/// How an access mask reads to a person (upstream `grant-vectors.json` level names).
public enum AccessLevel: String, Sendable, CaseIterable {
    case view, controller, full, custom
}
