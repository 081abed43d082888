/// Auto-repeat of a held direction, as pure timing: the first move on press, the next after
/// `delayNs`, then one every `intervalNs` while it stays held. Times are CLOCK_MONOTONIC ns; the
/// runner calls `fire(now:)` at `nextDeadline`.
///
/// A late wake-up owes one move, never a burst: after a stall the next repeat is scheduled from
/// `now`, so the focus does not jump several cards at once.
public struct KeyRepeat: Sendable, Equatable {
    public static let delayNs: UInt64 = 400_000_000
    public static let intervalNs: UInt64 = 120_000_000

    /// The direction held (nil: none).
    public private(set) var held: Direction?
    /// When the next repeat is due (meaningful while `held` is set).
    private var dueNs: UInt64 = 0

    public init() {}

    /// A direction went down: its first move now. A second direction replaces the first.
    public mutating func press(_ direction: Direction, now: UInt64) -> NavigationInput {
        held = direction
        dueNs = now &+ Self.delayNs
        return .move(direction)
    }

    /// A direction came up; releasing one that is not held (already replaced) changes nothing.
    public mutating func release(_ direction: Direction) {
        if held == direction { held = nil }
    }

    /// When to call `fire(now:)` (nil: nothing held).
    public var nextDeadline: UInt64? { held == nil ? nil : dueNs }

    /// The repeat owed at `now`, if any.
    public mutating func fire(now: UInt64) -> NavigationInput? {
        guard let direction = held, now >= dueNs else { return nil }
        let next = dueNs &+ Self.intervalNs
        dueNs = next > now ? next : now &+ Self.intervalNs
        return .move(direction)
    }
}
