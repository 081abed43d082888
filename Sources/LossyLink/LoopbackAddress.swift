#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 loopback address and port (127.0.0.0/8 only: the relay never sends anywhere else).
public struct LoopbackAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address in host byte order; its top octet is 127.
    public let ip: UInt32
    public let port: UInt16

    public init?(ip: UInt32, port: UInt16) {
        guard ip >> 24 == 127 else { return nil }
        self.ip = ip; self.port = port
    }

    /// "127.0.0.1:9777" (port 0 allowed: ephemeral).
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        let octets = text[..<colon].split(separator: ".", omittingEmptySubsequences: false).map { UInt8($0) }
        guard octets.count == 4, octets.allSatisfy({ $0 != nil }) else { return nil }
        let ip = octets.reduce(UInt32(0)) { $0 << 8 | UInt32($1!) }
        self.init(ip: ip, port: port)
    }

    public var description: String {
        "\(ip >> 24).\(ip >> 16 & 0xFF).\(ip >> 8 & 0xFF).\(ip & 0xFF):\(port)"
    }

    var sockaddr: sockaddr_in {
        var sa = sockaddr_in()
        sa.sin_family = sa_family_t(AF_INET)
        sa.sin_port = port.bigEndian
        sa.sin_addr.s_addr = ip.bigEndian
        return sa
    }

    init?(_ sa: sockaddr_in) {
        guard sa.sin_family == sa_family_t(AF_INET) else { return nil }
        self.init(ip: UInt32(bigEndian: sa.sin_addr.s_addr), port: UInt16(bigEndian: sa.sin_port))
    }
}
