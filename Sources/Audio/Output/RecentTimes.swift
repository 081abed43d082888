/// The newest `capacity` times (CLOCK_MONOTONIC ns) of some event, held inline: the sink thread
/// records into it and publishes it by copy without allocating.
public struct RecentTimes: Sendable, Equatable {
    public static let capacity = 64
    var slots = InlineArray<64, Int64>(repeating: 0)
    /// Times recorded since init; past `capacity` the oldest are gone.
    public private(set) var recorded = 0

    public init() {}

    public mutating func record(_ ns: Int64) {
        slots[recorded % Self.capacity] = ns
        recorded += 1
    }

    /// The times held, oldest first.
    public var values: [Int64] {
        let n = min(recorded, Self.capacity)
        return (recorded - n..<recorded).map { slots[$0 % Self.capacity] }
    }

    public static func == (a: RecentTimes, b: RecentTimes) -> Bool {
        guard a.recorded == b.recorded else { return false }
        for i in 0..<min(a.recorded, capacity) where a.slots[i] != b.slots[i] { return false }
        return true
    }
}
