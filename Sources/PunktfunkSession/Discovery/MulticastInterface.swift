import Glibc

/// A network interface that is up and multicast-capable, with its addresses (getifaddrs(3)).
public struct MulticastInterface: Sendable, Equatable {
    public var name: String
    public var index: UInt32
    /// IPv4 addresses, network order bytes, with each one's directed broadcast (nil on
    /// point-to-point or loopback links).
    public var ipv4: [(address: [UInt8], broadcast: [UInt8]?)]
    public var hasIPv6: Bool
    public var isLoopback: Bool

    public static func == (a: Self, b: Self) -> Bool {
        a.name == b.name && a.index == b.index && a.hasIPv6 == b.hasIPv6 && a.ipv4.map(\.address) == b.ipv4.map(\.address)
    }

    /// Every interface with IFF_UP; `multicastOnly` keeps those with IFF_MULTICAST (loopback has
    /// it only when set with `ip link set lo multicast on`).
    public static func list(multicastOnly: Bool = true) -> [MulticastInterface] {
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0, let first = head else { return [] }
        defer { freeifaddrs(head) }
        var byName: [String: MulticastInterface] = [:]
        var order: [String] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, let addr = entry.pointee.ifa_addr else { continue }
            if multicastOnly && flags & Int32(IFF_MULTICAST) == 0 { continue }
            let name = String(cString: entry.pointee.ifa_name)
            if byName[name] == nil {
                byName[name] = MulticastInterface(name: name, index: if_nametoindex(entry.pointee.ifa_name), ipv4: [],
                                                  hasIPv6: false, isLoopback: flags & Int32(IFF_LOOPBACK) != 0)
                order.append(name)
            }
            switch Int32(addr.pointee.sa_family) {
            case AF_INET:
                let bytes = addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in withUnsafeBytes(of: p.pointee.sin_addr) { Array($0) } }
                var broadcast: [UInt8]?
                if flags & Int32(IFF_BROADCAST) != 0, let b = entry.pointee.ifa_ifu.ifu_broadaddr {
                    broadcast = b.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in withUnsafeBytes(of: p.pointee.sin_addr) { Array($0) } }
                }
                byName[name]!.ipv4.append((bytes, broadcast))
            case AF_INET6:
                byName[name]!.hasIPv6 = true
            default:
                break
            }
        }
        return order.map { byName[$0]! }
    }
}
