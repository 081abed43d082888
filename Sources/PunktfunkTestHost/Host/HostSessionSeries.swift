import Foundation
import PunktfunkSession

/// A test host that serves `HostSession`s one after another on one UDP port, so a client can
/// pair (one connection) and then connect (the next), or be redirected and come back. The
/// options — and with them the shared pairing window, trust store and admission policy — are the
/// same for every session.
///
/// Invariants: at most one session (and one socket) at a time; the port stays the one the first
/// session bound; `run()` returns after `sessions` connections (0 = no limit), on `stop()` (any
/// thread), or after `options.maxSeconds` in total.
public final class HostSessionSeries: @unchecked Sendable {
    public let options: HostSession.Options
    /// Connections to serve; 0 = until stopped.
    public let sessions: Int
    /// The bound address (fixed for the whole series).
    public let localAddress: SocketAddress
    /// Called on the serving thread with each session before it runs (install callbacks here).
    public var onSession: ((HostSession) -> Void)?
    /// Adjusts the options of the sessions after the first (index from 1), e.g. to script an
    /// outage only once. Set before `run()`.
    public var laterOptions: ((Int, inout HostSession.Options) -> Void)?

    private let lock = NSLock()
    private var first: HostSession?
    private var current: HostSession?
    private var stopRequested = false
    private var _served = 0
    private var _errors: [SessionError] = []

    /// Binds the first session's socket now, so `localAddress` is known before `run()`.
    public init(options: HostSession.Options, sessions: Int = 1) throws(SessionError) {
        let host = try HostSession(options: options)
        first = host
        localAddress = host.localAddress
        var fixed = options
        fixed.bind = host.localAddress
        self.options = fixed
        self.sessions = sessions
    }

    /// Connections served so far.
    public var served: Int { lock.withLock { _served } }
    /// The sessions' errors, in order.
    public var errors: [SessionError] { lock.withLock { _errors } }

    /// Asks `run()` to return soon.
    public func stop() {
        let host = lock.withLock { () -> HostSession? in
            stopRequested = true
            return current
        }
        host?.stop()
    }

    /// Serves the series on the calling thread.
    public func run() {
        let limit = Date().addingTimeInterval(options.maxSeconds)
        while true {
            let done = lock.withLock { stopRequested || (sessions > 0 && _served >= sessions) || Date() > limit }
            if done { return }
            let host: HostSession
            if let bound = lock.withLock({ () -> HostSession? in defer { first = nil }; return first }) {
                host = bound
            } else {
                var next = options
                laterOptions?(lock.withLock { _served }, &next)
                do { host = try HostSession(options: next) } catch {
                    lock.withLock { _errors.append(error) }
                    return
                }
            }
            lock.withLock { current = host }
            if lock.withLock({ stopRequested }) { host.stop() }
            onSession?(host)
            do { try host.run() } catch { lock.withLock { _errors.append(error) } }
            host.socket.close()
            lock.withLock {
                current = nil
                _served += 1
            }
        }
    }
}
