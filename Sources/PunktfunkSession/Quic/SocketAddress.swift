import Glibc

/// An IPv4 or IPv6 UDP endpoint address (a `sockaddr_in`/`sockaddr_in6` kept in a
/// `sockaddr_storage`). Value type; equality compares family, address and port.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// Invariant: `length` is `MemoryLayout<sockaddr_in>.size` for AF_INET or
    /// `MemoryLayout<sockaddr_in6>.size` for AF_INET6, and `storage` holds that address.
    var storage: sockaddr_storage
    var length: socklen_t

    /// Parses a numeric IPv4 (`127.0.0.1`) or IPv6 (`::1`) address.
    /// - Returns: nil if `ip` is not numeric.
    public init?(ip: String, port: UInt16) {
        var s = sockaddr_storage()
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, ip, &v4) == 1 {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            sin.sin_addr = v4
            withUnsafeMutableBytes(of: &s) { dst in withUnsafeBytes(of: sin) { dst.copyMemory(from: $0) } }
            self.init(storage: s, length: socklen_t(MemoryLayout<sockaddr_in>.size))
        } else if inet_pton(AF_INET6, ip, &v6) == 1 {
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            sin6.sin6_addr = v6
            withUnsafeMutableBytes(of: &s) { dst in withUnsafeBytes(of: sin6) { dst.copyMemory(from: $0) } }
            self.init(storage: s, length: socklen_t(MemoryLayout<sockaddr_in6>.size))
        } else {
            return nil
        }
    }

    init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    /// True for AF_INET6.
    public var isIPv6: Bool { Int32(storage.ss_family) == AF_INET6 }

    /// The UDP port in host byte order.
    public var port: UInt16 {
        withUnsafeBytes(of: storage) { raw in
            // sin_port and sin6_port both sit at offset 2.
            UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
        }
    }

    /// The numeric host part (`127.0.0.1`, `::1`).
    public var host: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        withUnsafeBytes(of: storage) { raw in
            if isIPv6 {
                var a = raw.loadUnaligned(fromByteOffset: 0, as: sockaddr_in6.self).sin6_addr
                _ = inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count))
            } else {
                var a = raw.loadUnaligned(fromByteOffset: 0, as: sockaddr_in.self).sin_addr
                _ = inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count))
            }
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The same endpoint with an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) turned into plain
    /// IPv4, so a dual-stack socket's view and an IPv4 socket's view compare equal
    /// (data-plane.md §8.1: media is accepted from the dialled host, "IPv4-mapped IPv6 canonicalised").
    public var canonical: SocketAddress {
        guard isIPv6 else { return self }
        let sin6 = withUnsafeBytes(of: storage) { $0.loadUnaligned(fromByteOffset: 0, as: sockaddr_in6.self) }
        let bytes = withUnsafeBytes(of: sin6.sin6_addr) { Array($0) }
        guard bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else { return self }
        return SocketAddress(ip: "\(bytes[12]).\(bytes[13]).\(bytes[14]).\(bytes[15])", port: port) ?? self
    }

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Family, port and address bytes (16 for IPv6 plus its scope id, 4 for IPv4); no allocation,
    /// since the pump compares addresses per media packet.
    private var key: (family: UInt16, port: UInt16, high: UInt64, low: UInt64, scope: UInt32) {
        withUnsafeBytes(of: storage) { raw in
            if isIPv6 {
                let sin6 = raw.loadUnaligned(fromByteOffset: 0, as: sockaddr_in6.self)
                let (high, low) = withUnsafeBytes(of: sin6.sin6_addr) {
                    ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                }
                return (UInt16(AF_INET6), port, high, low, sin6.sin6_scope_id)
            }
            let sin = raw.loadUnaligned(fromByteOffset: 0, as: sockaddr_in.self)
            return (UInt16(AF_INET), port, 0, UInt64(sin.sin_addr.s_addr), 0)
        }
    }

    public static func == (a: SocketAddress, b: SocketAddress) -> Bool {
        a.key == b.key
    }

    public func hash(into hasher: inout Hasher) {
        let k = key
        hasher.combine(k.family)
        hasher.combine(k.port)
        hasher.combine(k.high)
        hasher.combine(k.low)
        hasher.combine(k.scope)
    }

    /// Calls `body` with a `sockaddr` pointer valid only for the call.
    package func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) rethrows -> R {
        try withUnsafePointer(to: storage) { p in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, length) }
        }
    }
}
