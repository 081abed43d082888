import Glibc
internal import CPunktfunkLinux

/// A reusable set of receive slots for `recvmmsg`: one system call drains up to `count`
/// datagrams (data-plane.md §8.1: the host bursts an AU's shards back to back). Owns its buffers;
/// nothing is allocated per datagram.
///
/// Invariant: slot i's bytes live at `storage + i·slotBytes`; after `receive(from:)` returns n,
/// slots 0..<n hold valid datagrams until the next call.
public final class DatagramBatch {
    /// Largest datagram a slot holds: the media acceptance ceiling + 1, so anything longer shows
    /// up as truncated instead of silently cut.
    public static let defaultSlotBytes = 9217

    public let count: Int
    public let slotBytes: Int
    private let storage: UnsafeMutableRawPointer
    private let slots: UnsafeMutablePointer<pf_datagram>
    /// Datagrams the last call received.
    public private(set) var received = 0

    public init(count: Int = 32, slotBytes: Int = DatagramBatch.defaultSlotBytes) {
        precondition(count >= 1 && count <= 64, "recvmmsg batches are 1…64 here")
        self.count = count
        self.slotBytes = slotBytes
        storage = .allocate(byteCount: count * slotBytes, alignment: 64)
        slots = .allocate(capacity: count)
        slots.initialize(repeating: pf_datagram(), count: count)
        for i in 0..<count {
            slots[i].data = storage + i * slotBytes
            slots[i].capacity = slotBytes
        }
    }

    deinit {
        slots.deallocate()
        storage.deallocate()
    }

    /// Drains up to `count` queued datagrams from `socket` with one `recvmmsg`.
    /// - Returns: how many arrived (0 when nothing was queued).
    @discardableResult
    public func receive(from socket: UDPSocket) throws(QuicError) -> Int {
        while true {
            let n = pf_recv_batch(socket.fileDescriptor, slots, UInt32(count))
            if n >= 0 {
                received = Int(n)
                return received
            }
            if -n == EINTR { continue }
            received = 0
            throw .socket(errno: -n, call: "recvmmsg")
        }
    }

    /// Datagram `i` of the last `receive` (valid until the next call): its bytes, sender, and
    /// whether it was longer than a slot (such a datagram must be dropped, never parsed).
    public subscript(i: Int) -> (bytes: UnsafeRawBufferPointer, from: SocketAddress, truncated: Bool) {
        precondition(i >= 0 && i < received)
        let s = slots[i]
        return (UnsafeRawBufferPointer(start: s.data, count: s.length),
                SocketAddress(storage: s.address, length: s.address_length),
                s.truncated != 0)
    }
}
