internal import CGnuTLS
internal import CNgtcp2
internal import CNgtcp2CryptoGnuTLS

/// The GnuTLS ↔ ngtcp2 glue that `ngtcp2_crypto_gnutls_configure_{client,server}_session` would
/// install, written out so that the QUIC transport-parameters extension can be encoded by us.
///
/// Why: ngtcp2 0.12 *always* advertises `grease_quic_bit` (RFC 9287) in its local transport
/// parameters, whatever `ngtcp2_transport_params.grease_quic_bit` says (ngtcp2.h: "the local
/// endpoint always enables greasing QUIC bit regardless of this field value"). A punktfunk/2 client
/// must not offer it, or the host may clear the fixed bit and its QUIC packets would be taken for
/// media on the shared socket (data-plane.md §8.1). So `sendTransportParameters` encodes a copy of
/// the local parameters with the flag cleared. Delete this file once the library honours the field
/// (re-read the `grease_quic_bit` comment in ngtcp2.h after an upgrade) and go back to the helper.
///
/// Everything else matches the library helper: secrets → `ngtcp2_crypto_derive_and_install_*_key`,
/// handshake bytes → `ngtcp2_conn_submit_crypto_data`, received alerts → `ngtcp2_conn_set_tls_alert`,
/// peer parameters → `ngtcp2_conn_decode_remote_transport_params`.
extension QuicConnection {
    /// Installs the hooks on `session`. Requires `gnutls_session_set_ptr(session, connRef)`.
    static func installQuicHooks(on session: gnutls_session_t, isClient: Bool) -> Int32 {
        gnutls_handshake_set_secret_function(session) { session, level, rxSecret, txSecret, length in
            guard let conn = QuicConnection.ngtcp2Connection(of: session) else { return -1 }
            let ngLevel = ngtcp2_crypto_gnutls_from_gnutls_record_encryption_level(level)
            if let rxSecret,
               ngtcp2_crypto_derive_and_install_rx_key(conn, nil, nil, nil, ngLevel,
                                                       rxSecret.assumingMemoryBound(to: UInt8.self), length) != 0 {
                return -1
            }
            if let txSecret,
               ngtcp2_crypto_derive_and_install_tx_key(conn, nil, nil, nil, ngLevel,
                                                       txSecret.assumingMemoryBound(to: UInt8.self), length) != 0 {
                return -1
            }
            return 0
        }
        gnutls_handshake_set_read_function(session) { session, level, type, data, length in
            if type == GNUTLS_HANDSHAKE_CHANGE_CIPHER_SPEC { return 0 }  // not used by QUIC
            guard let conn = QuicConnection.ngtcp2Connection(of: session) else { return -1 }
            let rc = ngtcp2_conn_submit_crypto_data(conn, ngtcp2_crypto_gnutls_from_gnutls_record_encryption_level(level),
                                                    data?.assumingMemoryBound(to: UInt8.self), length)
            return rc == 0 ? 0 : -1
        }
        gnutls_alert_set_read_function(session) { session, _, _, description in
            if let conn = QuicConnection.ngtcp2Connection(of: session) {
                ngtcp2_conn_set_tls_alert(conn, UInt8(truncatingIfNeeded: description.rawValue))
            }
            return 0
        }
        let receive: gnutls_ext_recv_func = { session, data, length in
            guard let conn = QuicConnection.ngtcp2Connection(of: session) else { return -1 }
            return ngtcp2_conn_decode_remote_transport_params(conn, data, length) == 0 ? 0 : -1
        }
        let sendClient: gnutls_ext_send_func = { session, buffer in
            QuicConnection.sendTransportParameters(session, buffer, type: NGTCP2_TRANSPORT_PARAMS_TYPE_CLIENT_HELLO)
        }
        let sendServer: gnutls_ext_send_func = { session, buffer in
            QuicConnection.sendTransportParameters(session, buffer, type: NGTCP2_TRANSPORT_PARAMS_TYPE_ENCRYPTED_EXTENSIONS)
        }
        let flags = GNUTLS_EXT_FLAG_TLS.rawValue | GNUTLS_EXT_FLAG_CLIENT_HELLO.rawValue | GNUTLS_EXT_FLAG_EE.rawValue
        return gnutls_session_ext_register(session, "QUIC Transport Parameters",
                                           Int32(NGTCP2_TLSEXT_QUIC_TRANSPORT_PARAMETERS_V1), GNUTLS_EXT_TLS,
                                           receive, isClient ? sendClient : sendServer, nil, nil, nil, flags)
    }

    /// Encodes our transport parameters without `grease_quic_bit` into the TLS extension.
    private static func sendTransportParameters(_ session: gnutls_session_t?, _ buffer: gnutls_buffer_t?,
                                                type: ngtcp2_transport_params_type) -> Int32 {
        guard let conn = ngtcp2Connection(of: session),
              let local = ngtcp2_conn_get_local_transport_params(conn) else { return -1 }
        var params = local.pointee
        params.grease_quic_bit = 0  // data-plane.md §8.1: never offer QUIC-bit greasing
        var encoded = [UInt8](repeating: 0, count: 512)
        let n = encoded.withUnsafeMutableBufferPointer {
            ngtcp2_encode_transport_params_versioned($0.baseAddress, $0.count, type, 1 /* V1 */, &params)
        }
        guard n > 0 else { return -1 }
        return gnutls_buffer_append_data(buffer, encoded, n) == 0 ? 0 : -1
    }

    /// The ngtcp2_conn behind a GnuTLS session (via the `ngtcp2_crypto_conn_ref` set as its ptr).
    static func ngtcp2Connection(of session: gnutls_session_t?) -> OpaquePointer? {
        guard let session, let raw = gnutls_session_get_ptr(session) else { return nil }
        let ref = raw.assumingMemoryBound(to: ngtcp2_crypto_conn_ref.self)
        return ref.pointee.get_conn(ref)
    }
}
