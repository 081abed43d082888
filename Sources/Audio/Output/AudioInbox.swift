import Synchronization

/// The hand-over of received audio datagrams from the session's pump thread to the sink thread:
/// a single-producer single-consumer ring of fixed-size slots, allocated once. `push` copies one
/// packet's bytes into the next free slot (no allocation, no lock); `pop` hands the oldest to the
/// consumer in place. A full ring drops the new packet (counted) — the jitter buffer conceals it.
///
/// Invariants: exactly one thread pushes and one pops; `head` (next to pop) and `tail` (next to
/// push) only grow; slot `i % capacity` belongs to the producer while `tail ≤ i < head + capacity`
/// and it is unpublished, to the consumer once published (`tail` stored with release ordering).
public final class AudioInbox: @unchecked Sendable {
    /// What a slot holds: one audio datagram's fields. For RED the bytes are primary ‖ previous.
    public struct Entry {
        public var seq: UInt32
        public var ptsNs: UInt64
        /// CLOCK_MONOTONIC at receipt, ns.
        public var arrivalNs: UInt64
        public var primaryLength: Int
        /// RED's copy of packet seq − 1; 0 otherwise.
        public var previousLength: Int
    }

    public let capacity: Int
    /// Largest payload (primary + previous) a slot holds, bytes; longer packets are dropped as oversize.
    public let slotBytes: Int
    private let head = Atomic<Int>(0)
    private let tail = Atomic<Int>(0)
    private let entries: UnsafeMutablePointer<Entry>
    private let bytes: UnsafeMutableRawPointer
    private let dropped = Atomic<Int>(0)
    private let oversize = Atomic<Int>(0)

    public init(capacity: Int = 128, slotBytes: Int = 2048) {
        self.capacity = capacity
        self.slotBytes = slotBytes
        entries = .allocate(capacity: capacity)
        entries.initialize(repeating: Entry(seq: 0, ptsNs: 0, arrivalNs: 0, primaryLength: 0, previousLength: 0), count: capacity)
        bytes = .allocate(byteCount: capacity * slotBytes, alignment: 16)
    }

    deinit {
        entries.deinitialize(count: capacity)
        entries.deallocate()
        bytes.deallocate()
    }

    /// Packets dropped because the ring was full (the sink thread stalled), or too large.
    public var droppedFull: Int { dropped.load(ordering: .relaxed) }
    public var droppedOversize: Int { oversize.load(ordering: .relaxed) }

    /// Producer: copies one packet in. - Returns: false when it was dropped.
    @discardableResult
    public func push(seq: UInt32, ptsNs: UInt64, arrivalNs: UInt64, primary: UnsafeRawBufferPointer,
                     previous: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) -> Bool {
        guard primary.count + previous.count <= slotBytes else {
            oversize.add(1, ordering: .relaxed)
            return false
        }
        let t = tail.load(ordering: .relaxed)
        guard t - head.load(ordering: .acquiring) < capacity else {
            dropped.add(1, ordering: .relaxed)
            return false
        }
        let i = t % capacity
        let slot = bytes + i * slotBytes
        if let p = primary.baseAddress, primary.count > 0 { slot.copyMemory(from: p, byteCount: primary.count) }
        if let p = previous.baseAddress, previous.count > 0 { (slot + primary.count).copyMemory(from: p, byteCount: previous.count) }
        entries[i] = Entry(seq: seq, ptsNs: ptsNs, arrivalNs: arrivalNs, primaryLength: primary.count, previousLength: previous.count)
        tail.store(t + 1, ordering: .releasing)
        return true
    }

    /// Consumer: hands each waiting packet to `body` (entry, its bytes — valid during the call),
    /// oldest first, then frees the slots. - Returns: packets handed over.
    @discardableResult
    public func drain(_ body: (Entry, UnsafeRawBufferPointer) -> Void) -> Int {
        let h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .acquiring)
        for n in h..<t {
            let i = n % capacity
            let e = entries[i]
            body(e, UnsafeRawBufferPointer(start: bytes + i * slotBytes, count: e.primaryLength + e.previousLength))
        }
        head.store(t, ordering: .releasing)
        return t - h
    }
}
