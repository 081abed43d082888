internal import CGnuTLS
package import CNgtcp2  // package: `makeServer` takes ngtcp2 header types (the test host's QuicListener)
internal import CNgtcp2CryptoGnuTLS
import Glibc

/// One QUIC connection (client or server) over ngtcp2 0.12 + GnuTLS, with no I/O and no clock:
/// the caller feeds datagrams and time in, and pulls packets, events and deadlines out (quinn-proto's
/// shape, STYLE.md §1–§2).
///
/// Ownership: the instance is the sole owner of the `ngtcp2_conn`, the `gnutls_session_t`, the
/// certificate credentials and the `ngtcp2_crypto_conn_ref` GnuTLS points at; `deinit` frees them in
/// the ngtcp2 examples' order (connection, session, credentials). Stream bytes handed to ngtcp2 stay
/// in `StreamSendBuffer` chunks until the peer acknowledges them (ngtcp2 does not copy them).
///
/// Method groups:
/// - input: `handle(datagram:from:now:)`, `handleTimeout(now:)`;
/// - getters: `state`, `error`, `peerClose`, `peerFingerprint`, `negotiatedALPN`,
///   `remoteAddress`, `maxDatagramPayload`, `exportKeyingMaterial`/`mediaExporter`;
/// - commands: `openBidirectionalStream()`, `openUnidirectionalStream()`, `write(stream:_:fin:)`,
///   `resetStream(_:applicationCode:)`, `sendDatagram(_:)`, `close(applicationCode:reason:)`;
/// - effects, drained in this order after every input or command: `pollTransmit(into:now:)` until
///   nil, then `pollEvent()` until nil, then `nextDeadline`.
///
/// Caller rules: `now` is CLOCK_MONOTONIC nanoseconds (`MonotonicClock.nowNs()`) and never goes backwards;
/// no method may be called from inside another (ngtcp2 forbids re-entry); one thread at a time.
public final class QuicConnection {
    public enum Role: Sendable { case client, server }

    /// Lifecycle. `closing`: we sent CONNECTION_CLOSE; `draining`: the peer did; both last until
    /// `nextDeadline` passes, then `closed`.
    public enum State: Sendable, Equatable { case handshaking, established, closing, draining, closed }

    public let role: Role
    public let configuration: QuicConfiguration
    public private(set) var state: State = .handshaking
    /// Why the connection ended or is ending, once it is.
    public private(set) var error: QuicError?
    /// The CONNECTION_CLOSE the peer sent, if it sent one.
    public private(set) var peerClose: QuicClose?
    /// SHA-256(DER) of the peer's leaf certificate, 64 lowercase hex; nil until seen (or if the peer
    /// sent none, as an anonymous client may).
    public private(set) var peerFingerprint: String?
    /// Where packets go: the address the client dialled, or the server's peer.
    public private(set) var remoteAddress: SocketAddress
    /// Datagrams `sendDatagram` accepted but `pollTransmit` had to drop (too large for the path or
    /// the peer, or the peer takes none).
    public private(set) var droppedDatagrams = 0
    public let localAddress: SocketAddress
    /// Some stream bytes written are not yet acknowledged by the peer.
    public var hasUnacknowledgedStreamData: Bool { sendBuffers.values.contains { !$0.isAcknowledged } }

    // MARK: owned C state

    /// Owned; nil only during init.
    private(set) var conn: OpaquePointer?
    /// Owned GnuTLS session.
    private var session: gnutls_session_t?
    /// Owned certificate credentials (may hold our identity).
    private var credentials: gnutls_certificate_credentials_t?
    /// Owned; GnuTLS's session ptr points here, `user_data` is unretained `self`.
    private let connRef: UnsafeMutablePointer<ngtcp2_crypto_conn_ref>
    /// Owned; where writev_* report the path of the packet they wrote (heap-allocated because the
    /// struct points into itself). `remoteAddress` follows it, so replies follow peer migration.
    private let pathStorage: UnsafeMutablePointer<ngtcp2_path_storage>
    private var writePath: UnsafeMutablePointer<ngtcp2_path> { pathStorage.pointer(to: \.path)! }

    // MARK: queues

    /// Pending events from index `eventHead` on (a queue without O(n) dequeues).
    private var events: [QuicEvent] = []
    private var eventHead = 0
    private var pendingDatagrams: [[UInt8]] = []
    /// Total bytes in `pendingDatagrams`.
    private var pendingDatagramBytes = 0
    private var sendBuffers: [Int64: StreamSendBuffer] = [:]
    /// Streams with unsent bytes or an unsent FIN, in first-write order.
    private var sendOrder: [Int64] = []
    private var pendingClose: (code: UInt64, reason: [UInt8])?
    /// Set by the verify callback when it rejects the certificate, so the handshake failure can say why.
    private var verifyFailure: QuicError?

    // MARK: creation

    /// A client connection to `remote`, sending from `local`. The first `pollTransmit` yields the
    /// Initial.
    /// - Precondition: `local` and `remote` are the same family.
    public convenience init(client configuration: QuicConfiguration, local: SocketAddress,
                            remote: SocketAddress, now: UInt64) throws(QuicError) {
        try self.init(role: .client, configuration: configuration, local: local, remote: remote)
        var dcid = ngtcp2_cid()
        var scid = ngtcp2_cid()
        QuicConnection.randomCID(&dcid, length: 18)
        QuicConnection.randomCID(&scid, length: 16)
        try createConnection(dcid: dcid, scid: scid, originalDCID: nil, retrySCID: nil, token: [],
                             version: 1, now: now)
    }

