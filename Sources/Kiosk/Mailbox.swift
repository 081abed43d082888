import Foundation

/// A bounded hand-off between two threads: `push` never blocks (when full, the oldest item is
/// evicted and returned so the caller can release it — newest wins), `pop` blocks up to a
/// timeout. `close()` wakes every waiter; a closed mailbox still drains what it holds.
///
/// Invariants: `count ≤ capacity`; items leave in push order.
public final class Mailbox<Item>: @unchecked Sendable {
    public let capacity: Int
    private let condition = NSCondition()
    private var items: [Item] = []
    private var head = 0
    private var closed = false

    public init(capacity: Int) {
        precondition(capacity >= 1)
        self.capacity = capacity
        items.reserveCapacity(capacity + 1)
    }

    /// Adds `item`. - Returns: the evicted oldest item when the mailbox was full.
    @discardableResult
    public func push(_ item: Item) -> Item? {
        condition.lock()
        defer { condition.unlock() }
        var evicted: Item?
        if items.count - head >= capacity {
            evicted = items[head]
            head += 1
        }
        items.append(item)
        if head > capacity { items.removeFirst(head); head = 0 }
        condition.signal()
        return evicted
    }

    /// The oldest item, waiting up to `timeout` seconds. Nil on timeout, or when closed and empty.
    public func pop(timeout: TimeInterval) -> Item? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(timeout)
        while items.count == head {
            if closed || !condition.wait(until: deadline) { break }
        }
        guard items.count > head else { return nil }
        let item = items[head]
        head += 1
        if head == items.count { items.removeAll(keepingCapacity: true); head = 0 }
        return item
    }

    /// Removes and returns everything held.
    public func drain() -> [Item] {
        condition.lock()
        defer { condition.unlock() }
        let out = Array(items[head...])
        items.removeAll(keepingCapacity: true)
        head = 0
        return out
    }

    public func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    public var isClosed: Bool { condition.lock(); defer { condition.unlock() }; return closed }
    public var count: Int { condition.lock(); defer { condition.unlock() }; return items.count - head }
}
