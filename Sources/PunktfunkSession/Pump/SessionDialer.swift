import PunktfunkWire
import SystemClock

/// One connect as control-plane.md §3.1 and §5.6 describe it: run a `ClientSession`;
/// - when the host answers with a Redirect, re-dial once — `addr:port` (empty addr = the address
///   first dialled), the same ClientHello and identity, pinning the Redirect's fingerprint when it
///   carries one (else the original trust). A second Redirect is `SessionError.redirectedTwice`;
/// - when an established session is lost (path gone, idle timeout — not a close by the host and
///   not our quit), re-dial the same host with ClientHello `resume` = the lost session id for the
///   rest of the requested time: attempts of `resumeDialNs` each, until 2 s before the end.
public enum SessionDialer {
    /// Per-attempt dial bound while resuming (§3.1: 3 s).
    public static let resumeDialNs: UInt64 = 3_000_000_000

    /// Runs the session (blocking, on the calling thread). `prepare` is applied to each
    /// `ClientSession` before it runs (install callbacks there); `onResume` is told each time a
    /// lost session is re-dialled (with the attempt number, from 1).
    /// - Returns: the session that ran to its end (the redirected or resumed one).
    @discardableResult
    public static func run(_ options: ClientSession.Options,
                           prepare: (ClientSession) -> Void = { _ in },
                           onResume: (Int) -> Void = { _ in }) throws(SessionError) -> ClientSession {
        let end = MonotonicClock.nowNs() + UInt64(max(0, options.seconds) * 1e9)
        var current = options
        var redirected = false
        var attempt = 0
        var lost: SessionID?
        while true {
            let session = ClientSession(options: current)
            prepare(session)
            do {
                try session.run()
                return session
            } catch .redirected(let addr, let port, let pin) {
                if redirected { throw .redirectedTwice(addr: addr, port: port) }
                redirected = true
                current.remote = try redirectAddress(addr, port: port, from: current.remote)
                if !pin.isEmpty { current.trust = .pinned(pin) }
                continue
            } catch {
                let now = MonotonicClock.nowNs()
                if session.sessionLost, let id = session.parameters?.serverHello.sessionID {
                    lost = id
                    attempt = 0
                } else if lost == nil || !isUnanswered(error) {
                    throw error
                }
                // Resume: the host keeps a lost session's display for a while; ask for it back.
                guard let id = lost, now + 2_000_000_000 < end else { throw error }
                attempt += 1
                onResume(attempt)
                current.hello.resume = id
                current.dialTimeoutNs = min(resumeDialNs, end - now)
                current.seconds = Double(end - now) / 1e9
            }
        }
    }

    /// A dial that got no answer (host or path still away): worth another attempt.
    static func isUnanswered(_ error: SessionError) -> Bool {
        switch error {
        case .handshake(.timeout), .transport(.idleTimeout), .transport(.handshakeTimeout): return true
        default: return false
        }
    }

    /// Where a Redirect points: `addr` (a name or IP literal; empty = `original`'s address) and
    /// `port`.
    public static func redirectAddress(_ addr: String, port: UInt16, from original: SocketAddress) throws(SessionError) -> SocketAddress {
        let host = addr.isEmpty ? original.host : addr
        if let literal = SocketAddress(ip: host, port: port) { return literal }
        return try HostResolver.resolve(host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
    }
}
