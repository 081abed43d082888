import Foundation

/// `--screendump-at 5,20`: picture numbers at which the presenter pauses for a test harness's
/// screendump. Nil when the text is not a comma-separated list of non-negative integers.
enum ScreendumpList {
    static func parse(_ text: String?) -> Set<Int>? {
        guard let text else { return [] }
        var out = Set<Int>()
        for part in text.split(separator: ",") {
            guard let n = Int(part.trimmingCharacters(in: .whitespaces)), n >= 0 else { return nil }
            out.insert(n)
        }
        return out
    }
}
