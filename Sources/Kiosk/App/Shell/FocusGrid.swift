/// A cell in a grid of focusable things whose rows may differ in length (a digit pad, an
/// on-screen keyboard). Moves stop at the edges; moving to a shorter row lands on its last cell.
public struct GridPosition: Sendable, Equatable {
    public var row: Int
    public var column: Int

    public init(row: Int, column: Int) { self.row = row; self.column = column }

    /// The position after one step `direction` in a grid whose row `i` holds `rowLengths[i]` cells.
    public func moved(_ direction: Direction, rowLengths: [Int]) -> GridPosition {
        var p = self
        switch direction {
        case .up: p.row = max(0, row - 1)
        case .down: p.row = min(rowLengths.count - 1, row + 1)
        case .left: p.column = max(0, column - 1)
        case .right: p.column = column + 1
        }
        p.column = min(p.column, rowLengths[p.row] - 1)
        return p
    }
}

/// Keys on the on-screen digit pad and keyboard.
public enum KeyCap: Sendable, Equatable {
    case character(Character)
    case erase
    case done

    /// The label drawn on the key.
    public var label: String {
        switch self {
        case .character(let c): String(c)
        case .erase: "⌫"
        case .done: "OK"
        }
    }
}

/// The on-screen keys, row by row.
public enum KeyLayout {
    /// The PIN pad: a phone's layout, erase and OK beside 0.
    public static let digits: [[KeyCap]] = [
        ["1", "2", "3"], ["4", "5", "6"], ["7", "8", "9"],
    ].map { $0.map { .character(Character($0)) } } + [[.erase, .character("0"), .done]]

    /// A host address: names, IPv4, bracketed IPv6 with port.
    public static let address: [[KeyCap]] = [
        "1234567890", "qwertyuiop", "asdfghjkl.", "zxcvbnm:-_", "[]",
    ].map { $0.map { KeyCap.character($0) } } .enumerated().map { i, row in
        i == 4 ? row + [.erase, .done] : row
    }

    public static func rowLengths(_ layout: [[KeyCap]]) -> [Int] { layout.map(\.count) }
}
