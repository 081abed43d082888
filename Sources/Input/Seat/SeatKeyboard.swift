/// The keyboard of a compositor's seat as the host may see it. Pure: no I/O, no clock.
///
/// Rules (issue 20, item 3; research/wayland.md §4.4):
/// - keys already down at `enter` are not pressed (they are `seeded`: they count for the escape
///   chord, and their later release goes nowhere because their press never went out);
/// - a repeat (`state` 2, or a second press of a key already down) is never forwarded: the host
///   repeats held keys itself;
/// - `leave` ends every key we know to be down (the caller takes back what the host holds);
/// - a release of a key we never saw go down is dropped.
///
/// The edges it returns are evdev key edges, for the evdev→VK mapping (`EvdevKeyMap` through
/// `InputMapper`, with `HeldState` and `EscapeChord`).
public struct SeatKeyboard: Sendable, Equatable {
    /// Evdev codes down now as this keyboard knows them (pressed in focus or seeded at enter).
    public private(set) var down: Set<UInt16> = []
    /// The surface has keyboard focus.
    public private(set) var focused = false

    public init() {}

    /// `wl_keyboard.enter`. - Returns: the codes to seed (down, never pressed), in ascending
    /// order; codes past 65535 are dropped.
    public mutating func enter(keys: [UInt32]) -> [UInt16] {
        focused = true
        down = Set(keys.compactMap { UInt16(exactly: $0) })
        return down.sorted()
    }

    /// `wl_keyboard.key`. - Returns: the edge to forward, nil for a repeat, a duplicate press,
    /// a release of a key not down, an event outside focus, or a code past 65535.
    public mutating func key(code: UInt32, state: UInt32) -> (code: UInt16, down: Bool)? {
        guard focused, let c = UInt16(exactly: code) else { return nil }
        switch state {
        case 1: return down.insert(c).inserted ? (c, true) : nil
        case 0: return down.remove(c) != nil ? (c, false) : nil
        default: return nil   // 2 = repeated (wl_keyboard v10): the host repeats on its own
        }
    }

    /// `wl_keyboard.leave`. - Returns: the codes that were down, ascending (the caller releases
    /// on the host whatever of them it holds).
    public mutating func leave() -> [UInt16] {
        focused = false
        defer { down.removeAll() }
        return down.sorted()
    }
}
