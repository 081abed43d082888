import ArgumentParser
import Foundation
import Kiosk
import PunktfunkSession
import PunktfunkWire
import SystemClock

/// `punktfunk-kiosk wake HOST|MAC [--address IP] [--wait S]`: Wake-on-LAN magic packets for the
/// host's MACs (from a MAC given, the config's saved host, or a host discovery still lists) to
/// every directed broadcast, 255.255.255.255 and the last known address. A refused send is a line
/// on stderr; the command fails only when no send worked. `--wait` then waits until the host
/// answers discovery, printing progress each second.
struct WakeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wake",
        abstract: "Wake a sleeping host with Wake-on-LAN magic packets.")

    @Argument(help: "A MAC (aa:bb:cc:dd:ee:ff), or the name or id of a host saved in the config or still listed by discovery.") var host: String
    @Option(help: "The host's last known IP address (also sent a unicast packet).") var address: String?
    @Option(help: "Wait up to this many seconds for the host to answer discovery.") var wait: Double?
    @Option(help: "UDP port of the magic packets.") var port: UInt16 = WakeOnLAN.defaultPort
    @Option(help: "mDNS UDP port (tests only; the standard is 5353).") var mdnsPort: UInt16 = 5353

    func validate() throws {
        if let address, SocketAddress(ip: address, port: 0) == nil { throw ValidationError("--address must be an IP literal") }
        if let wait, wait < 0 { throw ValidationError("--wait must not be negative") }
    }

    func run() throws {
        var target = WakeTarget.resolve(host, mdnsPort: mdnsPort)
        if let address { target.address = address }
        guard !target.macs.isEmpty else {
            throw failure("No MAC known for \"\(host)\": give the MAC, or discover the host once while it is awake.")
        }
        var worked = 0
        for mac in target.macs {
            for send in WakeOnLAN.wake(mac: mac, destinations: WakeOnLAN.destinations(lastAddress: target.address, port: port)) {
                if let error = send.error {
                    note("magic packet to \(send.destination) refused: \(error)")
                } else {
                    worked += 1
                    print("sent magic packet for \(WakeTarget.text(mac)) to \(send.destination)")
                }
            }
        }
        guard worked > 0 else { throw failure("No magic packet could be sent.") }
        guard let wait else { return }
        let browser: MDNSBrowser
        do { browser = try MDNSBrowser(port: mdnsPort, log: { note($0) }) } catch { throw failure("mDNS: \(error)") }
        let start = MonotonicClock.nowNs()
        var awake: DiscoveredHost?
        browser.run(for: wait, onChange: { hosts in
            if let match = hosts.first(where: { target.matches($0) }) {
                awake = match
                browser.stop()
            }
        }, onSecond: { elapsed in
            note("waiting for \(host) to wake: \(elapsed) s of \(Int(wait.rounded(.up))) s")
        })
        guard let awake else { throw failure("\"\(host)\" did not answer discovery within \(wait) s.") }
        print("\(awake.name) (id \(awake.id)) is awake at \(awake.addresses.joined(separator: ", ")) after \(String(format: "%.1f", Double(MonotonicClock.nowNs() - start) / 1e9)) s")
    }
}

/// Who to wake: MACs and the last address, and how to recognise the host once awake.
struct WakeTarget {
    var macs: [[UInt8]] = []
    var address: String?
    var id: String?
    var name: String?

    func matches(_ host: DiscoveredHost) -> Bool {
        if let id, host.id == id { return true }
        if let name, host.name.lowercased() == name.lowercased() { return true }
        let hex = Set(macs.map(Self.text))
        return host.macs.contains(where: hex.contains)
    }

    static func text(_ mac: [UInt8]) -> String { WakeSender.text(mac) }

    static func resolve(_ text: String, mdnsPort: UInt16) -> WakeTarget {
        if let mac = AdvertText.bytes(ofMAC: Substring(text)) { return WakeTarget(macs: [mac]) }
        var target = WakeTarget(id: text, name: text)
        if let saved = ProfileConfig.load().host(named: text) {
            target.id = saved.id
            target.macs = saved.macs.compactMap { AdvertText.bytes(ofMAC: Substring($0)) }
            target.address = saved.addresses.first { !$0.contains(":") }
            if !target.macs.isEmpty { return target }
        }
        // A host still listed (it may be going to sleep, or awake and asked to wake anyway).
        if let browser = try? MDNSBrowser(port: mdnsPort, log: { note($0) }) {
            browser.run(for: 2) { hosts in
                if let host = hosts.first(where: { $0.id == text || $0.name.lowercased() == text.lowercased() }) {
                    target.id = host.id
                    target.macs = host.macs.compactMap { AdvertText.bytes(ofMAC: Substring($0)) }
                    target.address = host.addresses.first { !$0.contains(":") }
                    if !target.macs.isEmpty { browser.stop() }
                }
            }
        }
        return target
    }
}
