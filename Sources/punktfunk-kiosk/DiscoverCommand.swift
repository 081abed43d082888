import ArgumentParser
import Foundation
import Kiosk
import PunktfunkSession
import PunktfunkWire

/// `punktfunk-kiosk discover [--seconds N] [--json]`: browses `_punktfunk._udp.local.` for N
/// seconds and prints one line per host found. Listing only: nothing here connects or trusts.
struct DiscoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discover",
        abstract: "List the punktfunk hosts on the local network (mDNS / DNS-SD).",
        discussion: """
            Shares UDP port 5353 with avahi-daemon or systemd-resolved when they run; where the port cannot be \
            shared it sends one-shot queries from an ephemeral port instead. `known` says whether the advertised \
            fingerprint is pinned in the known-hosts store; a connect verifies it either way.
            """)

    @Option(help: "How long to listen, seconds.") var seconds = 3.0
    @Flag(help: "One JSON object per host instead of text.") var json = false
    @Flag(help: "Print each change as it happens: '+ ' and the host's line when it appears or changes, '- NAME id=ID' when it leaves.") var watch = false
    @Option(help: "mDNS UDP port (tests only; the standard is 5353).") var mdnsPort: UInt16 = 5353
    @Flag(help: ArgumentHelp("Use one-shot queries from an ephemeral port even where 5353 could be shared (tests).", visibility: .hidden))
    var oneShot = false

    func validate() throws {
        guard seconds >= 0 else { throw ValidationError("--seconds must not be negative") }
    }

    func run() throws {
        let browser: MDNSBrowser
        do { browser = try MDNSBrowser(port: mdnsPort, oneShot: oneShot, log: { note($0) }) } catch { throw failure("mDNS: \(error)") }
        let pinned = Set(KnownHostsLookup.load().entries.values)
        let line = { (host: DiscoveredHost) in json ? Self.jsonLine(host, known: pinned) : Self.textLine(host, known: pinned) }
        var shown: [DiscoveredHost] = []
        let hosts = browser.run(for: seconds) { hosts in
            guard watch else { return }
            for host in hosts where !shown.contains(host) { print("+ " + line(host)) }
            for gone in shown where !hosts.contains(where: { $0.id == gone.id }) { print("- \(gone.name) id=\(gone.id)") }
            shown = hosts
            fflush(nil)  // print goes through C stdio; a pipe reader sees each change as it happens
        }
        if !watch { for host in hosts { print(line(host)) } }
        if browser.counters.malformed > 0 { note("\(browser.counters.malformed) malformed mDNS packet(s) ignored") }
    }

    static func textLine(_ h: DiscoveredHost, known: Set<String>) -> String {
        var fields = ["\(h.name)", "id=\(h.id)", "addresses=\(h.addresses.joined(separator: ","))", "port=\(h.port)",
                      "fp=\(h.fingerprint ?? "-")", "pair=\(h.pair ?? "-")", "mgmt=\(h.managementPort)",
                      "mac=\(h.macs.isEmpty ? "-" : h.macs.joined(separator: ","))", "os=\(h.os ?? "-")", "proto=\(h.proto ?? "-")"]
        fields.append("known=\(h.fingerprint.map(known.contains) ?? false ? "yes" : "no")")
        return fields.joined(separator: "\t")
    }

    static func jsonLine(_ h: DiscoveredHost, known: Set<String>) -> String {
        struct Line: Encodable {
            var host: DiscoveredHost
            var known: Bool
            func encode(to encoder: Encoder) throws {
                try host.encode(to: encoder)
                var c = encoder.container(keyedBy: Key.self)
                try c.encode(known, forKey: .known)
            }
            enum Key: String, CodingKey { case known }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(Line(host: h, known: h.fingerprint.map(known.contains) ?? false))) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

/// A line on stderr that is not a failure.
func note(_ sentence: String) {
    FileHandle.standardError.write(Data("punktfunk-kiosk: \(sentence)\n".utf8))
}
