import Glibc
import PunktfunkWire
import SystemClock

/// Makes a host trusted, blocking on the calling thread (control-plane.md §6.2, §6.5): dials its
/// own connection with the client certificate and no pin (TOFU: the host fingerprint observed in
/// TLS is what the result pins), then either
/// - `.pin`: runs the PIN ceremony (`ClientPairingExchange`); success returns the host fingerprint;
/// - `.requestAccess`: sends an `access_only` ClientHello and waits for the console (Pending
///   frames → `onPending`); a close 0x72 is the approval. An older host that streams instead also
///   admitted us: the client quits (0x51) and counts it as approval.
///
/// The caller stores the returned fingerprint (`KnownHosts`). Every wait is bounded: the dial by
/// the QUIC handshake timeout, each ceremony step by 60 s, the approval by ≈ 190 s.
public final class PairingClient {
    public enum Mode: Sendable, Equatable {
        /// The four-digit PIN the host shows.
        case pin(String)
        /// No PIN: ask the host's console to approve this device.
        case requestAccess
    }

    public struct Options {
        public var remote: SocketAddress
        /// Required: the host identifies the device by its certificate (§1.5).
        public var identity: TLSIdentity
        public var mode: Mode
        /// Device label for the host's approval and trust lists (≤ 64 UTF-8 bytes).
        public var name: String
        /// The hello of a request-access dial (`accessOnly` and `name` are set from the options).
        public var hello: ClientHello = ClientSession.defaultHello
        /// Pairing per-step bound, ns (§6.2: 60 s).
        public var stepTimeout: UInt64 = 60_000_000_000
        /// Request-access: Pending count so far; show "waiting for approval on the host".
        public var onPending: ((Int) -> Void)?

        public init(remote: SocketAddress, identity: TLSIdentity, mode: Mode, name: String) {
            self.remote = remote
            self.identity = identity
            self.mode = mode
            self.name = name
        }
    }

    public let options: Options
    /// The host fingerprint observed in TLS (also on failure, once TLS completed).
    public private(set) var observedFingerprint: String?

    public init(options: Options) { self.options = options }

    /// Runs the ceremony or the access request.
    /// - Returns: the host's certificate fingerprint (64 hex) to pin from now on.
    public func run() throws(SessionError) -> String {
        var config = QuicConfiguration()
        config.identity = options.identity
        config.hostTrust = .trustOnFirstUse
        let wildcard = SocketAddress(ip: options.remote.isIPv6 ? "::" : "0.0.0.0", port: 0)!
        let socket: UDPSocket
        let connection: QuicConnection
        do {
            socket = try UDPSocket(bind: wildcard)
            connection = try QuicConnection(client: config, local: socket.localAddress, remote: options.remote,
                                            now: MonotonicClock.nowNs())
        } catch { throw .transport(error) }
        defer { socket.close() }
        let driver = QuicSocketDriver(socket: socket, connection: connection)
        driver.onMedia = { _ in }  // an older host may stream at a request-access dial: ignore it
        defer { flushClose(driver) }

        // TLS first (bounded by the connection's handshake timeout).
        while connection.state == .handshaking {
            do { _ = try driver.wait(timeout: 20_000_000) } catch { throw .transport(error) }
        }
        guard connection.state == .established else {
            if let close = connection.peerClose, close.isApplication {
                throw .handshake(.closedByPeer(code: CloseCode(code: close.code), reason: close.reason))
            }
            throw .transport(connection.error ?? driver.connectionErrors.last ?? .invalidState("closed during TLS"))
        }
        observedFingerprint = connection.peerFingerprint
        switch options.mode {
        case .pin(let pin): return try pair(pin: pin, connection: connection, driver: driver)
        case .requestAccess: return try requestAccess(connection: connection, driver: driver)
        }
    }

    private func pair(pin: String, connection: QuicConnection, driver: QuicSocketDriver) throws(SessionError) -> String {
        let exchange = ClientPairingExchange(connection: connection, pin: pin, name: options.name,
                                             stepTimeout: options.stepTimeout)
        do throws(HandshakeError) {
            try exchange.start(now: MonotonicClock.nowNs())
            while true {
                let events: [QuicEvent]
                do { events = try driver.wait(timeout: 20_000_000) } catch { throw HandshakeError.transport(error) }
                for event in events {
                    if let host = try exchange.handle(event, now: MonotonicClock.nowNs()) { return host }
                }
                try exchange.handleTimeout(now: MonotonicClock.nowNs())
            }
        } catch {
            throw .handshake(error)
        }
    }

    private func requestAccess(connection: QuicConnection, driver: QuicSocketDriver) throws(SessionError) -> String {
        var hello = options.hello
        hello.accessOnly = true
        hello.name = options.name.isEmpty ? nil : options.name
        let handshake = ClientHandshake(connection: connection, hello: hello)
        var pendingSeen = 0
        let granted = { () -> String in connection.peerFingerprint ?? "" }
        do {
            try handshake.start(now: MonotonicClock.nowNs())
            while true {
                let events: [QuicEvent]
                do { events = try driver.wait(timeout: 20_000_000) } catch { throw HandshakeError.transport(error) }
                var outcome: ClientHandshake.Outcome?
                for event in events where outcome == nil {
                    outcome = try handshake.handle(event, now: MonotonicClock.nowNs(), wallNs: MonotonicClock.realtimeNs())
                }
                if outcome == nil { outcome = try handshake.handleTimeout(now: MonotonicClock.nowNs(), wallNs: MonotonicClock.realtimeNs()) }
                if case .waitingForApproval(let count) = handshake.state, count != pendingSeen {
                    pendingSeen = count
                    options.onPending?(count)
                }
                switch outcome {
                case .established?:
                    // An older host streams instead of closing 0x72 (§3.2 tag 26): we were admitted.
                    connection.close(applicationCode: CloseCode.quit.code, reason: "quit")
                    return granted()
                case .redirect(let addr, let port, _)?:
                    throw SessionError.redirected(addr: addr, port: port, pin: "")
                case nil:
                    continue
                }
            }
        } catch let error as HandshakeError {
            if error.closeCode == .accessGranted { return granted() }
            throw .handshake(error)
        } catch let error as SessionError {
            throw error
        } catch {
            throw .transport(.invalidState("\(error)"))
        }
    }

    /// Sends the CONNECTION_CLOSE queued by the last step (`QuicConnection.close` only queues it).
    private func flushClose(_ driver: QuicSocketDriver) {
        _ = try? driver.step()
    }
}
