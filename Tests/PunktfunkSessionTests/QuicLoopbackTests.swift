import Testing
@testable import PunktfunkSession

/// Client and server `QuicConnection`s over real UDP on 127.0.0.1 (control-plane.md §1, §2.1).
@Suite(.serialized) struct QuicLoopbackTests {
    static let hostIdentity = try! TLSIdentity.generate(commonName: TLSIdentity.hostCommonName)
    static let clientIdentity = try! TLSIdentity.generate(commonName: TLSIdentity.clientCommonName)

    static func configurations(trust: HostTrust = .trustOnFirstUse) -> (client: QuicConfiguration, server: QuicConfiguration) {
        var client = QuicConfiguration()
        client.identity = clientIdentity
        client.hostTrust = trust
        var server = QuicConfiguration()
        server.identity = hostIdentity
        return (client, server)
    }

    static let exporterLabel = "EXPORTER-punktfunk/2 media"

    @Test func handshakeNegotiatesPkf2AndBothSidesExportTheSameKey() throws {
        let (c, s) = Self.configurations()
        let pair = try QuicLoopback(client: c, server: s)
        #expect(pair.connect(), "handshake did not complete: \(pair.clientErrors) \(pair.serverErrors)")
        let server = try #require(pair.server)
        #expect(pair.client.negotiatedALPN == "pkf2")
        #expect(server.negotiatedALPN == "pkf2")
        #expect(pair.clientEvents.contains(.handshakeCompleted))
        // TOFU recorded the host's fingerprint; the host saw the client's identity (device id).
        #expect(pair.client.peerFingerprint == Self.hostIdentity.fingerprint)
        #expect(server.peerFingerprint == Self.clientIdentity.fingerprint)

        let sessionID = (0..<16).map { UInt8($0) }
        let clientKey = try pair.client.exportKeyingMaterial(label: Self.exporterLabel, context: sessionID)
        let serverKey = try server.exportKeyingMaterial(label: Self.exporterLabel, context: sessionID)
        #expect(clientKey.count == 32)
        #expect(clientKey == serverKey)
        #expect(try pair.client.mediaExporter(sessionID: sessionID) == clientKey)
        let otherContext = try pair.client.exportKeyingMaterial(label: Self.exporterLabel,
                                                               context: [UInt8](repeating: 0xFF, count: 16))
        #expect(otherContext != clientKey)
        // The host's address validation ran: one Retry, and the client followed it.
        #expect(pair.retries == 1)
        // No packet the client received would be mistaken for media on the shared socket.
        #expect(pair.clientMedia.isEmpty)
    }

    @Test func keepAliveHoldsAnIdleConnectionOpen() throws {
        var (c, s) = Self.configurations()
        for i in [0, 1] {
            var config = i == 0 ? c : s
            config.idleTimeout = 600_000_000
            config.keepAliveInterval = 150_000_000
            if i == 0 { c = config } else { s = config }
        }
        let pair = try QuicLoopback(client: c, server: s)
        #expect(pair.connect())
        // 1.5 s without application traffic: well past the 0.6 s idle timeout.
        pair.run(seconds: 1.5) { false }
        #expect(pair.client.state == .established)
        #expect(pair.server?.state == .established)
    }

    @Test func silentHostEndsInHandshakeTimeout() throws {
        var (c, s) = Self.configurations()
        c.handshakeTimeout = 300_000_000
        let pair = try QuicLoopback(client: c, server: s)
        pair.serverMuted = true
        #expect(pair.run(seconds: 3) { pair.client.state == .closed })
        #expect(pair.client.error == .handshakeTimeout)
    }

    @Test func deadPathEndsInIdleTimeout() throws {
        var (c, s) = Self.configurations()
        c.idleTimeout = 400_000_000
        s.idleTimeout = 400_000_000
        let pair = try QuicLoopback(client: c, server: s)
        #expect(pair.connect())
        pair.serverMuted = true
        #expect(pair.run(seconds: 3) { pair.client.state == .closed })
        #expect(pair.client.error == .idleTimeout)
        #expect(pair.clientEvents.contains(.closed))
    }

    @Test func acceptsWithoutRetryWhenTheListenerDoesNotAskForIt() throws {
        let (c, s) = Self.configurations()
        let pair = try QuicLoopback(client: c, server: s, retry: false)
        #expect(pair.connect())
        #expect(pair.retries == 0)
        #expect(pair.client.negotiatedALPN == "pkf2")
    }

