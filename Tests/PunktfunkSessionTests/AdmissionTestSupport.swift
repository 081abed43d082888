import Foundation
import PunktfunkWire
@testable import PunktfunkSession
import PunktfunkTestHost

/// A `HostSessionSeries` (sessions one after another on one loopback port, sharing one pairing
/// window, trust store and admission policy) on its own `Thread`; clients run on the test thread.
/// Bounded: each host session by `maxSeconds`, the join by a 10 s semaphore wait.
final class SeriesRig {
    let series: HostSessionSeries
    let window: PairingWindow
    let trusted: PairedClients
    let identity: TLSIdentity
    private let done = DispatchSemaphore(value: 0)
    private var joined: Bool?

    /// - Parameters:
    ///   - configure: edits the host options (admission, redirect, pending…) before the start.
    ///   - bind: a fixed address (to stand in for a host that came back with a new certificate).
    init(sessions: Int, pin: String? = nil, cooldownNs: UInt64 = 200_000_000,
         identity: TLSIdentity = QuicLoopbackTests.hostIdentity, bind: SocketAddress? = nil,
         trusted: PairedClients = PairedClients(),
         configure: (inout HostSession.Options) -> Void = { _ in }) throws {
        window = PairingWindow(cooldownNs: cooldownNs)
        if let pin { try window.arm(pin: pin) }
        self.trusted = trusted
        self.identity = identity
        var options = HostSession.Options(identity: identity, bind: bind ?? SocketAddress(ip: "127.0.0.1", port: 0)!,
                                          accessUnits: SyntheticAccessUnits.make(count: 8, bytes: 4_000, seed: 3))
        options.maxSeconds = 10
        options.pairing = HostPairing(window: window, trusted: trusted)
        configure(&options)
        series = try HostSessionSeries(options: options, sessions: sessions)
        let series = self.series
        let done = self.done
        Thread {
            series.run()
            done.signal()
        }.start()
    }

    var address: SocketAddress { series.localAddress }

    /// The admission gate of §6.5 over this rig's trust store.
    func requirePairing(_ knock: HostAdmission.KnockPolicy, approvalWait: UInt64 = 5_000_000_000) -> HostAdmission {
        HostAdmission(requirePairing: true, trusted: trusted, knock: knock, pendingEvery: 100_000_000,
                      approvalWait: approvalWait)
    }

    /// A PIN ceremony or access request from `identity` (default: the shared test client).
    func pair(_ mode: PairingClient.Mode, identity: TLSIdentity = QuicLoopbackTests.clientIdentity,
              onPending: ((Int) -> Void)? = nil) -> Result<String, SessionError> {
        var options = PairingClient.Options(remote: address, identity: identity, mode: mode, name: "kiosk test")
        options.onPending = onPending
        let client = PairingClient(options: options)
        return Result { () throws(SessionError) in try client.run() }
    }

    /// A short session (through `SessionDialer`, so a Redirect is followed) collecting frame numbers.
    func connect(trust: HostTrust, identity: TLSIdentity? = QuicLoopbackTests.clientIdentity, seconds: Double = 0.5,
                 onPending: ((Int) -> Void)? = nil) -> (frames: Set<UInt32>, session: ClientSession?, error: SessionError?) {
        var options = ClientSession.Options(remote: address, identity: identity, trust: trust, seconds: seconds)
        options.onPending = onPending
        var frames = Set<UInt32>()
        do {
            let session = try SessionDialer.run(options) { s in s.onAccessUnit = { frames.insert($0.frame) } }
            return (frames, session, nil)
        } catch {
            return (frames, nil, error)
        }
    }

    /// Stops the series and waits (≤ 10 s) for its thread. Idempotent.
    @discardableResult
    func join() -> Bool {
        if let joined { return joined }
        series.stop()
        let ended = done.wait(timeout: .now() + 10) == .success
        joined = ended
        return ended
    }
}

extension Result where Failure == SessionError {
    /// The handshake error inside, if the failure is one.
    var handshakeError: HandshakeError? {
        if case .failure(.handshake(let e)) = self { return e }
        return nil
    }
}
