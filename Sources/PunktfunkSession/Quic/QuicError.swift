import Glibc
internal import CGnuTLS
internal import CNgtcp2

/// How a QUIC connection ended from the peer's side: the CONNECTION_CLOSE it sent.
public struct QuicClose: Sendable, Equatable, CustomStringConvertible {
    /// True for an application close (frame 0x1d), false for a transport close (0x1c).
    public let isApplication: Bool
    /// The error code (for a TLS failure: 0x100 + the alert, RFC 9001 §4.8).
    public let code: UInt64
    /// The reason phrase (UTF-8, possibly empty).
    public let reason: String

    public init(isApplication: Bool, code: UInt64, reason: String) {
        self.isApplication = isApplication
        self.code = code
        self.reason = reason
    }

    /// The TLS alert if this is a transport CRYPTO_ERROR (0x100…0x1ff).
    public var tlsAlert: UInt8? {
        (!isApplication && code >= 0x100 && code <= 0x1FF) ? UInt8(code - 0x100) : nil
    }

    public var description: String {
        let kind = isApplication ? "application" : "transport"
        return "\(kind) close 0x\(String(code, radix: 16))" + (reason.isEmpty ? "" : " (\(reason))")
    }
}

/// Errors of the QUIC layer (transport, TLS, socket). Each case says which call failed or what the
/// peer did; `description` is a sentence for logs.
public enum QuicError: Error, Equatable, CustomStringConvertible {
    /// An ngtcp2 call failed with this `NGTCP2_ERR_*` code.
    case ngtcp2(code: Int32, call: String)
    /// A GnuTLS call failed with this `GNUTLS_E_*` code.
    case gnutls(code: Int32, call: String)
    /// The host's leaf certificate does not hash to the pinned fingerprint (control-plane.md §1.4).
    case pinMismatch(expected: String, actual: String)
    /// The peer presented no certificate although one is required (the host must).
    case noPeerCertificate
    /// The TLS handshake failed locally; `alert` is what we sent (0 if none is known).
    case tlsHandshake(alert: UInt8, detail: String)
    /// The peer closed the connection (it sent CONNECTION_CLOSE).
    case peerClosed(QuicClose)
    /// No packet arrived for the idle timeout.
    case idleTimeout
    /// The handshake did not finish within the handshake timeout.
    case handshakeTimeout
    /// The call is not allowed in the connection's current state.
    case invalidState(String)
    /// A socket call failed with this errno.
    case socket(errno: Int32, call: String)

    public var description: String {
        switch self {
        case .ngtcp2(let code, let call):
            "\(call) failed: ngtcp2 error \(code) (\(String(cString: ngtcp2_strerror(code))))"
        case .gnutls(let code, let call):
            "\(call) failed: GnuTLS error \(code) (\(String(cString: gnutls_strerror(code))))"
        case .pinMismatch(let expected, let actual):
            "the host's certificate fingerprint \(actual) does not match the pinned \(expected); the host's identity changed or this is a different host"
        case .noPeerCertificate:
            "the peer presented no certificate"
        case .tlsHandshake(let alert, let detail):
            "the TLS handshake failed (alert \(alert)): \(detail)"
        case .peerClosed(let close):
            "the peer closed the connection: \(close)"
        case .idleTimeout:
            "the connection timed out (no packets for the idle timeout)"
        case .handshakeTimeout:
            "the QUIC handshake timed out"
        case .invalidState(let what):
            "not allowed now: \(what)"
        case .socket(let e, let call):
            "\(call) failed: \(String(cString: strerror(e))) (errno \(e))"
        }
    }
}