    @Test(.enabled(if: QuicLoopback.ipv6Available, "no IPv6 loopback here"))
    func worksOverIPv6Loopback() throws {
        let (c, s) = Self.configurations()
        let pair = try QuicLoopback(client: c, server: s, address: "::1")
        #expect(pair.connect())
        #expect(pair.client.remoteAddress.isIPv6)
    }

    @Test func neitherSideGreasesTheQuicBit() throws {
        let (c, s) = Self.configurations()
        let pair = try QuicLoopback(client: c, server: s)
        #expect(pair.connect())
        let server = try #require(pair.server)
        // What each side decoded from the other's transport parameters on the wire. (ngtcp2 0.12's
        // own local copy always says true; QuicConnection+TLS.swift strips it before encoding.)
        #expect(server.greasesQuicBit?.remote == false)
        #expect(pair.client.greasesQuicBit?.remote == false)
        // control-plane.md §1.1: idle 8 s and DATAGRAM support advertised by both ends.
        #expect(pair.client.peerTransportLimits?.idleTimeout == 8_000_000_000)
        #expect(server.peerTransportLimits?.idleTimeout == 8_000_000_000)
        #expect(pair.client.peerTransportLimits?.maxDatagramFrameSize == 65_535)
        #expect(server.peerTransportLimits?.maxDatagramFrameSize == 65_535)
        // Path-limited (1200-byte packets until PMTU discovery raises it towards 1452), not the
        // advertised 65535.
        #expect((1200 - 44)...(1452 - 44) ~= pair.client.maxDatagramPayload)
    }

    @Test func controlStreamCarriesAFrameAndAReply() throws {
        let (c, s) = Self.configurations()
        let pair = try QuicLoopback(client: c, server: s)
        #expect(pair.connect())
        let server = try #require(pair.server)

        let stream = try pair.client.openBidirectionalStream()
        #expect(stream == 0)  // first client-initiated bidi stream
        // STREAM_CONTROL type byte, then one frame: type 0x01, length 3, body (control-plane.md §2.1).
        let request: [UInt8] = [0x00, 0x01, 0x03, 0xAA, 0xBB, 0xCC]
        try pair.client.write(stream: stream, request)
        #expect(pair.run { QuicLoopback.streamBytes(pair.serverEvents, stream: stream).bytes == request })
        #expect(pair.serverEvents.contains(.streamOpened(stream)))

        let reply: [UInt8] = [0x02, 0x02, 0x10, 0x20]
        try server.write(stream: stream, reply, fin: true)
        #expect(pair.run { QuicLoopback.streamBytes(pair.clientEvents, stream: stream) == (reply, true) })
    }

    @Test func unknownStreamTypeIsStoppedWith0x71() throws {
        let (c, s) = Self.configurations()
        let pair = try QuicLoopback(client: c, server: s)
        #expect(pair.connect())
        let server = try #require(pair.server)
        let stream = try pair.client.openBidirectionalStream()
        try pair.client.write(stream: stream, [0x09, 0x00])  // stream type 9: unknown
        #expect(pair.run { !QuicLoopback.streamBytes(pair.serverEvents, stream: stream).bytes.isEmpty })
        try server.resetStream(stream, applicationCode: 0x71)
        #expect(pair.run { pair.clientEvents.contains(.streamClosed(stream: stream, code: 0x71)) })
        #expect(pair.client.state == .established)
    }

    @Test func largeStreamWriteArrivesWhole() throws {
        let (c, s) = Self.configurations()
        let pair = try QuicLoopback(client: c, server: s)
        #expect(pair.connect())
        let stream = try pair.client.openBidirectionalStream()
        let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try pair.client.write(stream: stream, payload.prefix(100_000))
        try pair.client.write(stream: stream, payload.dropFirst(100_000), fin: true)
        #expect(pair.run { QuicLoopback.streamBytes(pair.serverEvents, stream: stream).fin })
        #expect(QuicLoopback.streamBytes(pair.serverEvents, stream: stream).bytes == payload)
    }

