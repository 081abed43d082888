import PunktfunkWire

/// Why a punktfunk/2 handshake (control-plane.md §3.1–§3.5) did not produce a session.
///
/// `description` is one sentence a TV can show; for a host close it is the `CloseCode`
/// explanation (§3.5) followed by the host's reason phrase.
public enum HandshakeError: Error, Equatable, CustomStringConvertible {
    /// The peer closed the QUIC connection with an application code (§3.5) and reason phrase.
    case closedByPeer(code: CloseCode, reason: String)
    /// The connection ended without an application close (idle timeout, TLS/transport failure).
    case transport(QuicError)
    /// A bounded phase ran out: `phase` names it (`"reply"` = ClientHello→ServerHello,
    /// `"approval"` = Pending wait, `"ready"`, `"client hello"`).
    case timeout(phase: String)
    /// The control stream ended or was reset before the handshake finished (no typed close
    /// arrived within the 300 ms grace, §3.1).
    case controlStreamEnded(code: UInt64?)
    /// A frame could not be decoded (frame too long, malformed tagged body, …).
    case malformed(WireError)
    /// The peer sent something the sequence does not allow here.
    case unexpected(String)
    /// ServerHello named no media suite, or one this build does not know (§3.3 tag 3):
    /// the client refuses the session.
    case unsupportedSuite(UInt8?)
    /// Pairing (§6.2 step 4): the host's key confirmation did not match — the PIN was wrong (or
    /// someone is in the middle). The host consumed its window with this one guess.
    case wrongPIN
    /// Pairing: the host answered PairResult ok = false (the proof failed or could not be stored).
    case pairingRejected
    /// Pairing: the ceremony could not run (bad PIN format, malformed host message, …).
    case pairing(PairingError)

    /// The close code when the peer closed the connection, else nil.
    public var closeCode: CloseCode? {
        if case .closedByPeer(let code, _) = self { return code }
        return nil
    }

    public var description: String {
        switch self {
        case .closedByPeer(let code, let reason):
            let detail = reason.isEmpty ? "" : " (\(reason))"
            return "\(code.explanation)\(detail) [\(code)]"
        case .transport(let error):
            return Self.sentence(for: error)
        case .timeout(let phase):
            return "The host did not answer in time (\(phase))."
        case .controlStreamEnded(let code):
            return "The host ended the session stream" + (code.map { " (code 0x\(String($0, radix: 16)))" } ?? "") + "."
        case .malformed(let error):
            return "The host sent a message this client cannot read: \(error)."
        case .unexpected(let what):
            return "The host broke the protocol: \(what)."
        case .unsupportedSuite(let id):
            return "The host chose a media encryption this client does not support"
                + (id.map { " (suite \($0))" } ?? " (none)") + "."
        case .wrongPIN:
            return "Pairing failed: the PIN is wrong (or someone is in the middle). That used the host's one guess; "
                + "start pairing on the host again and enter the new PIN."
        case .pairingRejected:
            return "The host did not accept the pairing proof; start pairing on the host again."
        case .pairing(let error):
            return "Pairing failed: \(error)"
        }
    }

    /// One sentence for a QUIC/TLS failure (control-plane.md §1.4, §1.6).
    public static func sentence(for error: QuicError) -> String {
        switch error {
        case .pinMismatch(let expected, let actual):
            return "The host's certificate does not match the pinned fingerprint (expected \(expected), got \(actual)): "
                + "the host was reinstalled or this is a different machine; refusing to connect. Pair again if you trust it."
        case .noPeerCertificate:
            return "The host presented no certificate; refusing to connect."
        case .idleTimeout, .handshakeTimeout:
            return "The host did not answer; check that it is running and reachable on that port."
        case .tlsHandshake(let alert, _) where alert == 120:
            return "The host does not speak punktfunk/2 (no common protocol version); update the host or this device."
        case .peerClosed(let close) where close.tlsAlert == 120:
            return "The host does not speak punktfunk/2 (no common protocol version); update the host or this device."
        case .peerClosed(let close) where close.tlsAlert != nil:
            return "The host rejected the secure connection (TLS alert \(close.tlsAlert!))."
        case .tlsHandshake(let alert, let detail):
            return "The secure connection to the host failed (TLS alert \(alert)): \(detail)."
        case .socket(let errno, let call):
            return "The network is unusable (\(call): errno \(errno)); check the connection."
        default:
            return "The connection to the host failed: \(error)."
        }
    }
}

/// Close codes and limits the handshake machines use (control-plane.md §3.1, §3.5, §4.1).
public enum HandshakeLimits {
    /// §3.1 HANDSHAKE_TIMEOUT: ClientHello → ServerHello (and host: to Ready), ns.
    public static let negotiationNs: UInt64 = 10_000_000_000
    /// §3.4 PENDING_EVERY: the host re-sends Pending this often, ns.
    public static let pendingEveryNs: UInt64 = 10_000_000_000
    /// §3.4 PENDING_APPROVAL_WAIT: the host gives up approval after this, ns.
    public static let approvalWaitNs: UInt64 = 180_000_000_000
    /// §3.1: after a stream error, wait this long for the typed application close, ns.
    public static let closeGraceNs: UInt64 = 300_000_000
    /// §2.1 STOP_UNKNOWN_STREAM.
    public static let stopUnknownStream: UInt64 = 0x71
}
