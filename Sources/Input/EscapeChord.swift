/// The escape chord over one set of "keys" (evdev key codes for the keyboard chord
/// Ctrl+Alt+Shift+Q, wire button bits for the pad chord Start+Select+L1+R1). Pure.
///
/// Rules: the chord *arms* when every part is down at once; from then on its parts are the
/// chord's, not the host's — the caller releases any part the host holds and withholds every
/// further edge of those parts — and it *fires* when the last part is released. A part that
/// stands for either side (left or right Ctrl) counts once.
public struct EscapeChord: Sendable {
    /// Each part is satisfied by any of its codes.
    public let parts: [[UInt32]]
    /// Codes currently down (only the chord's own codes are tracked).
    private var down: Set<UInt32> = []
    public private(set) var armed = false

    public init(parts: [[UInt32]]) {
        self.parts = parts
        down.reserveCapacity(16)
    }

    /// Whether `code` is one of the chord's.
    public func covers(_ code: UInt32) -> Bool { parts.contains { $0.contains(code) } }

    public enum Step: Sendable, Equatable {
        /// Not the chord's business: send the edge as usual.
        case pass
        /// The chord just armed on this press: withhold it and release the chord's held parts.
        case armed
        /// The chord holds this edge: withhold it.
        case withheld
        /// The last part was released: withhold it and act.
        case fired
    }

    /// Feeds one edge of `code`.
    public mutating func edge(_ code: UInt32, down isDown: Bool) -> Step {
        guard covers(code) else { return .pass }
        if isDown { down.insert(code) } else { down.remove(code) }
        if armed {
            if down.isEmpty {
                armed = false
                return .fired
            }
            return .withheld
        }
        if isDown, parts.allSatisfy({ part in part.contains { down.contains($0) } }) {
            armed = true
            return .armed
        }
        return .pass
    }

    /// A part already down when the device came into use (nothing is sent for it; it still
    /// counts towards the chord).
    public mutating func seed(_ code: UInt32) {
        if covers(code) { down.insert(code) }
    }

    /// Forget everything (the device went away).
    public mutating func reset() {
        down.removeAll(keepingCapacity: true)
        armed = false
    }
}

extension EscapeChord {
    /// Ctrl+Alt+Shift+Q, either side of each modifier (evdev codes).
    public static let keyboard = EscapeChord(parts: [[29, 97], [56, 100], [42, 54], [16]])
    /// Start+Select+L1+R1 (wire button bits).
    public static let pad = EscapeChord(parts: [[0x10], [0x20], [0x100], [0x200]])
}
