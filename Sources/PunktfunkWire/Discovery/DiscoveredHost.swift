/// One punktfunk host as its DNS-SD advert describes it (control-plane.md §7). Everything here is
/// advisory and unauthenticated: discovery lists hosts, the pinned fingerprint decides trust, and
/// a connect verifies the certificate whatever `fingerprint` says.
public struct DiscoveredHost: Equatable, Sendable, Codable {
    /// Dedup key: TXT `id`, else the full instance name.
    public var id: String
    /// The instance label (the host's display name, free text).
    public var name: String
    /// SRV target (`<dns-label>.local.`).
    public var target: String
    /// SRV port: the QUIC port.
    public var port: UInt16
    /// Resolved addresses of `target`: IPv4 first (the TXT `addr` one leading), then IPv6;
    /// link-local IPv6 carries `%<interface index>`.
    public var addresses: [String]
    /// TXT `fp` when it is 64 hex digits (lowercased); a pre-pin candidate only.
    public var fingerprint: String?
    /// TXT `pair`: `required` | `optional` (other values kept as given).
    public var pair: String?
    /// TXT `mgmt`; absent or 0 ⇒ 47990.
    public var managementPort: UInt16
    /// TXT `mac`, each `aa:bb:cc:dd:ee:ff` (malformed entries dropped), routed NIC first.
    public var macs: [String]
    /// TXT `os`, sanitised: lowercase `[a-z0-9._-]`, ≤ 5 `/`-tokens of ≤ 32.
    public var os: String?
    /// TXT `proto` (empty or `punktfunk/1`; adverts with any other value are dropped).
    public var proto: String?
    /// TXT `wire` protocol numbers; empty ⇒ punktfunk/1 only.
    public var wire: [Int]

    public init(id: String, name: String, target: String, port: UInt16, addresses: [String], fingerprint: String? = nil,
                pair: String? = nil, managementPort: UInt16 = 47990, macs: [String] = [], os: String? = nil,
                proto: String? = nil, wire: [Int] = []) {
        self.id = id; self.name = name; self.target = target; self.port = port; self.addresses = addresses
        self.fingerprint = fingerprint; self.pair = pair; self.managementPort = managementPort; self.macs = macs
        self.os = os; self.proto = proto; self.wire = wire
    }

    /// `addresses[0]:port` (IPv6 bracketed), the address a connect dials; nil without addresses.
    public var dialAddress: String? { addresses.first.map { Self.dialAddress(ip: $0, port: port) } }

    /// `ip:port`, an IPv6 literal bracketed: what a connect dials.
    public static func dialAddress(ip: String, port: UInt16) -> String {
        ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }
}

/// TXT value checks of control-plane.md §7.
public enum AdvertText {
    /// 64 hex digits, lowercased; nil otherwise.
    public static func fingerprint(_ text: String?) -> String? {
        guard let text, text.utf8.count == 64, text.utf8.allSatisfy({ $0 < 0x80 && Character(Unicode.Scalar($0)).isHexDigit }) else { return nil }
        return text.lowercased()
    }

    /// A MAC as `aa:bb:cc:dd:ee:ff` from `:`/`-` separated or bare hex; nil otherwise.
    public static func mac(_ text: Substring) -> String? {
        bytes(ofMAC: text).map { $0.map { String($0, radix: 16).leftPadded(2) }.joined(separator: ":") }
    }

    /// The six bytes of a MAC written with `:`/`-` separators or as 12 bare hex digits.
    public static func bytes(ofMAC text: Substring) -> [UInt8]? {
        let digits = text.filter { $0 != ":" && $0 != "-" }
        guard digits.count == 12, text.count == 12 || text.count == 17 else { return nil }
        var out: [UInt8] = []
        var index = digits.startIndex
        for _ in 0..<6 {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            out.append(byte)
            index = next
        }
        return out
    }

    /// The `os` chain sanitised as the reference client does.
    public static func os(_ text: String?) -> String? {
        guard let text else { return nil }
        let tokens = text.lowercased().split(separator: "/", omittingEmptySubsequences: true).prefix(5).map { token in
            String(token.unicodeScalars.filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0) }
                .prefix(32).map(Character.init))
        }.filter { !$0.isEmpty }
        return tokens.isEmpty ? nil : tokens.joined(separator: "/")
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}

/// IP address text without the C library (RFC 5952 form for IPv6).
public enum IPAddressText {
    public static func ipv4(_ b: [UInt8]) -> String { b.map(String.init).joined(separator: ".") }

    public static func ipv6(_ b: [UInt8], scope: UInt32 = 0) -> String {
        let groups = stride(from: 0, to: 16, by: 2).map { UInt16(b[$0]) << 8 | UInt16(b[$0 + 1]) }
        // Longest run (≥ 2) of zero groups, first one on a tie, becomes "::".
        var best = (start: -1, length: 0), run = (start: -1, length: 0)
        for (i, g) in groups.enumerated() {
            if g == 0 {
                run = run.start < 0 ? (i, 1) : (run.start, run.length + 1)
                if run.length > best.length { best = run }
            } else {
                run = (-1, 0)
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        var text: String
        if best.length >= 2 {
            text = hex[0..<best.start].joined(separator: ":") + "::" + hex[(best.start + best.length)...].joined(separator: ":")
        } else {
            text = hex.joined(separator: ":")
        }
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 && scope != 0 { text += "%\(scope)" }
        return text
    }
}
