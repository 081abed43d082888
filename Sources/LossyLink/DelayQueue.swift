/// A bounded timer heap: items released in order of (release time, insertion order), so items due
/// at the same ns leave first-in first-out. O(log n) push and pop. No clock: times are ns the
/// caller chose.
public struct DelayQueue<Item> {
    fileprivate struct Entry {
        var atNs: UInt64
        var order: UInt64
        var item: Item
        func before(_ other: Entry) -> Bool { atNs != other.atNs ? atNs < other.atNs : order < other.order }
    }

    private var heap: [Entry] = []
    private var pushed: UInt64 = 0
    /// Most items held at once; a push beyond it is refused.
    public let capacity: Int

    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    public var count: Int { heap.count }
    public var isEmpty: Bool { heap.isEmpty }
    /// The earliest release time held, ns.
    public var nextDeadline: UInt64? { heap.first?.atNs }

    /// - Returns: false (and holds nothing) when `capacity` items are already held.
    public mutating func push(_ item: Item, atNs: UInt64) -> Bool {
        guard heap.count < capacity else { return false }
        heap.append(Entry(atNs: atNs, order: pushed, item: item))
        pushed &+= 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].before(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
        return true
    }

    /// The earliest item if it is due (release time ≤ now), else nil.
    public mutating func popDue(now: UInt64) -> Item? {
        guard let first = heap.first, first.atNs <= now else { return nil }
        let last = heap.removeLast()
        guard !heap.isEmpty else { return first.item }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var least = parent
            if left < heap.count, heap[left].before(heap[least]) { least = left }
            if right < heap.count, heap[right].before(heap[least]) { least = right }
            guard least != parent else { break }
            heap.swapAt(parent, least)
            parent = least
        }
        return first.item
    }
}

extension DelayQueue: Sendable where Item: Sendable {}
extension DelayQueue.Entry: Sendable where Item: Sendable {}
