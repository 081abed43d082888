/// Frames for the shell's recurring arrangements on the design canvas, so every screen lines up:
/// a heading band at the top, the hint bar at the bottom, content between.
public enum ShellLayout {
    public static let margin = 96.0
    public static let headingFrame = SceneRect(x: margin, y: 60, width: ShellScene.designWidth - 2 * margin, height: 110)
    public static let hintFrame = SceneRect(x: 0, y: ShellScene.designHeight - 110, width: ShellScene.designWidth, height: 110)
    /// Where content starts and ends vertically.
    public static let contentTop = 210.0
    public static let contentBottom = ShellScene.designHeight - 140
    /// The gap between neighbouring frames (room for the focus ring).
    public static let gap = 36.0

    /// `count` cards of `size` in a row from `top`, centred (a row wider than the canvas starts at
    /// the margin and runs on; the caller shows the focused part).
    public static func cardRow(count: Int, top: Double, width: Double = 400, height: Double = 260) -> [SceneRect] {
        let total = Double(count) * width + Double(max(count - 1, 0)) * gap
        let start = max(margin, (ShellScene.designWidth - total) / 2)
        return (0..<count).map { SceneRect(x: start + Double($0) * (width + gap), y: top, width: width, height: height) }
    }

    /// `count` rows of a list from `top`, `width` wide at `x`.
    public static func list(count: Int, top: Double, x: Double = margin, width: Double = 1100, rowHeight: Double = 84) -> [SceneRect] {
        (0..<count).map { SceneRect(x: x, y: top + Double($0) * (rowHeight + gap / 2), width: width, height: rowHeight) }
    }

    /// Keys in rows (each row centred on `centreX`), `size` square with `spacing` between.
    public static func keys(rowLengths: [Int], top: Double, centreX: Double, size: Double = 96, spacing: Double = 18) -> [[SceneRect]] {
        rowLengths.enumerated().map { row, n in
            let total = Double(n) * size + Double(max(n - 1, 0)) * spacing
            let x0 = centreX - total / 2
            return (0..<n).map { SceneRect(x: x0 + Double($0) * (size + spacing), y: top + Double(row) * (size + spacing), width: size, height: size) }
        }
    }
}
