import Testing
@testable import PunktfunkWire

@Suite struct MagicPacketTests {
    @Test func sixFFsThenTheMACSixteenTimes() throws {
        let mac = try #require(AdvertText.bytes(ofMAC: "00:1a:2B:3c:4d:5e"))
        let packet = MagicPacket.bytes(for: mac)
        #expect(packet.count == 102)
        #expect(hexString(packet) == "ffffffffffff" + String(repeating: "001a2b3c4d5e", count: 16))
        #expect(MagicPacket.mac(in: packet) == mac)
        var damaged = packet
        damaged[60] ^= 1
        #expect(MagicPacket.mac(in: damaged) == nil)
        #expect(MagicPacket.mac(in: Array(packet.dropLast())) == nil)
    }
}
