/// What a connection reports to its owner; drained with `QuicConnection.pollEvent()`.
public enum QuicEvent: Equatable, Sendable {
    /// The TLS handshake finished (ALPN and peer certificate are known).
    case handshakeCompleted
    /// The peer opened a stream.
    case streamOpened(Int64)
    /// Bytes arrived on a stream, in order; `fin` marks the end of the peer's direction.
    case streamData(stream: Int64, bytes: [UInt8], fin: Bool)
    /// A stream is closed in both directions; `code` is the application error code if it was reset.
    case streamClosed(stream: Int64, code: UInt64?)
    /// A QUIC DATAGRAM frame arrived.
    case datagram([UInt8])
    /// The connection ended (see `QuicConnection.error` / `peerClose`).
    case closed
}