    @Test func datagramsFlowBothWays() throws {
        let (c, s) = Self.configurations()
        let pair = try QuicLoopback(client: c, server: s)
        #expect(pair.connect())
        let server = try #require(pair.server)
        let up: [UInt8] = [0x03, 1, 2, 3]  // DGRAM_FEEDBACK-shaped
        let down: [UInt8] = [0x05] + [UInt8](repeating: 0x7F, count: 1000)
        try pair.client.sendDatagram(up)
        try server.sendDatagram(down)
        #expect(pair.run {
            QuicLoopback.datagrams(pair.serverEvents) == [up] && QuicLoopback.datagrams(pair.clientEvents) == [down]
        })

        // Too large for one packet: dropped, and it does not block what follows.
        let largest = [UInt8](repeating: 0x01, count: pair.client.maxDatagramPayload)
        try pair.client.sendDatagram([UInt8](repeating: 0x01, count: 1500))
        try pair.client.sendDatagram(largest)
        let stream = try pair.client.openBidirectionalStream()
        try pair.client.write(stream: stream, [0x00], fin: true)
        #expect(pair.run {
            QuicLoopback.datagrams(pair.serverEvents).count == 2 && QuicLoopback.streamBytes(pair.serverEvents, stream: stream).fin
        })
        #expect(QuicLoopback.datagrams(pair.serverEvents).last == largest)
        #expect(pair.client.droppedDatagrams == 1)
    }

    @Test func datagramSendBufferKeepsTheNewest() throws {
        var (c, s) = Self.configurations()
        c.datagramSendBufferBytes = 100
        let pair = try QuicLoopback(client: c, server: s)
        #expect(pair.connect())
        for i in 0..<10 { try pair.client.sendDatagram([0x02, UInt8(i)] + [UInt8](repeating: 0, count: 38)) }
        // 40-byte datagrams, 100-byte buffer: only the newest two survive until the next poll.
        #expect(pair.client.droppedDatagrams == 8)
        #expect(pair.run { QuicLoopback.datagrams(pair.serverEvents).count == 2 })
        #expect(QuicLoopback.datagrams(pair.serverEvents).map { $0[1] } == [8, 9])
    }

    @Test func rightPinConnects() throws {
        let (c, s) = Self.configurations(trust: .pinned(Self.hostIdentity.fingerprint.uppercased()))
        let pair = try QuicLoopback(client: c, server: s)
        #expect(pair.connect(), "\(pair.clientErrors)")
    }

    @Test func wrongPinFailsTheHandshakeWithATypedError() throws {
        let wrong = String(repeating: "ab", count: 32)
        let (c, s) = Self.configurations(trust: .pinned(wrong))
        let pair = try QuicLoopback(client: c, server: s)
        #expect(pair.run { pair.client.error != nil && pair.server?.peerClose != nil })
        #expect(pair.client.error == .pinMismatch(expected: wrong, actual: Self.hostIdentity.fingerprint))
        #expect(pair.client.state != .established)
        // The host learns it through CONNECTION_CLOSE carrying a TLS alert (0x100 + alert).
        // bad_certificate (42): transport code 0x12a.
        #expect(pair.server?.peerClose?.tlsAlert == 42, "\(String(describing: pair.server?.peerClose))")
        #expect(pair.server?.state != .established)
    }

    /// The pin covers the certificate, the CertificateVerify proves the key: a host that shows the
    /// pinned certificate without holding its key must fail (control-plane.md §1.4).
    @Test func pinnedCertificateWithoutItsKeyIsRefused() throws {
        let impostorKey = try TLSIdentity.generate(commonName: TLSIdentity.hostCommonName).privateKeyPEM
        var (c, s) = Self.configurations(trust: .pinned(Self.hostIdentity.fingerprint))
        s.identity = TLSIdentity(uncheckedCertificatePEM: Self.hostIdentity.certificatePEM,
                                 privateKeyPEM: impostorKey, certificateDER: Self.hostIdentity.certificateDER)
        s.allowMismatchedIdentityForTesting = true
        let pair = try QuicLoopback(client: c, server: s)
        #expect(pair.run { pair.client.error != nil })
        #expect(pair.client.state != .established)
        // GnuTLS 3.7 checks the TLS 1.3 CertificateVerify before it runs our verify function, so the
        // failure is decrypt_error (51) and the fingerprint was never recorded.
        #expect(pair.client.peerFingerprint == nil)
        if case .tlsHandshake(let alert, _) = pair.client.error {
            #expect(alert == 51)
        } else {
            Issue.record("expected a TLS handshake failure, got \(String(describing: pair.client.error))")
        }
    }

    @Test func applicationCloseCodeReachesTheServer() throws {
        let (c, s) = Self.configurations()
        let pair = try QuicLoopback(client: c, server: s)
        #expect(pair.connect())
        pair.client.close(applicationCode: 0x51, reason: "quit")
        #expect(pair.run { pair.server?.peerClose != nil })
        #expect(pair.server?.peerClose == QuicClose(isApplication: true, code: 0x51, reason: "quit"))
        #expect(pair.server?.error == .peerClosed(QuicClose(isApplication: true, code: 0x51, reason: "quit")))
        #expect(pair.client.state == .closing)
        #expect(pair.serverEvents.contains(.closed))
    }

    @Test func clientWithoutIdentityIsAnonymous() throws {
        var (c, s) = Self.configurations()
        c.identity = nil
        let pair = try QuicLoopback(client: c, server: s)
        #expect(pair.connect())
        #expect(pair.server?.peerFingerprint == nil)
        #expect(pair.client.peerFingerprint == Self.hostIdentity.fingerprint)
    }

    @Test func alpnMismatchFails() throws {
        var (c, s) = Self.configurations()
        c.alpn = ["pkf9"]
        let pair = try QuicLoopback(client: c, server: s)
        #expect(pair.run { pair.client.error != nil })
        #expect(pair.client.state != .established)
        // The host refuses with TLS alert 120 no_application_protocol (control-plane.md §1.6).
        #expect(pair.client.peerClose?.tlsAlert == 120, "\(String(describing: pair.client.error))")
    }
}

