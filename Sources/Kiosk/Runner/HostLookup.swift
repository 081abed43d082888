import Foundation
import PunktfunkSession
import PunktfunkWire

/// The known-hosts store of the profile directory (empty when there is none).
public enum KnownHostsLookup {
    public static func load() -> KnownHosts {
        guard let directory = ConfigDirectory.resolve(environment: ProcessInfo.processInfo.environment) else { return KnownHosts() }
        return (try? KnownHosts.load(from: directory)) ?? KnownHosts()
    }
}

/// `connect`/`pair` HOST: an address (`HOST[:PORT]`, IP literals) is used as given; anything else
/// is first looked for among the hosts discovery finds within `seconds`, by name
/// (case-insensitive) or id. A discovered host whose advertised fingerprint is pinned in the
/// known-hosts store is connected pinned to that fingerprint — the pin, not the address, says it
/// is the known host; the certificate is verified against it as always.
public enum HostLookup {
    public static func looksLikeAddress(_ text: String) -> Bool {
        if text.hasPrefix("[") { return true }
        let hostPart = text.split(separator: ":").count == 2 ? String(text.split(separator: ":")[0]) : text
        if SocketAddress(ip: hostPart, port: 0) != nil || SocketAddress(ip: text, port: 0) != nil { return true }
        return text.contains(":") || text.hasSuffix(".local") || text == "localhost"
    }

    /// - Parameter say: progress lines (stderr in the product).
    public static func entry(for text: String, givenFingerprint: String?, config: KioskConfig, seconds: Double = 3,
                             mdnsPort: UInt16 = 5353, say: @escaping @Sendable (String) -> Void) -> HostEntry {
        guard !looksLikeAddress(text) else { return HostEntry(address: text, givenFingerprint: givenFingerprint) }
        let saved = config.host(named: text)
        var found: DiscoveredHost?
        if let browser = try? MDNSBrowser(port: mdnsPort, log: { say($0) }) {
            browser.run(for: seconds) { hosts in
                let match = hosts.first { host in
                    host.dialAddress != nil && (host.id == text || host.name.lowercased() == text.lowercased()
                        || (saved != nil && (host.id == saved!.id || (host.fingerprint != nil && host.fingerprint == saved!.fingerprint))))
                }
                if let match {
                    found = match
                    browser.stop()
                }
            }
        }
        if let host = found, let address = host.dialAddress {
            let pinned = Set(KnownHostsLookup.load().entries.values)
            let pin = givenFingerprint ?? saved?.fingerprint ?? host.fingerprint.flatMap { pinned.contains($0) ? $0 : nil }
            say("\"\(text)\" is \(host.name) (id \(host.id)) at \(address)\(pin != nil ? ", pinned" : "")")
            return HostEntry(id: host.id, name: host.name, address: address, givenFingerprint: pin, titles: saved?.titles ?? [])
        }
        if let saved, let address = saved.lastDialAddress {
            say("\"\(text)\" did not answer discovery; trying its last address \(address)")
            return HostEntry(id: saved.id, name: saved.name ?? saved.id, address: address, givenFingerprint: givenFingerprint ?? saved.fingerprint,
                             titles: saved.titles)
        }
        say("no host named \"\(text)\" answered discovery; trying it as a host name")
        return HostEntry(address: text, givenFingerprint: givenFingerprint)
    }
}