    /// Accepts a client's first datagram on a server endpoint without address validation (Retry
    /// is the test host's `QuicListener`, over `makeServer`).
    /// - Returns: a server connection that has already processed `datagram`, or nil if the datagram
    ///   is not an acceptable first Initial (drop it). A connection whose first datagram failed is
    ///   still returned: it carries `error` and its CONNECTION_CLOSE waits in `pollTransmit`.
    /// - Throws: `QuicError` if the connection cannot be set up (e.g. no server identity).
    public static func accept(datagram: UnsafeRawBufferPointer, from remote: SocketAddress,
                              local: SocketAddress, configuration: QuicConfiguration,
                              now: UInt64) throws(QuicError) -> QuicConnection? {
        var hd = ngtcp2_pkt_hd()
        let rc = ngtcp2_accept(&hd, datagram.baseAddress?.assumingMemoryBound(to: UInt8.self), datagram.count)
        guard rc == 0 else { return nil }
        return try makeServer(header: hd, validated: nil, datagram: datagram, from: remote, local: local,
                              configuration: configuration, now: now)
    }

    /// Creates the server side for a client Initial whose header is `header`. `validated` carries the
    /// original DCID and the token when the client came back with a valid Retry token.
    package static func makeServer(header hd: ngtcp2_pkt_hd, validated: (originalDCID: ngtcp2_cid, token: [UInt8])?,
                           datagram: UnsafeRawBufferPointer, from remote: SocketAddress, local: SocketAddress,
                           configuration: QuicConfiguration, now: UInt64) throws(QuicError) -> QuicConnection {
        guard configuration.identity != nil else {
            throw .invalidState("a server connection needs an identity")
        }
        let connection = try QuicConnection(role: .server, configuration: configuration, local: local, remote: remote)
        var scid = ngtcp2_cid()
        randomCID(&scid, length: 16)
        // The client's SCID becomes our DCID; its first DCID is the original DCID (RFC 9000 §7.3).
        // After a Retry, the DCID it now uses is the Retry's SCID and the original comes from the token.
        try connection.createConnection(dcid: hd.scid, scid: scid,
                                        originalDCID: validated?.originalDCID ?? hd.dcid,
                                        retrySCID: validated == nil ? nil : hd.dcid,
                                        token: validated?.token ?? [],
                                        version: hd.version, now: now)
        do {
            try connection.handle(datagram: datagram, from: remote, now: now)
        } catch {
            // Keep the connection: it now carries `error` and a CONNECTION_CLOSE in `pollTransmit`.
        }
        return connection
    }

    private init(role: Role, configuration: QuicConfiguration, local: SocketAddress,
                 remote: SocketAddress) throws(QuicError) {
        self.role = role
        self.configuration = configuration
        self.localAddress = local
        self.remoteAddress = remote
        pathStorage = .allocate(capacity: 1)
        pathStorage.initialize(to: ngtcp2_path_storage())
        ngtcp2_path_storage_zero(pathStorage)
        connRef = .allocate(capacity: 1)
        connRef.initialize(to: ngtcp2_crypto_conn_ref(get_conn: { ref in
            guard let ref, let me = ref.pointee.user_data else { return nil }
            return Unmanaged<QuicConnection>.fromOpaque(me).takeUnretainedValue().conn
        }, user_data: nil))
        connRef.pointee.user_data = Unmanaged.passUnretained(self).toOpaque()
        try setUpTLS()
    }

    deinit {
        // Order from ngtcp2's examples: connection, then TLS session, then credentials.
        if let conn { ngtcp2_conn_del(conn) }
        if let session { gnutls_deinit(session) }
        if let credentials { gnutls_certificate_free_credentials(credentials) }
        connRef.deinitialize(count: 1)
        connRef.deallocate()
        pathStorage.deinitialize(count: 1)
        pathStorage.deallocate()
        for buffer in sendBuffers.values { buffer.freeAll() }
    }

    /// TLS 1.3 only, QUIC's cipher suites, no middlebox compatibility mode (RFC 9001 §8.4).
    private static let priority =
        "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:"
        + "+AES-128-CCM:-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:+GROUP-SECP384R1:+GROUP-SECP521R1:"
        + "%DISABLE_TLS13_COMPAT_MODE"

