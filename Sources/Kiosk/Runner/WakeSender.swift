import PunktfunkSession
import PunktfunkWire

/// Magic packets for each of a host's MACs to every directed broadcast, 255.255.255.255 and the
/// host's last IPv4 address — what the shell's wake job and boot-to-stream both send.
public struct WakeSender: Sendable {
    /// The MACs that parse (`aa:bb:cc:dd:ee:ff`), in the order given.
    public let macs: [[UInt8]]
    let destinations: [SocketAddress]

    public init(macs texts: [String], lastIPv4: String?, port: UInt16) {
        macs = texts.compactMap { AdvertText.bytes(ofMAC: Substring($0)) }
        destinations = WakeOnLAN.destinations(lastAddress: lastIPv4, port: port)
    }

    /// `aa:bb:cc:dd:ee:ff`.
    public static func text(_ mac: [UInt8]) -> String {
        mac.map { b in String(UInt16(b) | 0x100, radix: 16).dropFirst() }.joined(separator: ":")
    }

    /// One round: every MAC to every destination. - Returns: the sends the kernel took, all
    /// sends, and the first refusal (destination: error).
    public func send() -> (taken: Int, total: Int, refusal: String?) {
        var taken = 0, total = 0
        var refusal: String?
        for mac in macs {
            for send in WakeOnLAN.wake(mac: mac, destinations: destinations) {
                total += 1
                if let error = send.error { refusal = refusal ?? "\(send.destination): \(error)" } else { taken += 1 }
            }
        }
        return (taken, total, refusal)
    }
}
