import Testing
import PunktfunkWire
@testable import PunktfunkSession
import SystemClock
import PunktfunkTestHost

/// `ClientHandshake` against a scripted `HostHandshake` over real UDP on 127.0.0.1
/// (control-plane.md §3.1–§3.5, §4.1; media exporter data-plane.md §8.4).
@Suite(.serialized) struct HandshakeLoopbackTests {
    @Test func happyPathEstablishesWithAgreedSessionClockAndHeldStreamConfig() throws {
        let skew: Int64 = 5_000_000_000  // the host clock runs 5 s ahead
        let hs = try HandshakeLoopback(script: .init(decision: .serverHello(HandshakeLoopback.serverHello())),
                                       hostSkewNs: skew)
        #expect(hs.run(), "no outcome: \(String(describing: hs.clientError)) \(hs.hostErrors)")
        let params = try #require(hs.established, "\(String(describing: hs.outcome)) \(String(describing: hs.clientError))")
        let host = try #require(hs.host)

        // §3.2: the host read exactly the ClientHello the client sent.
        #expect(host.clientHello == HandshakeLoopback.hello)
        // §3.3: one random session id, the same on both sides, not the placeholder.
        #expect(params.serverHello.sessionID == host.sessionID)
        #expect(params.serverHello.sessionID.bytes != [UInt8](repeating: 0, count: 16))
        #expect(params.serverHello.suite == .aes128GCM)
        #expect(params.serverHello.mode == Mode(width: 1920, height: 1080, refreshHz: 60))
        // data-plane.md §8.4: 32 exporter bytes, equal on both ends.
        #expect(params.mediaExporter.count == 32)
        #expect(try host.mediaExporter() == params.mediaExporter)
        // §4.1: 8 rounds answered; offset ≈ the host's skew; the min-RTT sample chose it.
        #expect(params.clockSamples.count == ClockSync.rounds)
        #expect(host.probesAnswered == ClockSync.rounds)
        let rtt = try #require(params.clockRttNs)
        #expect(rtt < 1_000_000_000)
        #expect(rtt == params.clockSamples.map(\.rtt).min())
        #expect(abs(params.clockOffsetNs - skew) < 50_000_000, "offset \(params.clockOffsetNs)")
        // §3.1: StreamConfig epoch 0 came during the clock rounds and was held for the control task.
        #expect(params.heldFrames.count == 1)
        let held = try ControlMessage(frame: try #require(params.heldFrames.first))
        #expect(held == .streamConfig(StreamConfig(epoch: 0)))
        #expect(host.state == .serving)
        #expect(hs.clientStates.contains(.clockRounds(round: 7)))
        #expect(!hs.clientStates.contains { if case .waitingForApproval = $0 { true } else { false } })
        #expect(hs.pair.client.state == .established)
        #expect(params.controlStream == hs.client.controlStream)
    }

    @Test func pendingFramesSurfaceAsWaitingForApprovalThenEstablish() throws {
        let script = HostHandshake.Script(decision: .serverHello(HandshakeLoopback.serverHello()),
                                          pendingCount: 3, pendingEvery: 60_000_000)
        var timeouts = ClientHandshake.Timeouts()
        timeouts.negotiation = 2_000_000_000
        timeouts.afterPending = 1_000_000_000
        let hs = try HandshakeLoopback(script: script, timeouts: timeouts)
        #expect(hs.run())
        #expect(hs.established != nil, "\(String(describing: hs.clientError))")
        #expect(hs.clientStates.contains(.waitingForApproval(count: 1)))
        #expect(hs.clientStates.contains(.waitingForApproval(count: 3)))
        #expect(!hs.clientStates.contains(.waitingForApproval(count: 4)))
    }

    @Test func pendingStopsAtTheApprovalBound() throws {
        // A host that keeps the client pending past the client's approval bound.
        let script = HostHandshake.Script(decision: .silence, pendingCount: 100, pendingEvery: 50_000_000)
        var timeouts = ClientHandshake.Timeouts()
        timeouts.afterPending = 500_000_000
        timeouts.approval = 400_000_000
        let hs = try HandshakeLoopback(script: script, timeouts: timeouts)
        #expect(hs.run(seconds: 3))
        #expect(hs.clientError == .timeout(phase: "approval"))
    }

    @Test func redirectReturnsTheTargetAndClosesWithQuit() throws {
        let pin = String(repeating: "ab", count: 32)
        let redirect = Redirect(addr: "192.0.2.7", port: 47_999, profile: "couch", pin: pin)
        let hs = try HandshakeLoopback(script: .init(decision: .redirect(redirect), redirectLinger: 2_000_000_000))
        #expect(hs.run())
        #expect(hs.outcome == .redirect(addr: "192.0.2.7", port: 47_999, pin: pin))
        // §3.4: the client closes 0x51 "redirected"; the host sees that code.
        #expect(hs.run(seconds: 2) { hs.pair.server?.peerClose != nil })
        #expect(hs.pair.server?.peerClose?.code == CloseCode.quit.code)
    }

    @Test(arguments: [CloseCode.identityRequired, CloseCode.busy])
    func refusalCarriesTheCloseCodeAndItsSentence(code: CloseCode) throws {
        let hs = try HandshakeLoopback(script: .init(decision: .refuse(code, reason: "host says no")))
        #expect(hs.run())
        let error = try #require(hs.clientError)
        #expect(error == .closedByPeer(code: code, reason: "host says no"))
        #expect(error.closeCode == code)
        #expect(error.description.contains(code.explanation))
        #expect(error.description.contains("host says no"))
        #expect(hs.outcome == nil)
    }

    @Test func silentHostEndsInAReplyTimeout() throws {
        var timeouts = ClientHandshake.Timeouts()
        timeouts.negotiation = 300_000_000
        let hs = try HandshakeLoopback(script: .init(decision: .silence), timeouts: timeouts)
        let start = MonotonicClock.nowNs()
        #expect(hs.run(seconds: 3))
        #expect(hs.clientError == .timeout(phase: "reply"))
        let elapsed = MonotonicClock.nowNs() - start
        #expect(elapsed < 2_000_000_000)
        #expect(hs.client.state == .finished)
    }

    @Test func unknownSuiteIsRefusedByTheClient() throws {
        // ServerHello {1: 16-byte id, 3: suite 7}: tag 3 names no suite this build knows (§3.3).
        let body: [UInt8] = [0x01, 0x10] + [UInt8](repeating: 0x5A, count: 16) + [0x03, 0x01, 0x07]
        let frame = ControlFrame(type: ControlMessageType.serverHello.rawValue, body: body)
        let hs = try HandshakeLoopback(script: .init(decision: .rawServerHello(frame)))
        #expect(hs.run())
        #expect(hs.clientError == .unsupportedSuite(7))
        #expect(hs.outcome == nil)
        // The client closes the connection; the host sees its close (0x51) and no Ready.
        #expect(hs.run(seconds: 2) { hs.pair.server?.peerClose != nil })
        #expect(hs.pair.server?.peerClose?.code == CloseCode.quit.code)
        #expect(hs.host?.state != .serving)
    }

    @Test func missingSuiteIsRefusedByTheClient() throws {
        let body: [UInt8] = [0x01, 0x10] + [UInt8](repeating: 0x5A, count: 16)
        let frame = ControlFrame(type: ControlMessageType.serverHello.rawValue, body: body)
        let hs = try HandshakeLoopback(script: .init(decision: .rawServerHello(frame)))
        #expect(hs.run())
        #expect(hs.clientError == .unsupportedSuite(nil))
    }

    @Test func serverHelloWithoutSessionIDFails() throws {
        let frame = ControlFrame(type: ControlMessageType.serverHello.rawValue, body: [0x03, 0x01, 0x00])
        let hs = try HandshakeLoopback(script: .init(decision: .rawServerHello(frame)))
        #expect(hs.run())
        #expect(hs.clientError == .malformed(.missingField(tag: 1)))
    }

    @Test func unansweredClockRoundsEndByTimeoutWithZeroOffset() throws {
        // §4.1: a round waits for its echo (here 100 ms); a timeout ends the rounds and zero
        // answered rounds mean offset 0 ("shared clock"). The path to the host goes dead right
        // after the client queued Ready + the first ClockProbe.
        var timeouts = ClientHandshake.Timeouts()
        timeouts.echo = 100_000_000
        let hs = try HandshakeLoopback(script: .init(decision: .serverHello(HandshakeLoopback.serverHello())),
                                       timeouts: timeouts)
        #expect(hs.run(seconds: 3) { hs.client.state == .clockRounds(round: 0) || hs.finished })
        hs.pair.serverMuted = true
        #expect(hs.run(seconds: 3))
        let params = try #require(hs.established, "\(String(describing: hs.clientError))")
        #expect(params.clockSamples.isEmpty)
        #expect(params.clockRttNs == nil)
        #expect(params.clockOffsetNs == 0)
        #expect(params.mediaExporter.count == 32)
    }
}

/// The scripted host's own checks (control-plane.md §2.1, §3.1).
@Suite(.serialized) struct HandshakeHostTests {
    @Test func hostRefusesAStreamThatIsNotTheControlStream() throws {
        let hs = try HandshakeLoopback(script: .init(decision: .serverHello(HandshakeLoopback.serverHello())),
                                       clientStarts: false)
        #expect(hs.pair.connect())
        // STREAM_MANAGEMENT (0x03) then a ClientHello: this test host only serves sessions.
        let stream = try hs.pair.client.openBidirectionalStream()
        try hs.pair.client.write(stream: stream, [0x03] + ControlMessage.clientHello(HandshakeLoopback.hello).encoded)
        #expect(hs.run(seconds: 3) { hs.host?.error != nil })
        #expect(hs.host?.error == .unexpected("stream type 3 instead of control (0x00)"))
        #expect(hs.host?.clientHello == nil)
        #expect(hs.run(seconds: 2) { hs.pair.client.peerClose != nil })
    }

