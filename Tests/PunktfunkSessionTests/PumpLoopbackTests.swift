import Foundation
import Testing
import PunktfunkWire
@testable import PunktfunkSession
import PunktfunkTestHost

/// A `HostSession` on its own `Thread` and a `ClientSession` on the test thread over real UDP on
/// 127.0.0.1. Every run is bounded: the client by `seconds`, the host by `maxSeconds` and `stop()`,
/// the join by a 10 s semaphore wait.
final class PumpRig {
    let host: HostSession
    private let done = DispatchSemaphore(value: 0)

    init(loss: Double = 0, refuse: CloseCode? = nil, auBytes: Int = 20_000, fps: Double = 60) throws {
        var options = HostSession.Options(identity: QuicLoopbackTests.hostIdentity,
                                          bind: SocketAddress(ip: "127.0.0.1", port: 0)!,
                                          accessUnits: SyntheticAccessUnits.make(count: 16, bytes: auBytes, seed: 7))
        options.lossPercent = loss
        options.seed = 42
        options.refuse = refuse
        options.fps = fps
        options.maxSeconds = 10
        host = try HostSession(options: options)
        let host = self.host
        let done = self.done
        let thread = Thread {
            try? host.run()
            done.signal()
        }
        thread.start()
    }

    func client(seconds: Double = 1.5, trust: HostTrust? = nil) -> ClientSession {
        ClientSession(options: .init(remote: host.localAddress, identity: QuicLoopbackTests.clientIdentity,
                                     trust: trust ?? .pinned(QuicLoopbackTests.hostIdentity.fingerprint),
                                     seconds: seconds))
    }

    /// Stops the host and waits (≤ 10 s) for its thread. Returns whether it ended.
    @discardableResult
    func join() -> Bool {
        host.stop()
        return done.wait(timeout: .now() + 10) == .success
    }
}

@Suite(.serialized) struct PumpLoopbackTests {
    /// Runs a client against `rig`, collecting AUs by frame number.
    static func collect(_ client: ClientSession) -> (aus: [UInt32: [UInt8]], stats: [PumpStats], error: SessionError?) {
        var aus: [UInt32: [UInt8]] = [:]
        var stats: [PumpStats] = []
        client.onAccessUnit = { aus[$0.frame] = Array($0.data) }
        client.onStats = { stats.append($0) }
        do { try client.run() } catch { return (aus, stats, error) }
        return (aus, stats, nil)
    }

    @Test func accessUnitsArriveByteExactAndFeedbackReachesTheHost() throws {
        let rig = try PumpRig()
        let client = rig.client(seconds: 1.6)
        let (aus, stats, error) = Self.collect(client)
        #expect(rig.join())
        #expect(error == nil, "\(String(describing: error))")
        // ~60 fps for ~1.6 s: well over 40 frames, each equal to what the host sent for that frame.
        #expect(aus.count >= 40, "only \(aus.count) AUs")
        // Media sent while the client's clock rounds ran is kept: frame 0 (the keyframe) arrives.
        #expect(aus[0] != nil)
        #expect(aus.count + 3 >= rig.host.framesSent, "\(aus.count) of \(rig.host.framesSent)")
        let sent = rig.host.options.accessUnits
        for (frame, bytes) in aus { #expect(bytes == sent[Int(frame) % sent.count], "frame \(frame)") }
        #expect(client.counters.framesLost == 0)
        #expect(client.mediaErrors == 0)
        #expect(client.feedbackSent >= 2)
        #expect(rig.host.feedbackReceived >= 1)
        #expect(stats.count >= 1)
        #expect(stats.first.map { $0.fps > 20 && $0.mbps > 1 } == true, "\(stats)")
        #expect(client.parameters?.clockRttNs != nil)
        #expect(stats.first?.json.hasPrefix("{\"second\":1,") == true)
    }

    @Test func injectedLossIsRepairedByFEC() throws {
        let rig = try PumpRig(loss: 3)
        let client = rig.client(seconds: 1.6)
        let (aus, _, error) = Self.collect(client)
        #expect(rig.join())
        #expect(error == nil, "\(String(describing: error))")
        #expect(rig.host.datagramsDropped > 0)
        #expect(client.counters.shardsRecovered > 0)
        #expect(aus.count >= 30, "only \(aus.count) AUs")
        let sent = rig.host.options.accessUnits
        for (frame, bytes) in aus { #expect(bytes == sent[Int(frame) % sent.count], "frame \(frame)") }
    }

    @Test func aRefusalEndsWithTheCloseCodeSentence() throws {
        let rig = try PumpRig(refuse: .denied)
        let (aus, _, error) = Self.collect(rig.client(seconds: 1))
        #expect(rig.join())
        #expect(aus.isEmpty)
        let e = try #require(error)
        let expected = HandshakeError.closedByPeer(code: .denied, reason: "refused by pf-testhost").description
        #expect(e.description == expected)
        #expect(e.description.contains(CloseCode.denied.explanation))
    }

    @Test func aWrongPinIsRefused() throws {
        let rig = try PumpRig()
        let wrong = String(repeating: "ab", count: 32)
        let (aus, _, error) = Self.collect(rig.client(seconds: 1, trust: .pinned(wrong)))
        #expect(rig.join())
        #expect(aus.isEmpty)
        let e = try #require(error)
        #expect(e.quicError == .pinMismatch(expected: wrong, actual: QuicLoopbackTests.hostIdentity.fingerprint), "\(e)")
        #expect(e.description.contains("pinned fingerprint"))
    }

    @Test func hostPortsParse() throws {
        #expect(try HostResolver.split("example.org") == ("example.org", 9777))
        #expect(try HostResolver.split("10.0.0.2:1234") == ("10.0.0.2", 1234))
        #expect(try HostResolver.split("[::1]:99") == ("::1", 99))
        #expect(try HostResolver.split("fe80::1") == ("fe80::1", 9777))
        #expect(try HostResolver.resolve("127.0.0.1:5").description == "127.0.0.1:5")
        #expect(throws: SessionError.self) { try HostResolver.split("host:0") }
    }
}
