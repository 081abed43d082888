import Foundation
import Testing
import PunktfunkWire
@testable import PunktfunkSession
import PunktfunkTestHost
import LossyLink
import SystemClock

/// pf-testhost's HDR10 mode over real UDP on 127.0.0.1: what a client learns from the handshake
/// (control-plane.md §3.3 tags 14/15, StreamConfig 4/5) and the 0xCE datagrams (data-plane.md §7.4).
@Suite(.serialized) struct HostHDRLoopbackTests {
    /// An HDR10 pf-testhost at 60 fps (a keyframe every 8th frame) on its own thread; `done` is
    /// signalled when it ends.
    static func startHDRHost(_ body: HDRMetadata, seed: UInt64) throws -> (HostSession, DispatchSemaphore) {
        var options = HostSession.Options(identity: QuicLoopbackTests.hostIdentity, bind: SocketAddress(ip: "127.0.0.1", port: 0)!,
                                          accessUnits: SyntheticAccessUnits.make(count: 8, bytes: 4_000, seed: seed))
        options.fps = 60
        options.maxSeconds = 10
        options.hdrMetadata = body
        let host = try HostSession(options: options)
        let done = DispatchSemaphore(value: 0)
        Thread { try? host.run(); done.signal() }.start()
        return (host, done)
    }

    @Test func hdr10HostAnnouncesBT2020PQAndSendsItsMetadataWithKeyframes() throws {
        let body = HDRMetadata(green: .init(x: 13_250, y: 34_500), blue: .init(x: 7_500, y: 3_000),
                               red: .init(x: 34_000, y: 16_000), whitePoint: .init(x: 15_635, y: 16_450),
                               maxMasteringLuminance: 6_000_000, minMasteringLuminance: 200, maxCLL: 600, maxFALL: 250)
        let (host, done) = try Self.startHDRHost(body, seed: 3)
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

    /// On a path with delay the host streams from Ready while the client's clock rounds still run
    /// (§3.1: 8 round trips). Every keyframe's 0xCE, the first's included, must reach the client:
    /// a host re-sends it only with the next keyframe, which a streaming host sends only when
    /// asked. (Within one socket read the media are handed on before the QUIC datagrams, so a
    /// live keyframe may come a moment before its 0xCE; the count is what is judged.)
    @Test func metadataSentDuringTheClockRoundsIsKeptForTheFirstKeyframe() throws {
        let body = HDRMetadata(green: .init(x: 8_500, y: 39_850), blue: .init(x: 6_550, y: 2_300),
                               red: .init(x: 35_400, y: 14_600), whitePoint: .init(x: 15_635, y: 16_450),
                               maxMasteringLuminance: 10_000_000, minMasteringLuminance: 50, maxCLL: 1_000, maxFALL: 400)
        let (host, done) = try Self.startHDRHost(body, seed: 5)
        // 25 ms each way: the clock rounds take ≈ 400 ms, the host sends ≈ 24 frames meanwhile
        let oneWay = ImpairmentConfig(delayNs: 25_000_000)
        let relay = try UDPRelay(.init(listen: LoopbackAddress("127.0.0.1:0")!,
                                       upstream: LoopbackAddress("127.0.0.1:\(host.localAddress.port)")!,
                                       c2h: oneWay, h2c: oneWay))
        let relayDone = DispatchSemaphore(value: 0)
        Thread { _ = relay.run(seconds: 20); relayDone.signal() }.start()
        defer { relay.stop(); relayDone.wait() }
        let client = ClientSession(options: .init(remote: SocketAddress(ip: "127.0.0.1", port: relay.listenAddress.port)!,
                                                  identity: QuicLoopbackTests.clientIdentity,
                                                  trust: .pinned(QuicLoopbackTests.hostIdentity.fingerprint), seconds: 1.2))
        var hdr = 0
        var keyframes = 0
        var keyframeTimes: [UInt64] = []
        client.onHostDatagram = { if case .hdrMetadata(let m) = $0, m.encoded == body.encoded { hdr += 1 } }
        client.onAccessUnit = { au in
            guard au.userFlags & AccessUnit.keyframeFlag != 0 else { return }
            keyframes += 1
            keyframeTimes.append(MonotonicClock.nowNs())
        }
        var establishedAt: UInt64?
        client.onEstablished = { _ in establishedAt = MonotonicClock.nowNs() }
        try client.run()
        host.stop()
        #expect(done.wait(timeout: .now() + 10) == .success)
        // the premise: keyframes came while the handshake ran — replayed at its end, together
        // (live ones are 133 ms apart)
        let established = try #require(establishedAt)
        let replayed = keyframeTimes.filter { $0 >= established && $0 - established < 20_000_000 }.count
        #expect(replayed >= 2, "keyframes at \(keyframeTimes.map { (Double($0) - Double(established)) / 1e6 }) ms after the handshake")
        // one 0xCE per keyframe (one more when the session ended inside the last keyframe)
        #expect(keyframes >= 3 && hdr >= keyframes && hdr <= keyframes + 1, "\(keyframes) keyframes, \(hdr) 0xCE")
    }
}
