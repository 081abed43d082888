import Foundation
import Glibc
import Testing
@testable import PunktfunkSession
import PunktfunkWire

/// Magic packets leave through real sockets: the bytes a local UDP socket receives are the packet.
@Suite(.serialized) struct WakeOnLANTests {
    static let mac: [UInt8] = [0x02, 0x11, 0x22, 0x33, 0x44, 0x55]

    /// A UDP socket on 127.0.0.1 (ephemeral port) with a receive timeout.
    final class Listener {
        let fd: Int32
        let port: UInt16
        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            self.fd = fd
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            var port: UInt16 = 0
            let rc = withUnsafePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard rc == 0 else { throw POSIXError(.EADDRINUSE) }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            port = UInt16(bigEndian: sin.sin_port)
            self.port = port
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        deinit { close(fd) }
        func receive() -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: 2048)
            let n = recv(fd, &buffer, buffer.count, 0)
            return n < 0 ? nil : Array(buffer[0..<n])
        }
    }

    @Test func theMagicPacketArrivesByUnicast() throws {
        let listener = try Listener()
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
        let listener = try Listener()
        let run = try PairingExecutableTests.run(TestHostProcess.kiosk,
                                                 ["wake", "02-11-22-33-44-55", "--address", "127.0.0.1", "--port", "\(listener.port)"],
                                                 environment: [:])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("sent magic packet for 02:11:22:33:44:55 to 127.0.0.1:\(listener.port)"), "\(run.stdout)")
        #expect(listener.receive() == MagicPacket.bytes(for: Self.mac))
    }
}