    @Test func hostTimesOutWithoutAClientHello() throws {
        let hs = try HandshakeLoopback(script: .init(decision: .serverHello(HandshakeLoopback.serverHello()),
                                                     negotiation: 300_000_000),
                                       clientStarts: false)
        #expect(hs.run(seconds: 3) { hs.host?.error != nil })
        #expect(hs.host?.error == .timeout(phase: "client hello"))
        #expect(hs.run(seconds: 2) { hs.pair.client.peerClose != nil })
        #expect(hs.pair.client.peerClose?.code == CloseCode.normal.code)
    }

    @Test func hostCloseDuringTheClockRoundsIsATypedError() throws {
        // §3.5: admitted, then setup failed — the host closes 0x68 while the client measures clocks.
        let hs = try HandshakeLoopback(script: .init(decision: .serverHello(HandshakeLoopback.serverHello())))
        #expect(hs.run(seconds: 3) { hs.client.state == .clockRounds(round: 0) || hs.finished })
        hs.pair.server?.close(applicationCode: CloseCode.setupFailed.code, reason: "encoder failed")
        #expect(hs.run())
        #expect(hs.clientError == .closedByPeer(code: .setupFailed, reason: "encoder failed"))
        #expect(hs.clientError?.description.contains(CloseCode.setupFailed.explanation) == true)
    }

