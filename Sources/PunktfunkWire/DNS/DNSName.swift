/// A domain name as a list of labels (raw bytes, case kept), without the root label.
///
/// Invariant: every label is 1…63 bytes and the wire form — a length byte per label, the label
/// bytes, and the root's zero byte — is at most 255 bytes (RFC 1035 §2.3.4). DNS-SD instance labels
/// are free UTF-8 and may contain dots (RFC 6763 §4.3), so a label is bytes, never split on ".".
public struct DNSName: Hashable, Sendable {
    public let labels: [[UInt8]]

    /// Wire length of this name uncompressed: Σ(1 + label) + 1.
    public var wireLength: Int { labels.reduce(1) { $0 + 1 + $1.count } }

    public static let root = DNSName(checked: [])

    public init(labels: [[UInt8]]) throws(DNSError) {
        var length = 1
        for label in labels {
            guard !label.isEmpty, label.count <= 63 else { throw .badLabel(offset: 0, length: UInt8(truncatingIfNeeded: label.count)) }
            length += 1 + label.count
        }
        guard length <= 255 else { throw .nameTooLong(offset: 0) }
        self.labels = labels
    }

    /// Labels already known to satisfy the invariant (the decoder checked them).
    init(checked labels: [[UInt8]]) { self.labels = labels }

    /// A name from dotted text (`"_punktfunk._udp.local."`); the trailing dot is optional. Labels
    /// are split on every dot, so this is for names whose labels hold none.
    public init(_ dotted: String) throws(DNSError) {
        let parts = dotted.split(separator: ".", omittingEmptySubsequences: true)
        try self.init(labels: parts.map { Array($0.utf8) })
    }

    /// `label` in front of `self` (an instance name before its service type).
    public func prepending(_ label: [UInt8]) throws(DNSError) -> DNSName {
        try DNSName(labels: [label] + labels)
    }

    /// ASCII-case-insensitive equality, as DNS compares names (RFC 1035 §2.3.3, RFC 6762 §16).
    public func matches(_ other: DNSName) -> Bool {
        guard labels.count == other.labels.count else { return false }
        for (a, b) in zip(labels, other.labels) {
            guard a.count == b.count else { return false }
            for (x, y) in zip(a, b) where Self.lower(x) != Self.lower(y) { return false }
        }
        return true
    }

    /// Whether `self` ends with `suffix` (case-insensitive) and has at least one more label.
    public func isStrictSubdomain(of suffix: DNSName) -> Bool {
        labels.count > suffix.labels.count
            && DNSName(checked: Array(labels.suffix(suffix.labels.count))).matches(suffix)
    }

    @inline(__always) static func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
}

extension DNSName: CustomStringConvertible {
    /// Dotted text with a trailing dot; dots and backslashes inside a label are escaped with `\`,
    /// bytes outside printable ASCII as `\DDD` unless they form valid UTF-8.
    public var description: String {
        if labels.isEmpty { return "." }
        return labels.map { label in
            let text = String(decoding: label, as: UTF8.self)
            var out = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case ".", "\\": out += "\\" + String(scalar)
                case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                    out += "\\" + String(repeating: "0", count: 3 - String(scalar.value).count) + String(scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out
        }.joined(separator: ".") + "."
    }
}
