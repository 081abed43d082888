import CCairo

/// The hint bar's button glyphs, drawn (no icon font): Xbox face buttons as coloured letters in
/// discs, PlayStation's shapes in dark discs, and keyboard keycaps with the key's name.
enum Glyphs {
    static func keyName(_ b: Hint.Button, _ set: GlyphSet = .keyboard) -> String {
        if set == .remote {
            return switch b {
            case .confirm: "OK"
            case .back: "Back"
            case .erase: "Clear"
            case .menu: "Menu"
            }
        }
        return switch b {
        case .confirm: "Enter"
        case .back: "Esc"
        case .erase: "⌫"
        case .menu: "F1"
        }
    }

    static func width(_ b: Hint.Button, _ set: GlyphSet, size: Double, _ cr: OpaquePointer) -> Double {
        switch set {
        case .xbox, .playStation: size
        case .keyboard, .remote: TextPainter.width(keyName(b, set), cr, size: size * 0.5, bold: true) + size * 0.6
        }
    }

    /// Draws the glyph with its left edge at `x`, `size` tall, centred on `centreY`.
    static func draw(_ b: Hint.Button, _ set: GlyphSet, _ cr: OpaquePointer, x: Double, centreY: Double, size: Double) {
        let r = size / 2
        let cx = x + r
        switch set {
        case .xbox:
            let (letter, colour): (String, Colour) = switch b {
            case .confirm: ("A", Palette.xboxA)
            case .back: ("B", Palette.xboxB)
            case .erase: ("X", Palette.xboxX)
            case .menu: ("≡", Palette.muted)
            }
            colour.set(cr)
            cairo_arc(cr, cx, centreY, r, 0, 2 * .pi)
            cairo_fill(cr)
            TextPainter.draw(letter, cr, x: x, y: centreY - r, width: size, size: size * 0.6, bold: true,
                             align: .centre, colour: Palette.hintBar, centreIn: size)
        case .playStation:
            Palette.surface.set(cr)
            cairo_arc(cr, cx, centreY, r, 0, 2 * .pi)
            cairo_fill(cr)
            let s = size * 0.24
            cairo_set_line_width(cr, size * 0.09)
            switch b {
            case .confirm:
                Palette.psCross.set(cr)
                cairo_move_to(cr, cx - s, centreY - s); cairo_line_to(cr, cx + s, centreY + s)
                cairo_move_to(cr, cx + s, centreY - s); cairo_line_to(cr, cx - s, centreY + s)
            case .back:
                Palette.psCircle.set(cr)
                cairo_arc(cr, cx, centreY, s, 0, 2 * .pi)
            case .erase:
                Palette.psSquare.set(cr)
                cairo_rectangle(cr, cx - s, centreY - s, 2 * s, 2 * s)
            case .menu:
                Palette.text.set(cr)
                for dy in [-s * 0.8, 0, s * 0.8] {
                    cairo_move_to(cr, cx - s, centreY + dy); cairo_line_to(cr, cx + s, centreY + dy)
                }
            }
            cairo_stroke(cr)
        case .keyboard, .remote:
            let w = width(b, set, size: size, cr)
            ElementPainter.roundedRect(cr, x, centreY - r, w, size, size * 0.18)
            Palette.text.set(cr)
            cairo_set_line_width(cr, size * 0.06)
            cairo_stroke(cr)
            TextPainter.draw(keyName(b, set), cr, x: x, y: centreY - r, width: w, size: size * 0.5, bold: true,
                             align: .centre, centreIn: size)
        }
    }
}