    private func setUpTLS() throws(QuicError) {
        var rc = gnutls_certificate_allocate_credentials(&credentials)
        guard rc == 0 else { throw .gnutls(code: rc, call: "gnutls_certificate_allocate_credentials") }
        if configuration.allowMismatchedIdentityForTesting {
            gnutls_certificate_set_flags(credentials, UInt32(GNUTLS_CERTIFICATE_SKIP_KEY_CERT_MATCH.rawValue))
        }
        if let identity = configuration.identity {
            rc = QuicConnection.withDatum(identity.certificatePEM) { cert in
                QuicConnection.withDatum(identity.privateKeyPEM) { key in
                    gnutls_certificate_set_x509_key_mem2(credentials, cert, key, GNUTLS_X509_FMT_PEM, nil, 0)
                }
            }
            guard rc >= 0 else { throw .gnutls(code: rc, call: "gnutls_certificate_set_x509_key_mem2") }
        }
        let early = GNUTLS_ENABLE_EARLY_DATA.rawValue | GNUTLS_NO_END_OF_EARLY_DATA.rawValue
        let flags = role == .client
            ? UInt32(GNUTLS_CLIENT) | early | GNUTLS_FORCE_CLIENT_CERT.rawValue
            : UInt32(GNUTLS_SERVER) | early
        rc = gnutls_init(&session, flags)
        guard rc == 0, let session else { throw .gnutls(code: rc, call: "gnutls_init") }

        // The secret/read/alert hooks and the transport-parameters extension, as
        // ngtcp2_crypto_gnutls_configure_*_session would install them but without QUIC-bit greasing
        // (QuicConnection+TLS.swift).
        rc = QuicConnection.installQuicHooks(on: session, isClient: role == .client)
        guard rc == 0 else { throw .gnutls(code: rc, call: "gnutls_session_ext_register") }

        rc = gnutls_priority_set_direct(session, QuicConnection.priority, nil)
        guard rc == 0 else { throw .gnutls(code: rc, call: "gnutls_priority_set_direct") }
        gnutls_session_set_ptr(session, UnsafeMutableRawPointer(connRef))
        rc = gnutls_credentials_set(session, GNUTLS_CRD_CERTIFICATE, UnsafeMutableRawPointer(credentials))
        guard rc == 0 else { throw .gnutls(code: rc, call: "gnutls_credentials_set") }

        // ALPN: GnuTLS copies the names. MANDATORY aborts the handshake without a common protocol
        // (alert 120, control-plane.md §1.6).
        let names = configuration.alpn.map { Array($0.utf8) }
        rc = QuicConnection.withDatums(names) { datums in
            var alpnFlags = GNUTLS_ALPN_MANDATORY.rawValue
            if role == .server { alpnFlags |= GNUTLS_ALPN_SERVER_PRECEDENCE.rawValue }
            return gnutls_alpn_set_protocols(session, datums.baseAddress, UInt32(datums.count), alpnFlags)
        }
        guard rc == 0 else { throw .gnutls(code: rc, call: "gnutls_alpn_set_protocols") }

        if role == .client {
            let name = Array(configuration.serverName.utf8)
            rc = gnutls_server_name_set(session, GNUTLS_NAME_DNS, name, name.count)
            guard rc == 0 else { throw .gnutls(code: rc, call: "gnutls_server_name_set") }
        } else if configuration.requestClientCertificate {
            // Request but do not require; any certificate passes our verify function, GnuTLS still
            // checks its CertificateVerify signature (control-plane.md §1.5).
            gnutls_certificate_server_set_request(session, GNUTLS_CERT_REQUEST)
        }
        // Replaces chain/name/date verification by the fingerprint check (control-plane.md §1.4).
        gnutls_session_set_verify_function(session) { session in
            guard let session, let raw = gnutls_session_get_ptr(session),
                  let me = raw.assumingMemoryBound(to: ngtcp2_crypto_conn_ref.self).pointee.user_data
            else { return -1 }
            return Unmanaged<QuicConnection>.fromOpaque(me).takeUnretainedValue().verifyPeerCertificate(session)
        }
    }

    /// Called by GnuTLS after the peer's Certificate message. Returns 0 to continue, -1 to fail the
    /// handshake (GnuTLS then sends a certificate alert).
    private func verifyPeerCertificate(_ session: gnutls_session_t) -> Int32 {
        var count: UInt32 = 0
        guard let list = gnutls_certificate_get_peers(session, &count), count > 0, let data = list[0].data else {
            if role == .client {
                verifyFailure = .noPeerCertificate
                return -1
            }
            return 0  // anonymous client: allowed, it just has no device id
        }
        let fingerprint = CertificateFingerprint.sha256Hex(UnsafeBufferPointer(start: data, count: Int(list[0].size)))
        peerFingerprint = fingerprint
        if role == .client, case .pinned(let expected) = configuration.hostTrust {
            let want = CertificateFingerprint.normalize(expected) ?? expected
            if want != fingerprint {
                verifyFailure = .pinMismatch(expected: want, actual: fingerprint)
                return -1
            }
        }
        return 0
    }

