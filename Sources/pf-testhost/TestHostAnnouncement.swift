import Dispatch
import Foundation
import Glibc
import PunktfunkSession
import PunktfunkTestHost
import PunktfunkWire

/// `--mdns NAME`: the host's DNS-SD advert, with a goodbye on a normal end and on SIGINT/SIGTERM.
enum TestHostAnnouncement {
    nonisolated(unsafe) static var signalSources: [DispatchSourceSignal] = []

    static func start(name: String, id: String, fingerprint: String, pair: String, macs: String, bind: String,
                      port: UInt16, mdnsPort: UInt16) throws -> MDNSResponder {
        // A wildcard bind advertises every IPv4 address of the multicast interfaces.
        let ipv4: [[UInt8]]
        if let v4 = SocketAddress(ip: bind, port: 0), !v4.isIPv6, bind != "0.0.0.0" {
            ipv4 = [bind.split(separator: ".").map { UInt8($0)! }]
        } else {
            ipv4 = MulticastInterface.list().flatMap { $0.ipv4.map(\.address) }
        }
        let advert = MDNSResponder.Advert(name: name, id: id, fingerprint: fingerprint, pair: pair,
                                          macs: macs.split(separator: ",").compactMap { AdvertText.mac($0) }, port: port, ipv4: ipv4)
        let responder = try MDNSResponder(advert: advert, port: mdnsPort)
        responder.start()
        FileHandle.standardError.write(Data("pf-testhost: announcing \"\(name)\" (id \(id)) over mDNS on \(ipv4.map(IPAddressText.ipv4).joined(separator: ", "))\n".utf8))
        for (sig, code) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                responder.stop()
                FileHandle.standardError.write(Data("pf-testhost: mDNS goodbye sent\n".utf8))
                exit(code)
            }
            source.resume()
            signalSources.append(source)
        }
        return responder
    }
}
