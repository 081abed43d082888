import Testing
import PunktfunkWire
@testable import PunktfunkSession

/// After `.established`, media keyed from both ends' TLS exporter (context = the session id,
/// data-plane.md §8.4) flows host → client over the shared UDP socket (data-plane.md §8.1): the
/// host's `MediaSender` seals, the client's `QuicSocketDriver.onMedia` feeds a `MediaReceiver`
/// running the system (GnuTLS) AEAD.
@Suite(.serialized) struct HandshakeMediaTests {
    @Test(arguments: [MediaSuite.aes128GCM, .chaCha20Poly1305])
    func accessUnitsArriveByteExactWithExporterKeys(suite: MediaSuite) throws {
        var hello = HandshakeLoopback.hello
        hello.suites = [suite]
        let hs = try HandshakeLoopback(hello: hello,
                                       script: .init(decision: .serverHello(HandshakeLoopback.serverHello(suite: suite))))
        #expect(hs.run())
        let params = try #require(hs.established, "\(String(describing: hs.clientError))")
        let host = try #require(hs.host)
        let hostExporter = try #require(try host.mediaExporter())
        #expect(hostExporter == params.mediaExporter)
        let negotiated = try #require(params.serverHello.suite)
        #expect(negotiated == suite)

        let shard = Int(params.serverHello.shardPayload)
        let receiver = MediaReceiver(exporter: params.mediaExporter, suite: negotiated,
                                     limits: MediaLimits(shardBytes: shard, maxDataPerBlock: 4096),
                                     clockOriginNs: Int64(params.serverHello.clockOriginNs),
                                     aead: GnuTLSMediaAEAD.factory)
        var delivered: [[UInt8]] = []
        var frames: [UInt32] = []
        var mediaErrors: [MediaError] = []
        receiver.video.onAccessUnit = { au in
            delivered.append(Array(au.data))
            frames.append(au.frame)
        }
        hs.pair.clientDriver.onMedia = { datagram in
            do { try receiver.receive(datagram) } catch let e as MediaError { mediaErrors.append(e) } catch {}
        }

        let sender = MediaSender(exporter: hostExporter, suite: negotiated,
                                 packetizer: Packetizer(shardBytes: shard, maxDataPerBlock: 4096, fecPercent: 10),
                                 aead: GnuTLSMediaAEAD.factory)
        // A tiny AU, one just over a shard, a multi-shard one, and one that is not a shard multiple.
        let sizes = [7, shard + 1, 5 * shard, 12_345]
        let aus: [[UInt8]] = sizes.enumerated().map { i, n in
            (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i &* 7) }
        }
        for (i, au) in aus.enumerated() {
            try au.withUnsafeBytes { raw in
                try sender.send(raw, frame: UInt32(i), epoch: 0, userFlags: i == 0 ? AccessUnit.keyframeFlag : 0,
                                ptsMicros: UInt32(i * 16_667)) { datagram in
                    try hs.pair.sendFromServer(Array(datagram))
                }
            }
        }
        #expect(hs.run(seconds: 3) { delivered.count == aus.count })
        #expect(delivered == aus)
        #expect(frames == [0, 1, 2, 3])
        #expect(mediaErrors.isEmpty, "\(mediaErrors)")
        #expect(receiver.counters.framesDelivered == UInt64(aus.count))
        // The QUIC connection kept running beside the media on the same socket.
        #expect(hs.pair.client.state == .established)
        #expect(hs.pair.clientDriver.foreignMediaDropped == 0)
    }

    @Test func mediaSealedUnderAnotherSessionIDIsRejected() throws {
        let hs = try HandshakeLoopback(script: .init(decision: .serverHello(HandshakeLoopback.serverHello())))
        #expect(hs.run())
        let params = try #require(hs.established)
        // The host derives keys with the wrong context: every packet fails authentication.
        let wrong = try hs.pair.server!.mediaExporter(sessionID: [UInt8](repeating: 0xEE, count: 16))
        #expect(wrong != params.mediaExporter)
        let receiver = MediaReceiver(exporter: params.mediaExporter, suite: .aes128GCM,
                                     limits: MediaLimits(), clockOriginNs: 0, aead: GnuTLSMediaAEAD.factory)
        var delivered = 0
        var errors = 0
        receiver.video.onAccessUnit = { _ in delivered += 1 }
        hs.pair.clientDriver.onMedia = { datagram in
            do { try receiver.receive(datagram) } catch { errors += 1 }
        }
        let sender = MediaSender(exporter: wrong, suite: .aes128GCM,
                                 packetizer: Packetizer(shardBytes: 1408, maxDataPerBlock: 4096, fecPercent: 10),
                                 aead: GnuTLSMediaAEAD.factory)
        let au = [UInt8](repeating: 0x42, count: 3000)
        try au.withUnsafeBytes { raw in
            try sender.send(raw, frame: 0, epoch: 0, userFlags: 0, ptsMicros: 0) { try hs.pair.sendFromServer(Array($0)) }
        }
        #expect(hs.run(seconds: 3) { errors > 0 && Int(receiver.counters.packetsReceived) == errors })
        hs.run(seconds: 0.1) { false }
        #expect(delivered == 0)
        #expect(errors > 0)
    }
}
