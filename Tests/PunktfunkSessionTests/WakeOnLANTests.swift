import Foundation
import Glibc
import LoopbackListener
import Testing
@testable import PunktfunkSession
import PunktfunkWire

/// Magic packets leave through real sockets: the bytes a local UDP socket receives are the packet.
@Suite(.serialized) struct WakeOnLANTests {
    static let mac: [UInt8] = [0x02, 0x11, 0x22, 0x33, 0x44, 0x55]

    @Test func theMagicPacketArrivesByUnicast() throws {
        let listener = try LoopbackListener()
        let results = WakeOnLAN.wake(mac: Self.mac, destinations: [SocketAddress(ip: "127.0.0.1", port: listener.port)!])
        #expect(results == [WakeOnLAN.Send(destination: "127.0.0.1:\(listener.port)", error: nil)])
        let got = try #require(listener.receive())
        #expect(got == MagicPacket.bytes(for: Self.mac))
        #expect(MagicPacket.mac(in: got) == Self.mac)
    }

    @Test func destinationsEndWithTheLimitedBroadcastAndTheLastAddress() {
        let d = WakeOnLAN.destinations(lastAddress: "192.0.2.7", port: 9).map(\.description)
        #expect(d.suffix(2) == ["255.255.255.255:9", "192.0.2.7:9"])
        #expect(d.dropLast(2).allSatisfy { !$0.hasPrefix("127.") })
    }

    /// The command: broadcasts may be refused here (stderr lines), the unicast works, exit 0.
    @Test(.enabled(if: PumpExecutableTests.binariesBuilt, Comment(rawValue: PumpExecutableTests.notBuilt)))
    func theWakeCommandSendsToTheAddressGiven() throws {
        let listener = try LoopbackListener()
        let run = try PairingExecutableTests.run(TestHostProcess.kiosk,
                                                 ["wake", "02-11-22-33-44-55", "--address", "127.0.0.1", "--port", "\(listener.port)"],
                                                 environment: [:])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("sent magic packet for 02:11:22:33:44:55 to 127.0.0.1:\(listener.port)"), "\(run.stdout)")
        #expect(listener.receive() == MagicPacket.bytes(for: Self.mac))
    }
}
