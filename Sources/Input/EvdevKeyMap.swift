/// Linux evdev key code → Windows virtual-key code, by key position on a US layout (the host
/// types what the key's position means there; data-plane.md §6.2 "Keyboard"). Left and right
/// modifiers keep their sides (VK_LSHIFT 0xA0 … VK_RWIN 0x5C). The table covers codes 0…255 and
/// is pinned by upstream `evdev-vk-vectors.json` (114 codes map; 0 in the table = unmapped).
public enum EvdevKeyMap {
    /// The VK for `code`, nil when the key has no VK (or the code is past 255).
    public static func vk(evdev code: UInt16) -> UInt8? {
        guard Int(code) < table.count else { return nil }
        let v = table[Int(code)]
        return v == 0 ? nil : v
    }

    /// Indexed by evdev code; 0 = no VK.
    private static let table: [UInt8] = [
        0, 27, 49, 50, 51, 52, 53, 54, 55, 56, 57, 48, 189, 187, 8, 9,
        81, 87, 69, 82, 84, 89, 85, 73, 79, 80, 219, 221, 13, 162, 65, 83,
        68, 70, 71, 72, 74, 75, 76, 186, 222, 192, 160, 220, 90, 88, 67, 86,
        66, 78, 77, 188, 190, 191, 161, 106, 164, 32, 20, 112, 113, 114, 115, 116,
        117, 118, 119, 120, 121, 144, 145, 103, 104, 105, 109, 100, 101, 102, 107, 97,
        98, 99, 96, 110, 0, 243, 226, 122, 123, 193, 0, 0, 28, 242, 29, 0,
        108, 163, 111, 44, 165, 0, 36, 38, 33, 37, 39, 35, 40, 34, 45, 46,
        0, 0, 0, 0, 0, 0, 0, 19, 0, 194, 21, 25, 225, 91, 92, 93,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ]
}
