import Foundation

/// Key names as a person writes them in a config (escape chords, bindings) → Windows VK, the
/// rules of upstream `punktfunk_core::input::key_vk`, pinned by `key-vk-vectors.json`: names are
/// trimmed and case-blind; modifiers are side-less (VK_CONTROL 0x11, VK_SHIFT 0x10, VK_MENU
/// 0x12, VK_LWIN 0x5B); a single letter or digit is its ASCII-uppercase VK; `f1`…`f24` are
/// 0x70…0x87 with the number read as an unsigned byte (`f01` and `f+1` are F1; `f0`, `f25`,
/// `f256`, `f-1` are refused). Everything else, punctuation included, has no VK.
public enum KeyNames {
    public static func vk(named raw: String) -> UInt8? {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if let vk = named[name] { return vk }
        let scalars = Array(name.unicodeScalars)
        if scalars.count == 1, let c = scalars.first, c.isASCII {
            switch c {
            case "a"..."z": return UInt8(c.value) - 0x20
            case "0"..."9": return UInt8(c.value)
            default: return nil
            }
        }
        if name.hasPrefix("f"), let n = byte(name.dropFirst()), (1...24).contains(n) {
            return 0x6F + n
        }
        return nil
    }

    /// An unsigned byte in decimal with an optional leading `+` (Rust's `u8::from_str`).
    private static func byte(_ s: Substring) -> UInt8? {
        let digits = s.hasPrefix("+") ? s.dropFirst() : s
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt8(digits)
    }

    private static let named: [String: UInt8] = [
        "ctrl": 0x11, "control": 0x11, "shift": 0x10, "alt": 0x12, "option": 0x12,
        "win": 0x5B, "cmd": 0x5B, "super": 0x5B, "meta": 0x5B,
        "escape": 0x1B, "esc": 0x1B, "tab": 0x09, "enter": 0x0D, "return": 0x0D, "space": 0x20,
        "backspace": 0x08, "delete": 0x2E, "del": 0x2E, "insert": 0x2D, "home": 0x24, "end": 0x23,
        "pageup": 0x21, "pagedown": 0x22, "up": 0x26, "down": 0x28, "left": 0x25, "right": 0x27,
        "printscreen": 0x2C, "pause": 0x13, "capslock": 0x14,
    ]
}
