/// How a client decides whether to trust the host's leaf certificate (control-plane.md §1.4, §6.6).
public enum HostTrust: Sendable, Equatable {
    /// Accept only a leaf whose SHA-256(DER) equals this 64-hex fingerprint.
    case pinned(String)
    /// Accept any leaf and record its fingerprint (`QuicConnection.peerFingerprint`) for the caller
    /// to persist.
    case trustOnFirstUse
}

/// Settings for one QUIC connection, client or server. Defaults are the punktfunk/2 endpoint's
/// (control-plane.md §1.1, data-plane.md §8.1). Durations are nanoseconds.
public struct QuicConfiguration: Sendable {
    /// ALPN protocols. A client offers them in this order; a server accepts them, preferring its
    /// own order. Extensible: `pkf1` can be appended later.
    public var alpn: [String] = ["pkf2"]
    /// SNI the client sends. Never verified (control-plane.md §1.1).
    public var serverName: String = "punktfunk"
    /// Our certificate and key. Required for a server; optional for a client (mutual TLS is
    /// optional on the host, control-plane.md §1.5).
    public var identity: TLSIdentity?
    /// Client only: how the host's certificate is checked.
    public var hostTrust: HostTrust = .trustOnFirstUse
    /// Server only: send a CertificateRequest (client auth requested, not required).
    public var requestClientCertificate = true
    /// QUIC max_idle_timeout transport parameter (8 s).
    public var idleTimeout: UInt64 = 8_000_000_000
    /// PING interval when otherwise idle (min(idle/2, 4 s) = 4 s).
    public var keepAliveInterval: UInt64 = 4_000_000_000
    /// Give up on a handshake that has not finished after this long.
    public var handshakeTimeout: UInt64 = 10_000_000_000
    /// max_datagram_frame_size transport parameter (RFC 9221); quinn advertises 65535.
    public var maxDatagramFrameSize: UInt64 = 65_535
    /// Queued-but-unsent DATAGRAM bytes kept; older datagrams are dropped beyond it (quinn's
    /// `datagram_send_buffer_size` = 4 KiB on the host, control-plane.md §1.1).
    public var datagramSendBufferBytes = 4096
    /// Largest UDP payload we send (ngtcp2 `max_tx_udp_payload_size`; PMTU discovery stops here).
    /// 1452 fits a 1500-byte IPv6 path; the host uses 1472 on IPv4 (control-plane.md §1.1).
    public var maxTransmitUDPPayloadSize = 1452
    /// Connection-level receive window.
    public var maxData: UInt64 = 16 << 20
    /// Per-stream receive window.
    public var maxStreamData: UInt64 = 4 << 20
    /// Peer-initiated stream limits (quinn's default: 100 each).
    public var maxStreamsBidi: UInt64 = 100
    public var maxStreamsUni: UInt64 = 100

    /// Test hook: let GnuTLS load an identity whose key does not match its certificate
    /// (GNUTLS_CERTIFICATE_SKIP_KEY_CERT_MATCH), to test that peers check CertificateVerify.
    var allowMismatchedIdentityForTesting = false

    public init() {}
}