extension QuicLoopbackTests {
    /// data-plane.md §8.1: raw media shares the socket; it reaches the media handler only from the
    /// dialled host, and QUIC keeps working beside it.
    @Test func driverSplitsMediaFromQuicOnTheSharedSocket() throws {
        let (c, s) = Self.configurations()
        let pair = try QuicLoopback(client: c, server: s)
        #expect(pair.connect())
        let media: [UInt8] = [0x00] + [UInt8](repeating: 0xEE, count: 1453)  // v2 video tag, 1454 B
        try pair.sendFromServer(media)
        let stranger = try UDPSocket(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        _ = try stranger.send([0x00, 1, 2, 3], to: pair.clientSocket.localAddress)
        try pair.client.sendDatagram([0x04, 0x01])
        #expect(pair.run { pair.clientMedia.count == 1 && pair.clientDriver.foreignMediaDropped == 1
            && QuicLoopback.datagrams(pair.serverEvents).count == 1 })
        #expect(pair.clientMedia == [media])
        #expect(pair.client.state == .established)
    }
}

@Suite struct QuicDemuxTests {
    @Test func firstByteTopBitsSelectTheRoute() {
        #expect(SharedSocketDemux.route(firstByte: 0x00) == .media)  // v2 video tag
        #expect(SharedSocketDemux.route(firstByte: 0x01) == .media)  // probe filler
        #expect(SharedSocketDemux.route(firstByte: 0x3F) == .media)
        #expect(SharedSocketDemux.route(firstByte: 0x40) == .quic)  // short header, fixed bit
        #expect(SharedSocketDemux.route(firstByte: 0xC3) == .quic)  // long header Initial
        #expect(SharedSocketDemux.route(firstByte: 0x80) == .quic)
        #expect([UInt8]().withUnsafeBytes { SharedSocketDemux.route($0) } == .drop)
    }
}

@Suite struct QuicSocketAddressTests {
    @Test func parsesAndPrintsBothFamilies() throws {
        let v4 = try #require(SocketAddress(ip: "192.168.1.20", port: 9777))
        #expect(v4.description == "192.168.1.20:9777")
        #expect(!v4.isIPv6)
        let v6 = try #require(SocketAddress(ip: "fe80::1", port: 9778))
        #expect(v6.description == "[fe80::1]:9778")
        #expect(SocketAddress(ip: "punktfunk.local", port: 1) == nil)
    }

    @Test func socketAsksForLargeBuffers() throws {
        let socket = try UDPSocket(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        #expect(socket.localAddress.port != 0)
        // Granted sizes depend on privileges and sysctls; they are at least the kernel default.
        #expect(socket.bufferSizes.receive > 0)
        #expect(socket.bufferSizes.send > 0)
        print("UDPSocket buffers granted: \(socket.bufferSizes)")
    }

    @Test func ipv4MappedAddressesCanonicaliseToIPv4() throws {
        let mapped = try #require(SocketAddress(ip: "::ffff:10.0.0.7", port: 9777))
        #expect(mapped.isIPv6)
        #expect(mapped != SocketAddress(ip: "10.0.0.7", port: 9777))
        #expect(mapped.canonical == SocketAddress(ip: "10.0.0.7", port: 9777))
        #expect(SocketAddress(ip: "::1", port: 5)!.canonical == SocketAddress(ip: "::1", port: 5))
    }
}
