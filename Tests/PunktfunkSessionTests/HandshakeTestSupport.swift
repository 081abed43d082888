import Glibc
import PunktfunkWire
import SystemClock
@testable import PunktfunkSession
import PunktfunkTestHost

/// Unix-epoch ns (CLOCK_REALTIME): the client wall clock of control-plane.md §4.1.
func handshakeWallNs() -> UInt64 { MonotonicClock.realtimeNs() }

/// A `ClientHandshake` and a scripted `HostHandshake` on the two ends of a `QuicLoopback`
/// (real UDP on 127.0.0.1). Both machines get every event their connection reports, in order,
/// and their timers; the client starts once its TLS handshake is complete. Runs are bounded in
/// iterations and wall time by `QuicLoopback.run`.
final class HandshakeLoopback {
    let pair: QuicLoopback
    let client: ClientHandshake
    let script: HostHandshake.Script
    /// Added to the wall clock for the host's t2/t3, so the measured offset is known.
    let hostSkewNs: Int64
    private(set) var host: HostHandshake?
    private(set) var outcome: ClientHandshake.Outcome?
    private(set) var clientError: HandshakeError?
    private(set) var hostErrors: [HandshakeError] = []
    /// Every distinct client state, in order.
    private(set) var clientStates: [ClientHandshake.State] = []
    private var clientIndex = 0
    private var serverIndex = 0
    /// False: the `ClientHandshake` never starts (a test drives the client connection by hand).
    let clientStarts: Bool

    init(hello: ClientHello = HandshakeLoopback.hello, script: HostHandshake.Script,
         timeouts: ClientHandshake.Timeouts = ClientHandshake.Timeouts(), hostSkewNs: Int64 = 0,
         clientStarts: Bool = true) throws {
        self.clientStarts = clientStarts
        let (c, s) = QuicLoopbackTests.configurations()
        pair = try QuicLoopback(client: c, server: s)
        client = ClientHandshake(connection: pair.client, hello: hello, timeouts: timeouts)
        self.script = script
        self.hostSkewNs = hostSkewNs
    }

    static var hello: ClientHello {
        var h = ClientHello(mode: Mode(width: 1920, height: 1080, refreshHz: 60))
        h.suites = [.aes128GCM]
        return h
    }

    static func serverHello(suite: MediaSuite = .aes128GCM) -> ServerHello {
        var sh = ServerHello(sessionID: SessionID(bytes: [UInt8](repeating: 0, count: 16))!)
        sh.suite = suite
        sh.mode = Mode(width: 1920, height: 1080, refreshHz: 60)
        sh.shardPayload = 1408
        return sh
    }

    var finished: Bool { outcome != nil || clientError != nil }

    /// Drives everything until `done()` (default: the client finished) or the bounds run out.
    @discardableResult
    func run(seconds: Double = 5, until done: (() -> Bool)? = nil) -> Bool {
        pair.run(seconds: seconds, maxIterations: 50_000) {
            step()
            return done?() ?? finished
        }
    }

    private func hostNs() -> UInt64 { UInt64(Int64(handshakeWallNs()) + hostSkewNs) }

    private func step() {
        let now = MonotonicClock.nowNs()
        // Host: created as soon as the listener accepted the connection; sees all its events.
        if host == nil, let server = pair.server {
            host = HostHandshake(connection: server, script: script, now: now)
        }
        if let host {
            while serverIndex < pair.serverEvents.count {
                let event = pair.serverEvents[serverIndex]
                serverIndex += 1
                do { try host.handle(event, now: now, hostNs: hostNs()) } catch { hostErrors.append(error) }
            }
            if let d = host.nextDeadline, d <= now {
                do { try host.handleTimeout(now: now, hostNs: hostNs()) } catch { hostErrors.append(error) }
            }
        }
        // Client: starts once TLS completed.
        guard !finished, clientStarts else { return }
        if client.state == .idle {
            guard pair.client.state == .established else { return }
            do { try client.start(now: now) } catch { clientError = error; return }
        }
        while clientIndex < pair.clientEvents.count, !finished {
            let event = pair.clientEvents[clientIndex]
            clientIndex += 1
            record { () throws(HandshakeError) in try client.handle(event, now: now, wallNs: handshakeWallNs()) }
        }
        if !finished, let d = client.nextDeadline, d <= now {
            record { () throws(HandshakeError) in try client.handleTimeout(now: now, wallNs: handshakeWallNs()) }
        }
    }

    private func record(_ body: () throws(HandshakeError) -> ClientHandshake.Outcome?) {
        do {
            if let o = try body() { outcome = o }
        } catch {
            clientError = error
        }
        if clientStates.last != client.state { clientStates.append(client.state) }
    }

    var established: SessionParameters? {
        if case .established(let p) = outcome { return p }
        return nil
    }
}
