import PunktfunkWire

/// A netlink datagram as the kernel sends it (generic netlink replies and multicast events,
/// nl80211's among them) through `NetlinkCodec`: messages, their generic header, attributes and
/// every attribute read again as a nested set, as each typed value and as 802.11 elements. Nothing may trap; a
/// request the codec builds from the input's first attribute set reads back the same.
enum NetlinkFuzz {
    static func run(_ bytes: [UInt8]) {
        for m in NetlinkCodec.messages(bytes[...]) {
            _ = m.errorCode
            guard let (command, attributes) = m.generic else { continue }
            for (type, value) in attributes.values {
                precondition(type & ~NetlinkCodec.typeMask == 0, "attribute type \(type) kept its flags")
                precondition(value.count <= m.payload.count, "attribute longer than its message")
                let nested = attributes.nested(type)
                for (inner, _) in nested?.values ?? [:] {
                    _ = (nested?.u8(inner), nested?.s8(inner), nested?.u16(inner), nested?.u32(inner), nested?.string(inner))
                }
                _ = (attributes.u8(type), attributes.u16(type), attributes.u32(type), attributes.string(type))
                // a BSS's information elements (GET_SCAN's NL80211_BSS_INFORMATION_ELEMENTS)
                if let ssid = WiFiElements.ssid(value) { precondition(ssid.utf8.count <= 255, "an SSID longer than its element") }
            }
            // Round trip: what the codec writes it reads back.
            let pairs = attributes.values.sorted { $0.key < $1.key }.map { ($0.key, Array($0.value)) }
            let request = NetlinkCodec.generic(family: m.type, command: command, flags: m.flags, sequence: m.sequence, attributes: pairs)
            let again = NetlinkCodec.messages(request[...])
            precondition(again.count == 1 && again[0].type == m.type && again[0].sequence == m.sequence, "netlink round trip")
            let back = again[0].generic
            precondition(back?.command == command && back?.attributes == attributes, "netlink attributes round trip")
        }
    }
}