    private func createConnection(dcid: ngtcp2_cid, scid: ngtcp2_cid, originalDCID: ngtcp2_cid?,
                                  retrySCID: ngtcp2_cid?, token: [UInt8],
                                  version: UInt32, now: UInt64) throws(QuicError) {
        var callbacks = ngtcp2_callbacks()
        if role == .client {
            callbacks.client_initial = ngtcp2_crypto_client_initial_cb
            callbacks.recv_retry = ngtcp2_crypto_recv_retry_cb
        } else {
            callbacks.recv_client_initial = ngtcp2_crypto_recv_client_initial_cb
        }
        callbacks.recv_crypto_data = ngtcp2_crypto_recv_crypto_data_cb
        callbacks.encrypt = ngtcp2_crypto_encrypt_cb
        callbacks.decrypt = ngtcp2_crypto_decrypt_cb
        callbacks.hp_mask = ngtcp2_crypto_hp_mask_cb
        callbacks.update_key = ngtcp2_crypto_update_key_cb
        callbacks.delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb
        callbacks.delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb
        callbacks.get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb
        callbacks.version_negotiation = ngtcp2_crypto_version_negotiation_cb
        callbacks.rand = { dest, length, _ in _ = gnutls_rnd(GNUTLS_RND_RANDOM, dest, length) }
        callbacks.get_new_connection_id = { _, cid, token, length, _ in
            guard let cid, let token else { return NGTCP2_ERR_CALLBACK_FAILURE }
            QuicConnection.randomCID(&cid.pointee, length: length)
            return gnutls_rnd(GNUTLS_RND_RANDOM, token, Int(NGTCP2_STATELESS_RESET_TOKENLEN)) == 0
                ? 0 : NGTCP2_ERR_CALLBACK_FAILURE
        }
        callbacks.handshake_completed = { _, user in
            QuicConnection.from(user).events.append(.handshakeCompleted)
            return 0
        }
        callbacks.stream_open = { _, stream, user in
            QuicConnection.from(user).events.append(.streamOpened(stream))
            return 0
        }
        callbacks.recv_stream_data = { conn, flags, stream, _, data, length, user, _ in
            let bytes = length > 0 ? Array(UnsafeBufferPointer(start: data, count: length)) : []
            QuicConnection.from(user).events.append(
                .streamData(stream: stream, bytes: bytes, fin: flags & NGTCP2_STREAM_DATA_FLAG_FIN != 0))
            // The bytes are consumed at once (copied into the event), so open the windows again.
            _ = ngtcp2_conn_extend_max_stream_offset(conn, stream, UInt64(length))
            ngtcp2_conn_extend_max_offset(conn, UInt64(length))
            return 0
        }
        callbacks.acked_stream_data_offset = { _, stream, offset, length, user, _ in
            QuicConnection.from(user).sendBuffers[stream]?.acknowledge(upTo: offset + length)
            return 0
        }
        callbacks.stream_close = { _, flags, stream, code, user, _ in
            let me = QuicConnection.from(user)
            if let buffer = me.sendBuffers.removeValue(forKey: stream) { buffer.freeAll() }
            me.sendOrder.removeAll { $0 == stream }
            let hasCode = flags & NGTCP2_STREAM_CLOSE_FLAG_APP_ERROR_CODE_SET != 0
            me.events.append(.streamClosed(stream: stream, code: hasCode ? code : nil))
            return 0
        }
        callbacks.recv_datagram = { _, _, data, length, user in
            let bytes = length > 0 ? Array(UnsafeBufferPointer(start: data, count: length)) : []
            QuicConnection.from(user).events.append(.datagram(bytes))
            return 0
        }

        var settings = ngtcp2_settings()
        ngtcp2_settings_default_versioned(QuicConnection.settingsVersion, &settings)
        settings.initial_ts = now
        settings.handshake_timeout = configuration.handshakeTimeout
        settings.max_tx_udp_payload_size = configuration.maxTransmitUDPPayloadSize

        var params = ngtcp2_transport_params()
        ngtcp2_transport_params_default_versioned(QuicConnection.transportParamsVersion, &params)
        params.initial_max_data = configuration.maxData
        params.initial_max_stream_data_bidi_local = configuration.maxStreamData
        params.initial_max_stream_data_bidi_remote = configuration.maxStreamData
        params.initial_max_stream_data_uni = configuration.maxStreamData
        params.initial_max_streams_bidi = configuration.maxStreamsBidi
        params.initial_max_streams_uni = configuration.maxStreamsUni
        params.max_idle_timeout = configuration.idleTimeout
        params.max_datagram_frame_size = configuration.maxDatagramFrameSize
        // RFC 9287 QUIC-bit greasing must stay off: the shared socket tells media from QUIC by the
        // fixed bit (data-plane.md §8.1). ngtcp2 0.12's default is already 0; say it anyway.
        params.grease_quic_bit = 0
        if let retrySCID {
            params.retry_scid = retrySCID
            params.retry_scid_present = 1
        }
        if let originalDCID {
            params.original_dcid = originalDCID
            params.stateless_reset_token_present = 1
            withUnsafeMutableBytes(of: &params.stateless_reset_token) {
                _ = gnutls_rnd(GNUTLS_RND_RANDOM, $0.baseAddress, $0.count)
            }
        }

        var dcid = dcid
        var scid = scid
        var newConn: OpaquePointer?
        var tokenCopy = token  // the server's settings.token; only read during ngtcp2_conn_server_new
        let user = Unmanaged.passUnretained(self).toOpaque()
        let rc = tokenCopy.withUnsafeMutableBufferPointer { tokenBytes in
            settings.token = ngtcp2_vec(base: tokenBytes.baseAddress, len: tokenBytes.count)
            return withPath { path in
            role == .client
                ? ngtcp2_conn_client_new_versioned(&newConn, &dcid, &scid, path, version,
                                                   QuicConnection.callbacksVersion, &callbacks,
                                                   QuicConnection.settingsVersion, &settings,
                                                   QuicConnection.transportParamsVersion, &params, nil, user)
                : ngtcp2_conn_server_new_versioned(&newConn, &dcid, &scid, path, version,
                                                   QuicConnection.callbacksVersion, &callbacks,
                                                   QuicConnection.settingsVersion, &settings,
                                                   QuicConnection.transportParamsVersion, &params, nil, user)
            }
        }
        guard rc == 0, let newConn else { throw .ngtcp2(code: rc, call: "ngtcp2_conn_\(role)_new") }
        conn = newConn  // ownership of the ngtcp2_conn moves into self here
        ngtcp2_conn_set_tls_native_handle(newConn, UnsafeMutableRawPointer(session))
        ngtcp2_conn_set_keep_alive_timeout(newConn, configuration.keepAliveInterval)
    }

    // MARK: input

    /// Feeds one received UDP datagram (a QUIC packet; media was demultiplexed before).
    /// - Throws: the error that ends the connection. A CONNECTION_CLOSE, if one is due, is then
    ///   waiting in `pollTransmit`.
    public func handle(datagram: UnsafeRawBufferPointer, from remote: SocketAddress, now: UInt64) throws(QuicError) {
        guard let conn, state != .closed, state != .draining else { return }
        if state == .closing {
            // RFC 9000 §10.2.1: answer packets in the closing period with the same CONNECTION_CLOSE.
            if pendingClosePacket == nil { pendingClosePacket = lastClosePacket }
            return
        }
        var info = ngtcp2_pkt_info()
        var remoteCopy = remote
        let rc = withPath(remote: &remoteCopy) { path in
            ngtcp2_conn_read_pkt_versioned(conn, path, QuicConnection.pktInfoVersion, &info,
                                           datagram.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                           datagram.count, now)
        }
        if rc == 0 {
            if state == .handshaking && ngtcp2_conn_get_handshake_completed(conn) != 0 {
                state = .established
            }
            return
        }
        switch rc {
        case NGTCP2_ERR_DRAINING:
            // The peer closed (RFC 9000 §10.2.2): record its reason, send nothing more.
            var ccerr = ngtcp2_connection_close_error()
            ngtcp2_conn_get_connection_close_error(conn, &ccerr)
            let reason = ccerr.reasonlen > 0 && ccerr.reason != nil
                ? String(decoding: UnsafeBufferPointer(start: ccerr.reason, count: ccerr.reasonlen), as: UTF8.self) : ""
            let close = QuicClose(isApplication: ccerr.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION,
                                  code: ccerr.error_code, reason: reason)
            peerClose = close
            finish(.draining, error: .peerClosed(close), now: now)
            throw .peerClosed(close)
        case NGTCP2_ERR_CLOSING:
            return  // we already closed; ngtcp2 discards
        case NGTCP2_ERR_DROP_CONN:
            finish(.closed, error: .ngtcp2(code: rc, call: "ngtcp2_conn_read_pkt"), now: now)
            throw .ngtcp2(code: rc, call: "ngtcp2_conn_read_pkt")
        case NGTCP2_ERR_CRYPTO:
            // TLS failed; send CONNECTION_CLOSE with the alert (0x100 + alert).
            let alert = ngtcp2_conn_get_tls_alert(conn)
            let failure = verifyFailure ?? .tlsHandshake(alert: alert, detail: "ngtcp2 reported a TLS error")
            var ccerr = ngtcp2_connection_close_error()
            ngtcp2_connection_close_error_set_transport_error_tls_alert(&ccerr, alert, nil, 0)
            writeCloseNow(&ccerr, now: now)
            finish(.closing, error: failure, now: now)
            throw failure
        default:
            // Everything else: one CONNECTION_CLOSE carrying the library error (ngtcp2.h's table).
            var ccerr = ngtcp2_connection_close_error()
            ngtcp2_connection_close_error_set_transport_error_liberr(&ccerr, rc, nil, 0)
            writeCloseNow(&ccerr, now: now)
            let failure = verifyFailure ?? .ngtcp2(code: rc, call: "ngtcp2_conn_read_pkt")
            finish(.closing, error: failure, now: now)
            throw failure
        }
    }

