/// Cells of the bench tables, shared by the pacer, wake and audio benches.

/// `s` padded with spaces to `width` columns (at least one space): the bench tables' cells.
func pad(_ s: String, _ width: Int) -> String { s + String(repeating: " ", count: max(1, width - s.count)) }

/// `x` with exactly `decimals` digits after the point, rounded half away from zero (no locale,
/// no printf): the bench tables' figures.
func fixed(_ x: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let v = (x * scale).rounded() / scale
    var text = "\(v)"
    if let dot = text.firstIndex(of: ".") {
        let have = text.distance(from: dot, to: text.endIndex) - 1
        if have < decimals { text += String(repeating: "0", count: decimals - have) }
    } else if decimals > 0 {
        text += "." + String(repeating: "0", count: decimals)
    }
    return text
}
