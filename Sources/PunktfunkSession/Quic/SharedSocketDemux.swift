/// Splits datagrams arriving on the punktfunk/2 shared socket between raw media and QUIC
/// (data-plane.md §8.1, RFC 9443 §4): a first byte with both top bits clear is media, anything
/// else goes to the QUIC connection. This is only sound because neither side offers QUIC-bit
/// greasing (see `QuicConnection+TLS.swift`), so every QUIC packet keeps its fixed bit 0x40.
public enum SharedSocketDemux {
    public enum Route: Sendable, Equatable {
        /// A v2 media packet (tag `00rr ssss`), for the reassembler.
        case media
        /// A QUIC packet (long header 0b1…, short header 0b01…), for `QuicConnection.handle`.
        case quic
        /// Empty datagram: drop.
        case drop
    }

    /// Routes one datagram by its first byte.
    @inlinable
    public static func route(_ datagram: UnsafeRawBufferPointer) -> Route {
        guard let first = datagram.first else { return .drop }
        return route(firstByte: first)
    }

    @inlinable
    public static func route(firstByte: UInt8) -> Route {
        firstByte & 0xC0 == 0 ? .media : .quic
    }
}