    /// Convenience over the raw-buffer form.
    public func handle(datagram: [UInt8], from remote: SocketAddress, now: UInt64) throws(QuicError) {
        try datagram.withUnsafeBytes { raw in
            Result { () throws(QuicError) in try handle(datagram: raw, from: remote, now: now) }
        }.get()
    }

    /// The earliest time `handleTimeout` must run (loss detection, ACK delay, keep-alive, idle,
    /// end of the closing/draining period); nil once closed.
    public var nextDeadline: UInt64? {
        guard let conn, state != .closed else { return nil }
        if state == .closing || state == .draining { return closingDeadline }
        let expiry = ngtcp2_conn_get_expiry(conn)
        return expiry == UInt64.max ? nil : expiry
    }

    /// Runs expired timers. Idle and handshake timeouts end the connection silently (no packet).
    public func handleTimeout(now: UInt64) throws(QuicError) {
        guard let conn, state != .closed else { return }
        if state == .closing || state == .draining {
            if let deadline = closingDeadline, now >= deadline { finish(.closed, error: error, now: now) }
            return
        }
        let rc = ngtcp2_conn_handle_expiry(conn, now)
        guard rc != 0 else { return }
        let failure: QuicError
        switch rc {
        case NGTCP2_ERR_IDLE_CLOSE: failure = .idleTimeout
        case NGTCP2_ERR_HANDSHAKE_TIMEOUT: failure = .handshakeTimeout
        default:
            failure = .ngtcp2(code: rc, call: "ngtcp2_conn_handle_expiry")
            var ccerr = ngtcp2_connection_close_error()
            ngtcp2_connection_close_error_set_transport_error_liberr(&ccerr, rc, nil, 0)
            writeCloseNow(&ccerr, now: now)
            finish(.closing, error: failure, now: now)
            throw failure
        }
        finish(.closed, error: failure, now: now)
        throw failure
    }

    // MARK: commands

    /// Opens a client- or server-initiated bidirectional stream.
    /// - Throws: `.ngtcp2(NGTCP2_ERR_STREAM_ID_BLOCKED)` before the peer's limits are known (the
    ///   handshake) or when its limit is used up.
    public func openBidirectionalStream() throws(QuicError) -> Int64 {
        guard let conn, state == .established || state == .handshaking else {
            throw .invalidState("opening a stream on a \(state) connection")
        }
        var id: Int64 = -1
        let rc = ngtcp2_conn_open_bidi_stream(conn, &id, nil)
        guard rc == 0 else { throw .ngtcp2(code: rc, call: "ngtcp2_conn_open_bidi_stream") }
        return id
    }

    /// Opens a unidirectional stream (ours to send on).
    public func openUnidirectionalStream() throws(QuicError) -> Int64 {
        guard let conn, state == .established || state == .handshaking else {
            throw .invalidState("opening a stream on a \(state) connection")
        }
        var id: Int64 = -1
        let rc = ngtcp2_conn_open_uni_stream(conn, &id, nil)
        guard rc == 0 else { throw .ngtcp2(code: rc, call: "ngtcp2_conn_open_uni_stream") }
        return id
    }

    /// Abandons both directions of `stream` with an application code (RESET_STREAM +
    /// STOP_SENDING), e.g. `STOP_UNKNOWN_STREAM` 0x71 for an unknown stream type
    /// (control-plane.md §2.1). Unsent bytes are dropped; the frames go out with `pollTransmit`.
    public func resetStream(_ stream: Int64, applicationCode: UInt64) throws(QuicError) {
        guard let conn else { return }
        let rc = ngtcp2_conn_shutdown_stream(conn, stream, applicationCode)
        guard rc == 0 else { throw .ngtcp2(code: rc, call: "ngtcp2_conn_shutdown_stream") }
        sendOrder.removeAll { $0 == stream }
    }

    /// Queues `bytes` (copied) on `stream`; `fin` ends our direction after them. Sent by
    /// `pollTransmit`, kept until acknowledged.
    public func write(stream: Int64, _ bytes: some Collection<UInt8>, fin: Bool = false) throws(QuicError) {
        guard state == .established || state == .handshaking else {
            throw .invalidState("writing to a stream on a \(state) connection")
        }
        let buffer: StreamSendBuffer
        if let existing = sendBuffers[stream] {
            buffer = existing
        } else {
            buffer = StreamSendBuffer()
            sendBuffers[stream] = buffer
        }
        guard !buffer.finQueued else { throw .invalidState("writing after FIN on stream \(stream)") }
        buffer.append(bytes)
        if fin { buffer.finQueued = true }
        if !sendOrder.contains(stream) { sendOrder.append(stream) }
    }

