import Glibc
import PunktfunkWire

/// The UDP sockets mDNS runs on (RFC 6762), IPv4 and IPv6.
///
/// Two modes, chosen at `init`:
/// - `.shared`: bound to port 5353 with SO_REUSEADDR + SO_REUSEPORT and joined to 224.0.0.251 /
///   ff02::fb on every multicast interface, beside avahi-daemon or systemd-resolved (both set
///   SO_REUSEADDR, which is what Linux needs to share a multicast port). This mode sees every
///   answer on the link — other clients' queries' answers, announcements and goodbyes — so the
///   list is live.
/// - `.oneShot`: when 5353 cannot be bound (a responder holding it without SO_REUSEADDR, or a
///   policy refusing it), an ephemeral port. Queries then go out from that port, which makes them
///   "legacy unicast" queries (§6.7): responders answer by unicast to the port, with TTLs of at most
///   10 s, and announcements and goodbyes are not seen. The browser re-queries often enough
///   (`oneShotMaximumInterval`) that hosts stay listed and vanish within ~10 s of going away.
///
/// Both sockets are nonblocking; receive returns nil when nothing is queued. The multicast TTL /
/// hop limit is 255 (§11).
public final class MDNSSocket {
    public enum Mode: String, Sendable { case shared, oneShot = "one-shot" }

    public static let port: UInt16 = 5353
    public static let groupV4: [UInt8] = [224, 0, 0, 251]
    public static let groupV6: [UInt8] = [0xFF, 0x02] + [UInt8](repeating: 0, count: 13) + [0xFB]

    public let mode: Mode
    /// The port queries and announcements go to: 5353 except in tests.
    public let groupPort: UInt16
    public private(set) var ipv4: Int32 = -1
    public private(set) var ipv6: Int32 = -1
    /// Interfaces joined (shared mode) or sent on.
    public private(set) var interfaces: [MulticastInterface]
    /// A line per interface a join or send was refused on, for the caller's log; each distinct
    /// line once (a refused send repeats with every query).
    public private(set) var notes: [String] = []
    var noted: Set<String> = []

    func note(_ line: String) {
        if noted.insert(line).inserted { notes.append(line) }
    }

    /// Opens the sockets; `port` is 5353 except in tests. With `allowOneShot` false a 5353 that
    /// cannot be bound throws instead of falling back (a responder must own 5353).
    /// `oneShot` skips the attempt at `port` (tests of the fallback path).
    public init(port: UInt16 = MDNSSocket.port, allowOneShot: Bool = true, oneShot: Bool = false) throws(QuicError) {
        interfaces = MulticastInterface.list()
        groupPort = port
        var mode = Mode.shared
        var early: [String] = []
        do throws(QuicError) {
            if oneShot { throw QuicError.socket(errno: EADDRINUSE, call: "one-shot mode asked for") as QuicError }
            ipv4 = try Self.open(family: AF_INET, port: port)
        } catch {
            guard allowOneShot else { throw error }
            early.append("mDNS port \(port) cannot be shared (\(error)); using one-shot queries from an ephemeral port")
            mode = .oneShot
            ipv4 = try Self.open(family: AF_INET, port: 0)
        }
        do {
            ipv6 = try Self.open(family: AF_INET6, port: mode == .shared ? port : 0)
        } catch {
            early.append("no IPv6 mDNS socket: \(error)")
        }
        self.mode = mode
        for line in early { note(line) }
        if mode == .shared { join() }
    }

    deinit { close() }

    public func close() {
        if ipv4 >= 0 { Glibc.close(ipv4); ipv4 = -1 }
        if ipv6 >= 0 { Glibc.close(ipv6); ipv6 = -1 }
    }

