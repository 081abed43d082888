import Foundation
import Testing
import PunktfunkWire
@testable import PunktfunkSession

/// `RouteLink`: the kind of the box's link to a host (ClientHello tag 22) from sysfs, with the
/// attributes the kernel documents for /sys/class/net/<iface> (sysfs-class-net: `type` is the
/// ARPHRD number, `speed` Mbit/s or -1/unreadable when unknown; cfg80211 devices have `phy80211`,
/// wireless-extensions ones a `wireless` directory), and the real route to the loopback.
@Suite struct RouteLinkTests {
    /// A sysfs tree in a temporary directory: one directory per interface with the given files.
    static func tree(_ interfaces: [String: [String: String?]]) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pf-sysfs-\(UUID().uuidString)").path
        for (name, files) in interfaces {
            try FileManager.default.createDirectory(atPath: "\(root)/\(name)", withIntermediateDirectories: true)
            for (file, content) in files {
                if let content {
                    try content.write(toFile: "\(root)/\(name)/\(file)", atomically: true, encoding: .utf8)
                } else {
                    try FileManager.default.createDirectory(atPath: "\(root)/\(name)/\(file)", withIntermediateDirectories: true)
                }
            }
        }
        return root
    }

    @Test func wifiEthernetLoopbackAndOthersBySysfs() throws {
        let root = try Self.tree([
            "wlan0": ["type": "1\n", "phy80211": nil],          // cfg80211: ARPHRD_ETHER with a wiphy
            "wlp2s0": ["type": "1\n", "wireless": nil],         // wireless extensions only
            "enp3s0": ["type": "1\n", "speed": "1000\n"],
            "br0": ["type": "1\n", "speed": "-1\n"],            // a bridge: no speed of its own
            "lo": ["type": "772\n"],
            "wg0": ["type": "65534\n"],                         // ARPHRD_NONE (WireGuard, tun)
            "odd": [:],
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(RouteLink.classify(interface: "wlan0", sysfs: root).facts == LinkFacts(kind: .wifi, mbps: 0))
        #expect(RouteLink.classify(interface: "wlp2s0", sysfs: root).facts == LinkFacts(kind: .wifi, mbps: 0))
        #expect(RouteLink.classify(interface: "enp3s0", sysfs: root).facts == LinkFacts(kind: .ethernet, mbps: 1000))
        #expect(RouteLink.classify(interface: "enp3s0", sysfs: root).sentence == "enp3s0 is Ethernet at 1000 Mbit/s")
        #expect(RouteLink.classify(interface: "br0", sysfs: root).facts == LinkFacts(kind: .ethernet, mbps: 0))
        #expect(RouteLink.classify(interface: "lo", sysfs: root).facts == LinkFacts(kind: .other, mbps: 0))
        #expect(RouteLink.classify(interface: "wg0", sysfs: root).facts == LinkFacts(kind: .other, mbps: 0))
        #expect(RouteLink.classify(interface: "odd", sysfs: root).facts == .unknown)
    }

    /// The kernel routes 127.0.0.1 through the loopback, whatever else the box has; this
    /// machine's own sysfs says what it is.
    @Test func theLoopbackRouteIsTheLoopback() throws {
        let remote = try #require(SocketAddress(ip: "127.0.0.1", port: 9))
        let found = try #require(RouteLink.toward(remote), "no route to 127.0.0.1")
        #expect(found.interface == "lo")
        #expect(found.facts == LinkFacts(kind: .other, mbps: 0))
        #expect(found.sentence == "lo is the loopback")
    }
}
