/// 802.11 information elements (IEEE 802.11 §9.4.2: element id, length, body — as nl80211 hands
/// a BSS's probe-response and beacon elements over).
public enum WiFiElements {
    /// The SSID element's text (id 0; nil: absent, empty — a hidden network — not UTF-8, or the
    /// elements run past their end before it).
    public static func ssid(_ elements: ArraySlice<UInt8>) -> String? {
        var i = elements.startIndex
        while i + 2 <= elements.endIndex {
            let id = elements[i], length = Int(elements[i + 1])
            let body = i + 2
            guard body + length <= elements.endIndex else { return nil }
            if id == 0 {
                guard length > 0 else { return nil }
                return String(validating: elements[body..<(body + length)], as: UTF8.self)
            }
            i = body + length
        }
        return nil
    }
}
