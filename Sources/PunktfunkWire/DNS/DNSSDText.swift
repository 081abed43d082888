/// DNS-SD TXT record attributes (RFC 6763 §6): each character-string is `key=value`, `key=`
/// (empty value) or `key` (boolean, no value). Keys compare case-insensitively; the first
/// occurrence of a key wins (§6.4); strings with an empty key are ignored.
public struct DNSSDText: Hashable, Sendable {
    /// Lowercased key → value bytes (`nil` for a key without `=`), first occurrence only.
    public private(set) var attributes: [String: [UInt8]?] = [:]

    public init(strings: [[UInt8]]) {
        for s in strings {
            let eq = s.firstIndex(of: UInt8(ascii: "=")) ?? s.endIndex
            guard eq > s.startIndex else { continue }
            let key = String(decoding: s[..<eq], as: UTF8.self).lowercased()
            guard attributes[key] == nil else { continue }
            attributes[key] = eq == s.endIndex ? .some(nil) : .some(Array(s[(eq + 1)...]))
        }
    }

    /// The value of `key` as UTF-8 text; nil when absent or valueless.
    public subscript(key: String) -> String? {
        guard let value = attributes[key.lowercased()], let value else { return nil }
        return String(decoding: value, as: UTF8.self)
    }

    /// `key=value` strings in the order given, for an advertiser.
    public static func strings(_ pairs: [(String, String)]) -> [[UInt8]] {
        pairs.map { Array("\($0.0)=\($0.1)".utf8.prefix(255)) }
    }
}
