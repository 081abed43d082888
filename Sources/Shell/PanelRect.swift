/// A rectangle of whole pixels on the panel (x, y from the top left).
public struct PanelRect: Sendable, Equatable, Hashable {
    public var x: Int, y: Int, width: Int, height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }

    public func contains(x px: Int, y py: Int) -> Bool { px >= x && px < maxX && py >= y && py < maxY }

    public func intersects(_ o: PanelRect) -> Bool {
        !isEmpty && !o.isEmpty && x < o.maxX && o.x < maxX && y < o.maxY && o.y < maxY
    }

    /// The smallest rectangle holding both.
    public func union(_ o: PanelRect) -> PanelRect {
        let x0 = min(x, o.x), y0 = min(y, o.y)
        return PanelRect(x: x0, y: y0, width: max(maxX, o.maxX) - x0, height: max(maxY, o.maxY) - y0)
    }
}