    /// Queues one QUIC DATAGRAM (copied). Unreliable: dropped if lost; too-large datagrams are
    /// dropped by `pollTransmit`.
    public func sendDatagram(_ bytes: some Collection<UInt8>) throws(QuicError) {
        guard state == .established || state == .handshaking else {
            throw .invalidState("sending a datagram on a \(state) connection")
        }
        pendingDatagrams.append(Array(bytes))
        pendingDatagramBytes += pendingDatagrams.last!.count
        // control-plane.md §1.1: a small send buffer where the newest wins; evict the oldest.
        while pendingDatagramBytes > configuration.datagramSendBufferBytes && pendingDatagrams.count > 1 {
            pendingDatagramBytes -= pendingDatagrams.removeFirst().count
            droppedDatagrams += 1
        }
    }

    /// The largest DATAGRAM payload that can go out now: the peer's max_datagram_frame_size less
    /// the frame header, and one packet on the current path less the worst-case short header
    /// (1 + 20-byte CID + 4-byte packet number), AEAD tag (16) and frame header (1 + 2). 0 before the
    /// peer's transport parameters arrive or if it does not take DATAGRAM frames (RFC 9221 §3).
    public var maxDatagramPayload: Int {
        guard let conn, let remote = ngtcp2_conn_get_remote_transport_params(conn),
              remote.pointee.max_datagram_frame_size > 0 else { return 0 }
        let frameLimit = Int(min(remote.pointee.max_datagram_frame_size, 65_535)) - 3
        let pathLimit = Int(ngtcp2_conn_get_path_max_tx_udp_payload_size(conn)) - 44
        return max(0, min(frameLimit, pathLimit))
    }

    /// Ends the connection with an application error code (e.g. 0x51 deliberate quit); the next
    /// `pollTransmit` yields the CONNECTION_CLOSE (RFC 9000 §10.2).
    public func close(applicationCode: UInt64, reason: String = "") {
        guard state == .handshaking || state == .established else { return }
        pendingClose = (applicationCode, Array(reason.utf8))
    }

    // MARK: effects

