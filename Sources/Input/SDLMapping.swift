import Foundation
import PunktfunkWire

/// One SDL game-controller mapping line (`GUID,name,a:b0,b:b1,…,platform:Linux,`) for a pad the
/// kernel maps oddly: which evdev button (`bN`, the N-th present key in SDL's order) or axis
/// (`aN`) is which wire button or stick. Hats (`hN.M`) are read by the kernel's d-pad rule
/// already and are skipped; so are half-axis and inverted-axis forms this mapper does not read
/// (`+a1`, `a1~`). Pure.
public struct SDLMapping: Sendable, Equatable {
    /// 32 lowercase hex digits.
    public var guid: String
    public var name: String
    /// Wire button → SDL button index.
    public var buttons: [(GamepadButtons, Int)]
    /// Wire axis → SDL axis index.
    public var axes: [(GamepadAxis, Int)]

    public static func == (a: SDLMapping, b: SDLMapping) -> Bool {
        a.guid == b.guid && a.name == b.name && a.buttons.map { "\($0.0.rawValue):\($0.1)" } == b.buttons.map { "\($0.0.rawValue):\($0.1)" }
            && a.axes.map { "\($0.0.rawValue):\($0.1)" } == b.axes.map { "\($0.0.rawValue):\($0.1)" }
    }

    private static let buttonNames: [String: GamepadButtons] = [
        "a": .a, "b": .b, "x": .x, "y": .y, "back": .back, "start": .start, "guide": .guide,
        "leftshoulder": .leftBumper, "rightshoulder": .rightBumper, "leftstick": .leftStickClick,
        "rightstick": .rightStickClick, "dpup": .dpadUp, "dpdown": .dpadDown, "dpleft": .dpadLeft,
        "dpright": .dpadRight, "misc1": .misc1, "touchpad": .touchpad, "paddle1": .paddle1,
        "paddle2": .paddle2, "paddle3": .paddle3, "paddle4": .paddle4,
    ]
    private static let axisNames: [String: GamepadAxis] = [
        "leftx": .leftStickX, "lefty": .leftStickY, "rightx": .rightStickX, "righty": .rightStickY,
        "lefttrigger": .leftTrigger, "righttrigger": .rightTrigger,
    ]

    /// Parses one line; nil for comments, blank lines, other platforms and malformed GUIDs.
    public init?(line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
        let fields = trimmed.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 3 else { return nil }
        let g = fields[0].lowercased()
        guard g.count == 32, g.allSatisfy(\.isHexDigit) else { return nil }
        guid = g
        name = fields[1]
        buttons = []
        axes = []
        for f in fields.dropFirst(2) {
            let kv = f.split(separator: ":", maxSplits: 1).map(String.init)
            guard kv.count == 2 else { continue }
            if kv[0] == "platform", kv[1] != "Linux" { return nil }
            if let b = Self.buttonNames[kv[0]], kv[1].hasPrefix("b"), let i = Int(kv[1].dropFirst()) { buttons.append((b, i)) }
            else if let a = Self.axisNames[kv[0]], kv[1].hasPrefix("a"), let i = Int(kv[1].dropFirst()) { axes.append((a, i)) }
        }
    }

    /// `layout` with this mapping's buttons and axes, resolved against the device's own lists.
    public func apply(to layout: GamepadLayout, buttons codes: [UInt16], axes absCodes: [UInt16]) -> GamepadLayout {
        var out = layout
        var overrides: [UInt16: GamepadButtons] = [:]
        for (b, i) in buttons where codes.indices.contains(i) { overrides[codes[i]] = b }
        out.buttonOverrides = overrides
        for (a, i) in axes where absCodes.indices.contains(i) { out.axisCodes[Int(a.rawValue)] = absCodes[i] }
        return out
    }

    /// The GUID SDL (2.26+) builds for a Linux evdev device: bus, CRC-16 of the name, vendor, 0,
    /// product, 0, version (all u16 little-endian), driver signature 0, driver data 0 — as hex.
    /// Without vendor and product, the name's first 12 bytes stand in after the bus and CRC.
    public static func guid(bustype: UInt16, vendor: UInt16, product: UInt16, version: UInt16, name: String) -> String {
        var b = [UInt8](repeating: 0, count: 16)
        func put(_ v: UInt16, at i: Int) { b[i] = UInt8(v & 0xFF); b[i + 1] = UInt8(v >> 8) }
        put(bustype, at: 0)
        put(crc16(Array(name.utf8)), at: 2)
        if vendor != 0 && product != 0 {
            put(vendor, at: 4); put(product, at: 8); put(version, at: 12)
        } else {
            for (i, c) in name.utf8.prefix(12).enumerated() { b[4 + i] = c }
        }
        return b.map { String(format: "%02x", $0) }.joined()
    }

    /// The mapping for `guid`: an exact match, else one whose GUID has no name CRC (bytes 2–3
    /// zero, as most published lines are).
    public static func find(_ guid: String, in mappings: [SDLMapping]) -> SDLMapping? {
        if let m = mappings.first(where: { $0.guid == guid }) { return m }
        let noCRC = String(guid.prefix(4)) + "0000" + String(guid.dropFirst(8))
        return mappings.first { $0.guid == noCRC }
    }

    /// SDL's CRC-16 (reflected polynomial 0xA001, initial 0).
    public static func crc16(_ bytes: [UInt8]) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        }
        return crc
    }

    /// Mapping lines from a text (a file, or `SDL_GAMECONTROLLERCONFIG` with newlines).
    public static func parse(_ text: String) -> [SDLMapping] {
        text.split(whereSeparator: \.isNewline).compactMap { SDLMapping(line: String($0)) }
    }
}