    @Test func clientRejectsASessionFrameBeforeServerHello() throws {
        let frame = ControlMessage.streamConfig(StreamConfig(epoch: 0)).frame
        let hs = try HandshakeLoopback(script: .init(decision: .rawServerHello(frame)))
        #expect(hs.run())
        #expect(hs.clientError == .unexpected("frame 0x22 before ServerHello"))
        #expect(hs.outcome == nil)
    }

    @Test func clientHelloSplitAcrossWritesIsReassembled() throws {
        // The host must take the stream-type varint and the frame from arbitrary byte chunks.
        let hs = try HandshakeLoopback(script: .init(decision: .serverHello(HandshakeLoopback.serverHello())),
                                       clientStarts: false)
        #expect(hs.pair.connect())
        let stream = try hs.pair.client.openBidirectionalStream()
        let bytes = [0x00] + ControlMessage.clientHello(HandshakeLoopback.hello).encoded
        for chunk in stride(from: 0, to: bytes.count, by: 5) {
            try hs.pair.client.write(stream: stream, bytes[chunk..<min(chunk + 5, bytes.count)])
            hs.run(seconds: 0.05) { false }
        }
        #expect(hs.run(seconds: 3) { hs.host?.state == .awaitingReady })
        #expect(hs.host?.clientHello == HandshakeLoopback.hello)
        #expect(hs.host?.sessionID != nil)
    }
}
