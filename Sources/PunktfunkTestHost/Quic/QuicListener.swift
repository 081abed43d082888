internal import CGnuTLS
internal import CNgtcp2
internal import CNgtcp2CryptoGnuTLS
import PunktfunkSession

/// The server side's front door: decides what to do with a datagram from an address that has no
/// connection yet. Like the punktfunk host it answers every Initial from an unvalidated address with
/// a Retry (control-plane.md §1.1) and accepts the client once it returns a valid Retry token
/// (RFC 9000 §8.1.2). No sockets, no clock: the caller routes datagrams of known peers to their
/// `QuicConnection` and everything else here.
///
/// Owns only a random token secret (32 bytes, per listener, so tokens do not survive a restart).
public final class QuicListener {
    /// What to do with the datagram.
    public enum Outcome {
        /// Not a usable first Initial (or a bad token): ignore it.
        case drop
        /// Send these bytes (a Retry packet) back to the sender.
        case retry([UInt8])
        /// A new connection that has processed the datagram; drain its `pollTransmit`.
        case accepted(QuicConnection)
    }

    public let configuration: QuicConfiguration
    public let localAddress: SocketAddress
    /// Send Retry to unvalidated addresses (the host always does).
    public var requiresRetry: Bool
    /// How long a Retry token stays valid.
    public var retryTokenLifetime: UInt64 = 10_000_000_000

    private var secret = [UInt8](repeating: 0, count: 32)

    public init(configuration: QuicConfiguration, localAddress: SocketAddress, requiresRetry: Bool = true) {
        self.configuration = configuration
        self.localAddress = localAddress
        self.requiresRetry = requiresRetry
        _ = secret.withUnsafeMutableBytes { gnutls_rnd(GNUTLS_RND_RANDOM, $0.baseAddress, $0.count) }
    }

    /// Handles a datagram from `remote`, which has no connection yet.
    /// - Throws: `QuicError` only if a connection cannot be set up at all (e.g. no identity).
    public func handle(datagram: UnsafeRawBufferPointer, from remote: SocketAddress, now: UInt64) throws(QuicError) -> Outcome {
        guard let base = datagram.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return .drop }
        var hd = ngtcp2_pkt_hd()
        guard ngtcp2_accept(&hd, base, datagram.count) == 0 else { return .drop }
        let token = hd.token.len > 0 && hd.token.base != nil
            ? Array(UnsafeBufferPointer(start: hd.token.base, count: hd.token.len)) : []

        if token.first == UInt8(NGTCP2_CRYPTO_TOKEN_MAGIC_RETRY) {
            var originalDCID = ngtcp2_cid()
            let ok = remote.withSockAddr { addr, length in
                ngtcp2_crypto_verify_retry_token(&originalDCID, token, token.count, secret, secret.count, hd.version,
                                                 addr, length, &hd.dcid, retryTokenLifetime, now)
            }
            // A forged or stale token: drop (the client times out rather than being told why).
            guard ok == 0 else { return .drop }
            let connection = try QuicConnection.makeServer(header: hd, validated: (originalDCID, token),
                                                           datagram: datagram, from: remote, local: localAddress,
                                                           configuration: configuration, now: now)
            return .accepted(connection)
        }
        guard requiresRetry else {
            let connection = try QuicConnection.makeServer(header: hd, validated: nil, datagram: datagram,
                                                           from: remote, local: localAddress,
                                                           configuration: configuration, now: now)
            return .accepted(connection)
        }
        return retryPacket(for: hd, to: remote, now: now).map { .retry($0) } ?? .drop
    }

    /// Builds the Retry: new SCID, token binding (client address, original DCID, time).
    private func retryPacket(for header: ngtcp2_pkt_hd, to remote: SocketAddress, now: UInt64) -> [UInt8]? {
        var hd = header
        var retrySCID = ngtcp2_cid()
        retrySCID.datalen = 16
        withUnsafeMutableBytes(of: &retrySCID.data) { _ = gnutls_rnd(GNUTLS_RND_RANDOM, $0.baseAddress, 16) }
        var token = [UInt8](repeating: 0, count: 256)  // ≥ NGTCP2_CRYPTO_MAX_RETRY_TOKENLEN
        let tokenLength = remote.withSockAddr { addr, length in
            ngtcp2_crypto_generate_retry_token(&token, secret, secret.count, hd.version, addr, length,
                                               &retrySCID, &hd.dcid, now)
        }
        guard tokenLength > 0 else { return nil }
        var packet = [UInt8](repeating: 0, count: 1200)
        let n = packet.withUnsafeMutableBufferPointer { out in
            ngtcp2_crypto_write_retry(out.baseAddress, out.count, hd.version, &hd.scid, &retrySCID, &hd.dcid,
                                      token, tokenLength)
        }
        guard n > 0 else { return nil }
        return Array(packet.prefix(n))
    }
}
