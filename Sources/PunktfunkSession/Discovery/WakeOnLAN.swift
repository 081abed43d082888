import Glibc
import PunktfunkWire

/// Sends Wake-on-LAN magic packets (`MagicPacket`) for one MAC: to each interface's IPv4
/// directed broadcast, to 255.255.255.255, and by unicast to the host's last known address (which
/// reaches it while the switch or the host's ARP entry still knows it).
public enum WakeOnLAN {
    public static let defaultPort: UInt16 = 9

    public struct Send: Sendable, Equatable {
        public var destination: String
        /// nil when the kernel took it; else the refusal (e.g. "Network is unreachable").
        public var error: String?
    }

    /// The destinations for `lastAddress` (an IPv4 or IPv6 literal, optional), in send order.
    public static func destinations(lastAddress: String?, port: UInt16) -> [SocketAddress] {
        var out: [SocketAddress] = []
        for interface in MulticastInterface.list(multicastOnly: false) where !interface.isLoopback {
            for v4 in interface.ipv4 {
                if let b = v4.broadcast, let address = SocketAddress(ip: IPAddressText.ipv4(b), port: port), !out.contains(address) {
                    out.append(address)
                }
            }
        }
        out.append(SocketAddress(ip: "255.255.255.255", port: port)!)
        if let lastAddress, let unicast = SocketAddress(ip: lastAddress, port: port) { out.append(unicast) }
        return out
    }

    /// Sends the packet to every destination; one result per destination.
    public static func wake(mac: [UInt8], destinations: [SocketAddress]) -> [Send] {
        let packet = MagicPacket.bytes(for: mac)
        var results: [Send] = []
        var sockets: [Bool: Int32] = [:]
        defer { for fd in sockets.values { close(fd) } }
        for destination in destinations {
            let fd: Int32
            if let open = sockets[destination.isIPv6] {
                fd = open
            } else {
                fd = socket(destination.isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
                guard fd >= 0 else { results.append(Send(destination: destination.description, error: String(cString: strerror(errno)))); continue }
                var on: Int32 = 1
                _ = setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &on, socklen_t(MemoryLayout<Int32>.size))
                sockets[destination.isIPv6] = fd
            }
            let n = destination.withSockAddr { address, length in packet.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, address, length) } }
            results.append(Send(destination: destination.description, error: n == packet.count ? nil : String(cString: strerror(errno))))
        }
        return results
    }
}