    static func open(family: Int32, port: UInt16) throws(QuicError) -> Int32 {
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .socket(errno: errno, call: "socket") }
        var on: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, size)
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, size)
        var ttl: Int32 = 255
        var rc: Int32
        if family == AF_INET6 {
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, size)
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_HOPS, &ttl, size)
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_LOOP, &on, size)
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            rc = withUnsafePointer(to: &sin6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var ttl8: UInt8 = 255, loop8: UInt8 = 1
            _ = setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_TTL, &ttl8, 1)
            _ = setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_LOOP, &loop8, 1)
            _ = setsockopt(fd, Int32(IPPROTO_IP), IP_TTL, &ttl, size)
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            rc = withUnsafePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        guard rc == 0 else {
            let e = errno
            Glibc.close(fd)
            throw .socket(errno: e, call: "bind mDNS port \(port)")
        }
        return fd
    }

    /// Joins the groups on every interface; a refusal is a note, not a failure.
    func join() {
        for interface in interfaces {
            if ipv4 >= 0, !interface.ipv4.isEmpty {
                var request = ip_mreqn()
                request.imr_multiaddr.s_addr = Self.groupV4.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
                request.imr_ifindex = Int32(interface.index)
                if setsockopt(ipv4, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &request, socklen_t(MemoryLayout<ip_mreqn>.size)) != 0 {
                    note("cannot join 224.0.0.251 on \(interface.name): \(String(cString: strerror(errno)))")
                }
            }
            if ipv6 >= 0, interface.hasIPv6 {
                var request = ipv6_mreq()
                Self.groupV6.withUnsafeBytes { src in withUnsafeMutableBytes(of: &request.ipv6mr_multiaddr) { $0.copyMemory(from: src) } }
                request.ipv6mr_interface = interface.index
                if setsockopt(ipv6, Int32(IPPROTO_IPV6), IPV6_ADD_MEMBERSHIP, &request, socklen_t(MemoryLayout<ipv6_mreq>.size)) != 0 {
                    note("cannot join ff02::fb on \(interface.name): \(String(cString: strerror(errno)))")
                }
            }
        }
    }

    /// Sends `bytes` to the mDNS group on every interface (IPv4 and IPv6).
    /// - Returns: how many sends the kernel took; refusals are appended to `notes`.
    @discardableResult
    public func sendMulticast(_ bytes: [UInt8]) -> Int {
        var sent = 0
        for interface in interfaces {
            if ipv4 >= 0, !interface.ipv4.isEmpty {
                var request = ip_mreqn()
                request.imr_ifindex = Int32(interface.index)
                _ = setsockopt(ipv4, Int32(IPPROTO_IP), IP_MULTICAST_IF, &request, socklen_t(MemoryLayout<ip_mreqn>.size))
                if send(bytes, fd: ipv4, to: Self.v4(Self.groupV4, port: groupPort), interface: interface.name) { sent += 1 }
            }
            if ipv6 >= 0, interface.hasIPv6 {
                var index = Int32(interface.index)
                _ = setsockopt(ipv6, Int32(IPPROTO_IPV6), IPV6_MULTICAST_IF, &index, socklen_t(MemoryLayout<Int32>.size))
                if send(bytes, fd: ipv6, to: Self.v6(Self.groupV6, port: groupPort, scope: interface.index), interface: interface.name) { sent += 1 }
            }
        }
        return sent
    }

    /// Sends `bytes` by unicast to `destination` (a legacy-unicast answer, a test).
    @discardableResult
    public func sendUnicast(_ bytes: [UInt8], to destination: SocketAddress) -> Bool {
        send(bytes, fd: destination.isIPv6 ? ipv6 : ipv4, to: destination, interface: nil)
    }

    func send(_ bytes: [UInt8], fd: Int32, to destination: SocketAddress, interface: String?) -> Bool {
        guard fd >= 0 else { return false }
        let n = destination.withSockAddr { address, length in bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, address, length) } }
        if n < 0 {
            note("mDNS send to \(destination)\(interface.map { " on \($0)" } ?? "") refused: \(String(cString: strerror(errno)))")
            return false
        }
        return true
    }

    /// One received datagram from either socket, or nil when none is queued. `scope` is the
    /// sender's IPv6 scope (interface index) or 0.
    public func receive(into buffer: inout [UInt8]) -> (count: Int, from: SocketAddress, scope: UInt32)? {
        for fd in [ipv4, ipv6] where fd >= 0 {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let n = buffer.withUnsafeMutableBytes { raw in
                withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT), $0, &length) } }
            }
            guard n >= 0 else { continue }
            let from = SocketAddress(storage: storage, length: length)
            let scope = from.isIPv6 ? withUnsafeBytes(of: storage) { $0.loadUnaligned(fromByteOffset: 0, as: sockaddr_in6.self).sin6_scope_id } : 0
            return (n, from, scope)
        }
        return nil
    }

    static func v4(_ bytes: [UInt8], port: UInt16) -> SocketAddress {
        SocketAddress(ip: IPAddressText.ipv4(bytes), port: port)!
    }

    static func v6(_ bytes: [UInt8], port: UInt16, scope: UInt32) -> SocketAddress {
        var sin6 = sockaddr_in6()
        sin6.sin6_family = sa_family_t(AF_INET6)
        sin6.sin6_port = port.bigEndian
        sin6.sin6_scope_id = scope
        bytes.withUnsafeBytes { src in withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyMemory(from: src) } }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { dst in withUnsafeBytes(of: sin6) { dst.copyMemory(from: $0) } }
        return SocketAddress(storage: storage, length: socklen_t(MemoryLayout<sockaddr_in6>.size))
    }
}
