import Foundation
import PunktfunkWire

/// Names of the wire's pad kinds (`GamepadPref`) as configs and environment variables spell
/// them, and whether a kind has a motion plane — upstream `gamepad-kind-vectors.json`.
extension GamepadKind {
    /// The canonical name first, then the aliases.
    public var names: [String] {
        switch self {
        case .auto: ["auto", "default"]
        case .xbox360: ["xbox360", "xbox", "x360", "uinput"]
        case .dualSense: ["dualsense", "ds", "ps5"]
        case .xboxOne: ["xboxone", "xbox-one", "xone", "xbox1", "series", "xboxseries"]
        case .dualShock4: ["dualshock4", "dualshock", "ds4", "ps4"]
        case .steamController: ["steamcontroller", "steam-controller", "steamcon"]
        case .steamDeck: ["steamdeck", "steam-deck", "deck"]
        case .dualSenseEdge: ["dualsenseedge", "dualsense-edge", "edge", "dsedge"]
        case .switchPro: ["switchpro", "switch-pro", "switch", "procontroller", "pro-controller"]
        case .steamController2: ["steamcontroller2", "steam-controller-2", "steamcon2", "sc2", "ibex"]
        case .steamController2Puck: ["steamcontroller2puck", "steam-controller-2-puck", "sc2puck", "ibexpuck"]
        case .xboxElite: ["xboxelite", "xbox-elite", "elite", "xboxelite2", "elite2"]
        case .eightBitDoUltimate2: ["8bitdoultimate2", "8bitdo-ultimate-2", "ultimate2"]
        case .eightBitDoPro2: ["8bitdopro2", "8bitdo-pro-2", "pro2"]
        case .eightBitDoPro3: ["8bitdopro3", "8bitdo-pro-3", "pro3"]
        case .horipadSteam: ["horipadsteam", "horipad-steam", "hori"]
        case .joyConPair: ["joyconpair", "joycon-pair", "joycons"]
        case .switch2Pro: ["switch2pro", "switch2-pro", "procontroller2"]
        case .switch2GameCube: ["switch2gamecube", "switch2-gamecube", "gamecube"]
        }
    }

    /// The canonical name (`GamepadPref::as_str`).
    public var name: String { names[0] }

    /// The kind a name (trimmed, any case) stands for; nil for anything else.
    public init?(named raw: String) {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard let kind = Self.allCases.first(where: { $0.names.contains(name) }) else { return nil }
        self = kind
    }

    /// Whether a pad of this kind has gyro and accelerometer (Auto may).
    public var hasMotion: Bool {
        switch self {
        case .xbox360, .xboxOne, .xboxElite, .switch2GameCube: false
        default: true
        }
    }

    /// Whether a pad that declared `declared` gets its motion to the host, when the hello asked
    /// for `asked` and the host resolved (echoed) `resolved`: a kind without motion never; an
    /// old host's Auto echo never suppresses; the echo speaks for a pad only when the pad
    /// declared what the hello asked.
    public static func motionReaches(declared: GamepadKind, asked: GamepadKind, resolved: GamepadKind) -> Bool {
        guard declared.hasMotion else { return false }
        if resolved == .auto { return true }
        return declared == asked ? resolved.hasMotion : true
    }
}
