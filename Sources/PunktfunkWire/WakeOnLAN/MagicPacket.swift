/// The Wake-on-LAN magic packet (AMD "Magic Packet" white paper): six 0xFF bytes, then the
/// target's 6-byte MAC sixteen times — 102 bytes, sent in a UDP datagram (port 9 by convention;
/// the NIC matches the pattern anywhere in the frame, so the port does not matter to it).
public enum MagicPacket {
    public static let length = 102

    public static func bytes(for mac: [UInt8]) -> [UInt8] {
        precondition(mac.count == 6, "a MAC is 6 bytes")
        var out = [UInt8](repeating: 0xFF, count: 6)
        out.reserveCapacity(length)
        for _ in 0..<16 { out += mac }
        return out
    }

    /// The MAC a magic packet wakes, or nil if `bytes` is not one.
    public static func mac(in bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count == length, bytes.prefix(6).allSatisfy({ $0 == 0xFF }) else { return nil }
        let mac = Array(bytes[6..<12])
        for i in 1..<16 where Array(bytes[6 + 6 * i..<12 + 6 * i]) != mac { return nil }
        return mac
    }
}