    /// Writes the next packet into `buffer` (at least 1452 bytes; 64 KiB is typical).
    /// - Returns: its length, to be sent to `remoteAddress` as read right after this call (it follows
    ///   path migration), or nil when there is nothing to send now.
    /// - Throws: a fatal ngtcp2 error; the connection is then closing and the next call yields its
    ///   CONNECTION_CLOSE.
    public func pollTransmit(into buffer: UnsafeMutableRawBufferPointer, now: UInt64) throws(QuicError) -> Int? {
        guard let conn, let out = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        if let pending = pendingClose {
            pendingClose = nil
            var ccerr = ngtcp2_connection_close_error()
            return pending.reason.withUnsafeBufferPointer { reason -> Int? in
                ngtcp2_connection_close_error_set_application_error(
                    &ccerr, pending.code, reason.baseAddress, reason.count)
                let n = ngtcp2_conn_write_connection_close_versioned(conn, nil, QuicConnection.pktInfoVersion,
                                                                     nil, out, buffer.count, &ccerr, now)
                finish(.closing, error: error, now: now)
                guard n > 0 else { return nil }
                lastClosePacket = Array(UnsafeBufferPointer(start: out, count: n))
                return n
            }
        }
        if let closePacket = pendingClosePacket {
            pendingClosePacket = nil
            let n = min(closePacket.count, buffer.count)
            closePacket.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(n))) }
            return n
        }
        guard state == .handshaking || state == .established else { return nil }

        // 1. DATAGRAM frames before stream data: they carry input and feedback. A datagram that
        // can never fit would make writev_datagram return 0 forever and block everything behind it,
        // so those are dropped up front (DATAGRAM is unreliable anyway).
        let datagramLimit = maxDatagramPayload
        while let datagram = pendingDatagrams.first {
            if datagramLimit > 0 && datagram.count > datagramLimit {
                pendingDatagramBytes -= pendingDatagrams.removeFirst().count
                droppedDatagrams += 1
                continue
            }
            var accepted: Int32 = 0
            let n = datagram.withUnsafeBytes { raw -> Int in
                var vec = ngtcp2_vec(base: UnsafeMutablePointer(mutating: raw.baseAddress?.assumingMemoryBound(to: UInt8.self)),
                                     len: raw.count)
                return ngtcp2_conn_writev_datagram_versioned(conn, writePath, QuicConnection.pktInfoVersion, nil, out,
                                                             buffer.count, &accepted, 0, 0, &vec, 1, now)
            }
            if n < 0 {
                if n == Int(NGTCP2_ERR_INVALID_ARGUMENT) || n == Int(NGTCP2_ERR_INVALID_STATE) {
                    pendingDatagramBytes -= pendingDatagrams.removeFirst().count  // too large, or no DATAGRAM support
                    droppedDatagrams += 1
                    continue
                }
                throw fatalWrite(Int32(n), call: "ngtcp2_conn_writev_datagram", now: now)
            }
            if accepted != 0 { pendingDatagramBytes -= pendingDatagrams.removeFirst().count }
            if n == 0 { return nil }  // congestion- or pacing-limited
            followWritePath()
            return n
        }

        // 2. Stream data, stream by stream.
        var index = 0
        while index < sendOrder.count {
            let stream = sendOrder[index]
            guard let sendBuffer = sendBuffers[stream] else {
                sendOrder.remove(at: index)
                continue
            }
            if !sendBuffer.hasUnsent {
                sendOrder.remove(at: index)
                continue
            }
            var consumed: Int = -1
            let fin = sendBuffer.finQueued
            let n = sendBuffer.withUnsentVectors { vectors, count, isAll -> Int in
                let flags: UInt32 = (fin && isAll) ? NGTCP2_WRITE_STREAM_FLAG_FIN : 0
                return ngtcp2_conn_writev_stream_versioned(conn, writePath, QuicConnection.pktInfoVersion, nil, out,
                                                           buffer.count, &consumed, flags, stream, vectors, count, now)
            }
            if n < 0 {
                switch Int32(n) {
                case NGTCP2_ERR_STREAM_DATA_BLOCKED:
                    index += 1  // flow control; try the next stream
                    continue
                case NGTCP2_ERR_STREAM_SHUT_WR, NGTCP2_ERR_STREAM_NOT_FOUND:
                    sendBuffers.removeValue(forKey: stream)?.freeAll()
                    sendOrder.remove(at: index)
                    continue
                default:
                    throw fatalWrite(Int32(n), call: "ngtcp2_conn_writev_stream", now: now)
                }
            }
            if consumed >= 0 { sendBuffer.markSent(consumed, finSent: fin && sendBuffer.unsentCount == consumed) }
            if n == 0 { return nil }
            followWritePath()
            return n
        }

        // 3. Handshake, ACK, PING, flow-control and close frames.
        var consumed: Int = -1
        let n = ngtcp2_conn_writev_stream_versioned(conn, writePath, QuicConnection.pktInfoVersion, nil, out,
                                                    buffer.count, &consumed, 0, -1, nil, 0, now)
        if n < 0 { throw fatalWrite(Int32(n), call: "ngtcp2_conn_write_pkt", now: now) }
        if state == .handshaking && ngtcp2_conn_get_handshake_completed(conn) != 0 { state = .established }
        guard n > 0 else { return nil }
        followWritePath()
        return n
    }

    /// Convenience: writes the next packet into `buffer` (resized to fit).
    public func pollTransmit(into buffer: inout [UInt8], now: UInt64) throws(QuicError) -> Int? {
        if buffer.count < 1452 { buffer = [UInt8](repeating: 0, count: 65_536) }
        return try buffer.withUnsafeMutableBytes { raw in
            Result { () throws(QuicError) -> Int? in try pollTransmit(into: raw, now: now) }
        }.get()
    }

    /// The next event, or nil.
    public func pollEvent() -> QuicEvent? {
        guard eventHead < events.count else { return nil }
        let event = events[eventHead]
        eventHead += 1
        if eventHead == events.count {
            events.removeAll(keepingCapacity: true)
            eventHead = 0
        }
        return event
    }

    // MARK: getters

    /// The negotiated ALPN protocol (`pkf2`), once the handshake has progressed far enough.
    public var negotiatedALPN: String? {
        guard let session else { return nil }
        var datum = gnutls_datum_t()
        guard gnutls_alpn_get_selected_protocol(session, &datum) == 0, let data = datum.data else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(datum.size)), as: UTF8.self)
    }

    /// RFC 8446 §7.5 exporter of the connection's TLS session (data-plane.md §8.4: label
    /// `EXPORTER-punktfunk/2 media`, context = 16-byte session id, 32 bytes).
    /// - Throws: `.invalidState` before the handshake completes, `.gnutls` if GnuTLS refuses.
    public func exportKeyingMaterial(label: String, context: [UInt8], length: Int = 32) throws(QuicError) -> [UInt8] {
        guard let session, let conn, ngtcp2_conn_get_handshake_completed(conn) != 0 else {
            throw .invalidState("the TLS exporter before the handshake completed")
        }
        var out = [UInt8](repeating: 0, count: length)
        let labelBytes = Array(label.utf8)
        let rc = labelBytes.withUnsafeBufferPointer { l in
            context.withUnsafeBufferPointer { c in
                out.withUnsafeMutableBufferPointer { o in
                    gnutls_prf_rfc5705(session, l.count, UnsafeRawPointer(l.baseAddress!).assumingMemoryBound(to: CChar.self),
                                       c.count, c.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                                       o.count, UnsafeMutableRawPointer(o.baseAddress!).assumingMemoryBound(to: CChar.self))
                }
            }
        }
        guard rc == 0 else { throw .gnutls(code: rc, call: "gnutls_prf_rfc5705") }
        return out
    }

    /// The punktfunk/2 media exporter: label `EXPORTER-punktfunk/2 media`, context = the 16-byte
    /// session id from ServerHello, 32 bytes (data-plane.md §8.4 step 1).
    /// - Precondition: `sessionID.count == 16`.
    public func mediaExporter(sessionID: [UInt8]) throws(QuicError) -> [UInt8] {
        precondition(sessionID.count == 16, "the punktfunk/2 session id is 16 bytes")
        return try exportKeyingMaterial(label: "EXPORTER-punktfunk/2 media", context: sessionID, length: 32)
    }

    /// The peer's idle timeout and DATAGRAM limit as it advertised them (tests check the 8 s /
    /// 65535 defaults crossed the wire). nil before they arrive.
    var peerTransportLimits: (idleTimeout: UInt64, maxDatagramFrameSize: UInt64)? {
        guard let conn, let remote = ngtcp2_conn_get_remote_transport_params(conn) else { return nil }
        return (remote.pointee.max_idle_timeout, remote.pointee.max_datagram_frame_size)
    }

    /// Whether the given side's transport parameters offer RFC 9287 QUIC-bit greasing (must be
    /// false for ours, data-plane.md §8.1). nil if not known yet.
    var greasesQuicBit: (local: Bool, remote: Bool?)? {
        guard let conn else { return nil }
        guard let local = ngtcp2_conn_get_local_transport_params(conn) else { return nil }
        let remote = ngtcp2_conn_get_remote_transport_params(conn).map { $0.pointee.grease_quic_bit != 0 }
        return (local.pointee.grease_quic_bit != 0, remote)
    }

    // MARK: private

    /// A CONNECTION_CLOSE written by `writeCloseNow`, handed out by the next `pollTransmit`.
    private var pendingClosePacket: [UInt8]?
    /// The CONNECTION_CLOSE we sent, repeated when the peer keeps sending in the closing period.
    private var lastClosePacket: [UInt8]?
    /// End of the closing or draining period (3 × PTO, RFC 9000 §10.2).
    private var closingDeadline: UInt64?

    /// Points `remoteAddress` at the path ngtcp2 chose for the packet it just wrote (path
    /// validation and migration can change it, RFC 9000 §9).
    private func followWritePath() {
        let remote = pathStorage.pointee.path.remote
        guard let addr = remote.addr, remote.addrlen > 0,
              Int(remote.addrlen) <= MemoryLayout<sockaddr_storage>.size else { return }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: addr, count: Int(remote.addrlen))) }
        let address = SocketAddress(storage: storage, length: remote.addrlen)
        if address != remoteAddress { remoteAddress = address }
    }

    private func finish(_ newState: State, error newError: QuicError?, now: UInt64) {
        let wasOpen = state == .handshaking || state == .established
        if error == nil { error = newError }
        if (newState == .closing || newState == .draining), closingDeadline == nil, let conn {
            closingDeadline = now &+ 3 &* ngtcp2_conn_get_pto(conn)
        }
        state = newState
        if wasOpen { events.append(.closed) }
    }

    /// Writes a CONNECTION_CLOSE with `ccerr` into `pendingClosePacket` (if the state allows one).
    private func writeCloseNow(_ ccerr: inout ngtcp2_connection_close_error, now: UInt64) {
        guard let conn else { return }
        var packet = [UInt8](repeating: 0, count: 1452)
        let n = packet.withUnsafeMutableBufferPointer { p in
            ngtcp2_conn_write_connection_close_versioned(conn, nil, QuicConnection.pktInfoVersion, nil,
                                                         p.baseAddress, p.count, &ccerr, now)
        }
        if n > 0 {
            pendingClosePacket = Array(packet.prefix(n))
            lastClosePacket = pendingClosePacket
        }
    }

    /// A fatal error from a write call: queue a CONNECTION_CLOSE and enter the closing state.
    private func fatalWrite(_ rc: Int32, call: String, now: UInt64) -> QuicError {
        let failure = QuicError.ngtcp2(code: rc, call: call)
        var ccerr = ngtcp2_connection_close_error()
        ngtcp2_connection_close_error_set_transport_error_liberr(&ccerr, rc, nil, 0)
        writeCloseNow(&ccerr, now: now)
        finish(.closing, error: failure, now: now)
        return failure
    }

    private func withPath<R>(remote: inout SocketAddress, _ body: (UnsafePointer<ngtcp2_path>) -> R) -> R {
        var local = localAddress.storage
        let localLength = localAddress.length
        let remoteLength = remote.length
        return withUnsafeMutablePointer(to: &local) { l in
            withUnsafeMutablePointer(to: &remote.storage) { r in
                l.withMemoryRebound(to: sockaddr.self, capacity: 1) { lp in
                    r.withMemoryRebound(to: sockaddr.self, capacity: 1) { rp in
                        var path = ngtcp2_path(local: ngtcp2_addr(addr: lp, addrlen: localLength),
                                               remote: ngtcp2_addr(addr: rp, addrlen: remoteLength),
                                               user_data: nil)
                        return body(&path)
                    }
                }
            }
        }
    }

    private func withPath<R>(_ body: (UnsafePointer<ngtcp2_path>) -> R) -> R {
        var remote = remoteAddress
        return withPath(remote: &remote, body)
    }

    private static func from(_ user: UnsafeMutableRawPointer?) -> QuicConnection {
        Unmanaged<QuicConnection>.fromOpaque(user!).takeUnretainedValue()
    }

    private static func randomCID(_ cid: inout ngtcp2_cid, length: Int) {
        cid.datalen = length
        withUnsafeMutableBytes(of: &cid.data) { _ = gnutls_rnd(GNUTLS_RND_RANDOM, $0.baseAddress, length) }
    }

    private static func withDatum<R>(_ text: String, _ body: (UnsafePointer<gnutls_datum_t>) -> R) -> R {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBufferPointer { p in
            var datum = gnutls_datum_t(data: p.baseAddress, size: UInt32(p.count))
            return body(&datum)
        }
    }

    /// Calls `body` with datums over one contiguous copy of `items`, valid only during the call.
    private static func withDatums<R>(_ items: [[UInt8]], _ body: (UnsafeBufferPointer<gnutls_datum_t>) -> R) -> R {
        var joined = items.flatMap { $0 }
        return joined.withUnsafeMutableBufferPointer { all in
            var datums: [gnutls_datum_t] = []
            var offset = 0
            for item in items {
                datums.append(gnutls_datum_t(data: all.baseAddress.map { $0 + offset }, size: UInt32(item.count)))
                offset += item.count
            }
            return datums.withUnsafeBufferPointer { body($0) }
        }
    }

    // 0.12's function-like macros (ngtcp2_conn_client_new, …) are not visible to Swift; these are
    // the struct versions those macros pass.
    private static let callbacksVersion: Int32 = 1  // NGTCP2_CALLBACKS_VERSION_V1
    private static let settingsVersion: Int32 = 1  // NGTCP2_SETTINGS_VERSION_V1
    private static let transportParamsVersion: Int32 = 1  // NGTCP2_TRANSPORT_PARAMS_VERSION_V1
    private static let pktInfoVersion: Int32 = 1  // NGTCP2_PKT_INFO_VERSION_V1
}
