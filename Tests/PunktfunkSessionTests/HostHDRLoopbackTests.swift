import Foundation
import Testing
import PunktfunkWire
@testable import PunktfunkSession
import PunktfunkTestHost

/// pf-testhost's HDR10 mode over real UDP on 127.0.0.1: what a client learns from the handshake
/// (control-plane.md §3.3 tags 14/15, StreamConfig 4/5) and the 0xCE datagrams (data-plane.md §7.4).
@Suite(.serialized) struct HostHDRLoopbackTests {
    @Test func hdr10HostAnnouncesBT2020PQAndSendsItsMetadataWithKeyframes() throws {
        let body = HDRMetadata(green: .init(x: 13_250, y: 34_500), blue: .init(x: 7_500, y: 3_000),
                               red: .init(x: 34_000, y: 16_000), whitePoint: .init(x: 15_635, y: 16_450),
                               maxMasteringLuminance: 6_000_000, minMasteringLuminance: 200, maxCLL: 600, maxFALL: 250)
        var options = HostSession.Options(identity: QuicLoopbackTests.hostIdentity, bind: SocketAddress(ip: "127.0.0.1", port: 0)!,
                                          accessUnits: SyntheticAccessUnits.make(count: 8, bytes: 4_000, seed: 3))
        options.fps = 60
        options.maxSeconds = 10
        options.hdrMetadata = body
        let host = try HostSession(options: options)
        let done = DispatchSemaphore(value: 0)
        Thread { try? host.run(); done.signal() }.start()
        let client = ClientSession(options: .init(remote: host.localAddress, identity: QuicLoopbackTests.clientIdentity,
                                                  trust: .pinned(QuicLoopbackTests.hostIdentity.fingerprint), seconds: 1.2))
        var hdr: [HDRMetadata] = []
        var keyframes = 0
        client.onHostDatagram = { if case .hdrMetadata(let m) = $0 { hdr.append(m) } }
        client.onAccessUnit = { if $0.userFlags & AccessUnit.keyframeFlag != 0 { keyframes += 1 } }
        try client.run()
        host.stop()
        #expect(done.wait(timeout: .now() + 10) == .success)
        let hello = try #require(client.parameters?.serverHello)
        #expect(hello.bitDepth == 10)
        #expect(hello.color == ColorInfo(primaries: 9, transfer: 16, matrix: 9, fullRange: false))
        #expect(client.streamConfig?.bitDepth == 10 && client.streamConfig?.color == .hdr10)
        // one 0xCE per keyframe (every 8th frame of ~70), each the configured body byte for byte
        #expect(hdr.count >= 3 && keyframes >= 3, "\(hdr.count) 0xCE, \(keyframes) keyframes")
        #expect(hdr.allSatisfy { $0.encoded == body.encoded })
    }
}
