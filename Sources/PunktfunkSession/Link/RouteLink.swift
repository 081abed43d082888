import Glibc
import Foundation
import PunktfunkWire

/// The box's end of the path to a host (ClientHello tag 22, control-plane.md §3.2): the
/// interface the kernel routes the host's address through, and what kind of link it is, read
/// from sysfs as the kernel documents it (Documentation/ABI/testing/sysfs-class-net):
///
/// - nl80211 knows the interface, or sysfs has `phy80211` (a link to the cfg80211 wiphy) or a
///   `wireless` directory: Wi-Fi. Its speed is not in sysfs (nl80211's station bitrate is).
/// - `type` 1 (ARPHRD_ETHER) and no wireless: Ethernet, at `speed` Mbit/s when the driver says
///   (a virtual device — no `device` link: a bridge, veth, a VM's virtio without speed — says -1
///   or nothing: 0).
/// - `type` 772 (ARPHRD_LOOPBACK) and everything else (tun, WireGuard, PPP): other.
///
/// The route is the kernel's own choice: a UDP socket connected to the host (no packet is sent)
/// names the local address, and getifaddrs(3) the interface that holds it.
public enum RouteLink {
    /// What was found: the interface, the wire's facts and one sentence for the start-up lines.
    public struct Finding: Sendable, Equatable {
        public var interface: String
        public var facts: LinkFacts
        public var sentence: String
    }

    /// The link toward `remote`, nil when the kernel has no route to it (or no interface holds the
    /// local address it chose).
    public static func toward(_ remote: SocketAddress, sysfs: String = "/sys/class/net") -> Finding? {
        guard let local = localAddress(toward: remote), let name = interfaceName(holding: local) else { return nil }
        return classify(interface: name, sysfs: sysfs)
    }

    /// The kind of `interface`: Wi-Fi when nl80211 knows it (netlink answers for the caller's
    /// network namespace, which sysfs may not show), else from its sysfs directory under `sysfs`.
    public static func classify(interface name: String, sysfs: String = "/sys/class/net") -> Finding {
        let dir = "\(sysfs)/\(name)"
        let index = if_nametoindex(name)
        if exists("\(dir)/phy80211") || exists("\(dir)/wireless") || (index > 0 && (try? NL80211())?.isWireless(index) == true) {
            return Finding(interface: name, facts: LinkFacts(kind: .wifi, mbps: 0), sentence: "\(name) is Wi-Fi")
        }
        let type = read("\(dir)/type").flatMap { Int($0) }
        switch type {
        case 1?:
            let speed = read("\(dir)/speed").flatMap { Int($0) } ?? -1
            let mbps = UInt32(clamping: max(0, speed))
            let at = mbps > 0 ? " at \(mbps) Mbit/s" : " (its driver gives no speed)"
            return Finding(interface: name, facts: LinkFacts(kind: .ethernet, mbps: mbps), sentence: "\(name) is Ethernet\(at)")
        case 772?:
            return Finding(interface: name, facts: LinkFacts(kind: .other, mbps: 0), sentence: "\(name) is the loopback")
        case let t?:
            return Finding(interface: name, facts: LinkFacts(kind: .other, mbps: 0), sentence: "\(name) is neither Ethernet nor Wi-Fi (ARPHRD \(t))")
        case nil:
            return Finding(interface: name, facts: .unknown, sentence: "\(name)'s kind is unknown (no \(dir)/type)")
        }
    }

    // MARK: - The route

    /// The local address the kernel picks for `remote` (connect(2) on a UDP socket sends nothing).
    static func localAddress(toward remote: SocketAddress) -> [UInt8]? {
        var r = remote
        let family = Int32(r.storage.ss_family)
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let connected = withUnsafePointer(to: &r.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, r.length) }
        }
        guard connected == 0 else { return nil }
        var local = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return nil }
        return addressBytes(&local)
    }

    /// The interface that holds `address` (4 or 16 bytes, network order).
    static func interfaceName(holding address: [UInt8]) -> String? {
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0 else { return nil }
        defer { freeifaddrs(head) }
        var cursor = head
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let a = entry.pointee.ifa_addr else { continue }
            let bytes: [UInt8]?
            switch Int32(a.pointee.sa_family) {
            case AF_INET: bytes = a.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in withUnsafeBytes(of: p.pointee.sin_addr) { Array($0) } }
            case AF_INET6: bytes = a.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in withUnsafeBytes(of: p.pointee.sin6_addr) { Array($0) } }
            default: bytes = nil
            }
            if bytes == address { return String(cString: entry.pointee.ifa_name) }
        }
        return nil
    }

    private static func addressBytes(_ s: inout sockaddr_storage) -> [UInt8]? {
        switch Int32(s.ss_family) {
        case AF_INET: return withUnsafePointer(to: &s) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in withUnsafeBytes(of: p.pointee.sin_addr) { Array($0) } } }
        case AF_INET6: return withUnsafePointer(to: &s) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in withUnsafeBytes(of: p.pointee.sin6_addr) { Array($0) } } }
        default: return nil
        }
    }

    private static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// A sysfs attribute's first line, trimmed (nil: unreadable, as `speed` is while a link is down).
    private static func read(_ path: String) -> String? {
        guard let f = fopen(path, "r") else { return nil }
        defer { fclose(f) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), f) != nil else { return nil }
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
