/// What `handlePacket` did with a packet. Only `.buffered` keeps the payload; for the others the
/// caller may reuse the payload's storage at once.
public enum PacketVerdict: Sendable, Equatable {
    /// Stored for playout.
    case buffered
    /// Its sequence number is already buffered or was played.
    case duplicate
    /// Its playout time has passed (it was concealed or skipped), or it is older than the window.
    case late
}
