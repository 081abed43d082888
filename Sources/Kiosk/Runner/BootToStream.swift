import Foundation
import PunktfunkSession
import PunktfunkWire
import SystemClock

/// The start of boot-to-stream (`autoconnect`): wait for the network, find the host by
/// discovery (by its id, or by its pinned fingerprint — not by address), wake it when discovery
/// does not see it and its MACs are known, else fall back to its last address. Progress goes to
/// `say`; the host found is saved back to the config (addresses, MACs, name). The magic packets
/// are the shell's wake job's (`WakeSender`).
public struct BootToStream {
    public var config: KioskConfig
    let directory: URL?
    let mdnsPort: UInt16
    /// Progress lines (stderr in the product).
    let say: @Sendable (String) -> Void
    /// How long one discovery look lasts, and how long to wait for a woken host, seconds.
    public var lookSeconds = 4.0
    public var wakeWaitSeconds = 60.0

    public init(config: KioskConfig, directory: URL?, mdnsPort: UInt16, say: @escaping @Sendable (String) -> Void) {
        self.config = config; self.directory = directory; self.mdnsPort = mdnsPort; self.say = say
    }

    /// The entry to stream, or nil when `id` names no saved host and discovery does not find it.
    public mutating func entry(for id: String) -> HostEntry? {
        var saved = config.host(id) ?? KioskConfig.SavedHost(id: id)
        waitForNetwork(saved: saved)
        var found = look(for: saved, seconds: lookSeconds)
        if found == nil, !saved.macs.isEmpty {
            let last = saved.addresses.first { SocketAddress(ip: $0, port: 0).map { !$0.isIPv6 } ?? false }
            let sender = WakeSender(macs: saved.macs, lastIPv4: last, port: WakeOnLAN.defaultPort)
            let sent = sender.send()
            say("\(saved.name ?? id) is not answering; sent Wake-on-LAN to \(sender.macs.map(WakeSender.text).joined(separator: ", ")) (\(sent.taken) of \(sent.total) sends)")
            found = look(for: saved, seconds: wakeWaitSeconds)
        }
        if let host = found {
            saved.name = host.name
            saved.addresses = host.addresses
            saved.port = host.port
            if !host.macs.isEmpty { saved.macs = host.macs }
            config.save(saved)
            if let directory {
                do { try ConfigFile.store(config, in: directory) } catch { say("cannot save the config: \(error)") }
            }
            say("found \(host.name) (id \(host.id)) at \(host.dialAddress ?? "?")")
            // The pin: the config's, else the advertised fingerprint when pairing pinned it.
            let pinned = Set(((directory.flatMap { try? KnownHosts.load(from: $0) }) ?? KnownHosts()).entries.values)
            let pin = saved.fingerprint ?? host.fingerprint.flatMap { pinned.contains($0) ? $0 : nil }
            return HostEntry(id: id, name: host.name, address: host.dialAddress!, givenFingerprint: pin, titles: saved.titles)
        }
        guard let address = saved.lastDialAddress else {
            say("\(id) was not found on the network and has no saved address")
            return nil
        }
        say("\(saved.name ?? id) was not found on the network; trying its last address \(address)")
        return HostEntry(id: id, name: saved.name ?? id, address: address, givenFingerprint: saved.fingerprint, titles: saved.titles)
    }

    /// Blocks until an interface other than loopback has an address (or the host's last address
    /// is a loopback one, or loopback carries multicast), saying so every 5 s.
    func waitForNetwork(saved: KioskConfig.SavedHost) {
        let start = MonotonicClock.nowNs()
        var said = 0
        while true {
            let interfaces = MulticastInterface.list(multicastOnly: false)
            let routed = interfaces.contains { !$0.isLoopback && (!$0.ipv4.isEmpty || $0.hasIPv6) }
            let local = saved.addresses.contains { $0.hasPrefix("127.") || $0 == "::1" }
                || MulticastInterface.list().contains { $0.isLoopback }
            if routed || local { return }
            let waited = Int((MonotonicClock.nowNs() - start) / 1_000_000_000)
            if waited >= said {
                say("waiting for the network (\(waited) s)")
                said = waited + 5
            }
            Thread.sleep(forTimeInterval: 0.5)
        }
    }

    /// Discovery for up to `seconds`, ended early when the host shows (with an address).
    func look(for saved: KioskConfig.SavedHost, seconds: Double) -> DiscoveredHost? {
        let say = self.say
        guard let browser = try? MDNSBrowser(port: mdnsPort, log: { say($0) }) else { return nil }
        var found: DiscoveredHost?
        browser.run(for: seconds, onChange: { hosts in
            if let host = hosts.first(where: { ($0.id == saved.id || ($0.fingerprint != nil && $0.fingerprint == saved.fingerprint)) && $0.dialAddress != nil }) {
                found = host
                browser.stop()
            }
        }, onSecond: { elapsed in
            if elapsed % 5 == 0 { say("looking for \(saved.name ?? saved.id) (\(elapsed) s)") }
        })
        return found
    }
}
