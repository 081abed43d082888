import CCairo

/// Draws one scene element on a context in design pixels (scaled and clipped by the renderer).
enum ElementPainter {
    static let body = ShellScene.bodySize
    static let radius = 18.0

    static func draw(_ e: SceneElement, _ cr: OpaquePointer) {
        let f = e.frame
        switch e.kind {
        case .heading:
            TextPainter.draw(e.title, cr, x: f.x, y: f.y, width: f.width, size: body * 1.6, bold: true, centreIn: f.height)
        case .text, .statement:
            TextPainter.draw(e.title, cr, x: f.x, y: f.y, width: f.width, size: body, wraps: true,
                             colour: e.kind == .statement ? Palette.text : Palette.muted)
        case .card(let status):
            panel(f, cr, focused: e.focused)
            let pad = 28.0
            // A host's name on two lines (a card is ~12 characters wide), the rest ellipsized.
            TextPainter.draw(e.title, cr, x: f.x + pad, y: f.y + pad, width: f.width - 2 * pad, size: body, bold: true,
                             wraps: true, maxLines: 2)
            let dot = body * 0.4
            let lineY = f.y + f.height - pad - body * 1.2
            colour(of: status).set(cr)
            cairo_arc(cr, f.x + pad + dot / 2, lineY + body * 0.6, dot / 2, 0, 2 * .pi)
            cairo_fill(cr)
            TextPainter.draw(e.detail ?? status.label, cr, x: f.x + pad + dot * 1.8, y: lineY, width: f.width - 2 * pad - dot * 1.8,
                             size: body * 0.75, colour: Palette.muted, centreIn: body * 1.2)
        case .button:
            panel(f, cr, focused: e.focused)
            let pad = 32.0
            if let detail = e.detail {
                TextPainter.draw(detail, cr, x: f.x + f.width * 0.5, y: f.y, width: f.width * 0.5 - pad, size: body * 0.8,
                                 align: .right, colour: Palette.muted, centreIn: f.height)
            }
            TextPainter.draw(e.title, cr, x: f.x + pad, y: f.y, width: (e.detail == nil ? f.width : f.width * 0.5) - pad,
                             size: body, centreIn: f.height)
        case .key:
            panel(f, cr, focused: e.focused)
            TextPainter.draw(e.title, cr, x: f.x, y: f.y, width: f.width, size: body, bold: true, align: .centre, centreIn: f.height)
        case .field:
            panel(f, cr, focused: e.focused)
            let pad = 28.0
            let shown = e.title.isEmpty ? (e.detail ?? "") : e.title
            TextPainter.draw(shown, cr, x: f.x + pad, y: f.y, width: f.width - 2 * pad, size: body,
                             colour: e.title.isEmpty ? Palette.muted : Palette.text, centreIn: f.height)
        case .pointer:
            pointer(f, cr)
        case .hints(let hints, let glyphs):
            Palette.hintBar.set(cr)
            cairo_rectangle(cr, f.x, f.y, f.width, f.height)
            cairo_fill(cr)
            // Right-aligned, last hint rightmost.
            let size = body * 0.8
            let glyphSize = body * 1.05
            var x = f.x + f.width - ShellLayout.margin
            for hint in hints.reversed() {
                let w = TextPainter.width(hint.label, cr, size: size)
                x -= w
                TextPainter.draw(hint.label, cr, x: x, y: f.y, width: w + 2, size: size, colour: Palette.text, centreIn: f.height)
                let gw = Glyphs.width(hint.button, glyphs, size: glyphSize, cr)
                x -= gw + 16
                Glyphs.draw(hint.button, glyphs, cr, x: x, centreY: f.y + f.height / 2, size: glyphSize)
                x -= 56
            }
        }
    }

    /// An arrow pointer, tip at the frame's origin, white with a dark edge.
    static func pointer(_ f: SceneRect, _ cr: OpaquePointer) {
        let u = f.height / 20
        let points: [(Double, Double)] = [(0, 0), (0, 16), (4, 12.5), (7, 19), (9.5, 18), (6.5, 11.5), (12, 11.5)]
        cairo_move_to(cr, f.x, f.y)
        for (x, y) in points.dropFirst() { cairo_line_to(cr, f.x + x * u, f.y + y * u) }
        cairo_close_path(cr)
        Palette.text.set(cr)
        cairo_fill_preserve(cr)
        Palette.hintBar.set(cr)
        cairo_set_line_width(cr, u * 1.2)
        cairo_stroke(cr)
    }

    /// A rounded panel; focused: lighter, with the accent ring around it.
    static func panel(_ f: SceneRect, _ cr: OpaquePointer, focused: Bool) {
        roundedRect(cr, f.x, f.y, f.width, f.height, radius)
        (focused ? Palette.surfaceFocused : Palette.surface).set(cr)
        cairo_fill(cr)
        guard focused else { return }
        let o = ShellRenderer.ringOutset / 2
        roundedRect(cr, f.x - o, f.y - o, f.width + 2 * o, f.height + 2 * o, radius + o)
        Palette.accent.set(cr)
        cairo_set_line_width(cr, ShellRenderer.ringOutset * 0.75)
        cairo_stroke(cr)
    }

    static func roundedRect(_ cr: OpaquePointer, _ x: Double, _ y: Double, _ w: Double, _ h: Double, _ r: Double) {
        cairo_new_sub_path(cr)
        cairo_arc(cr, x + w - r, y + r, r, -.pi / 2, 0)
        cairo_arc(cr, x + w - r, y + h - r, r, 0, .pi / 2)
        cairo_arc(cr, x + r, y + h - r, r, .pi / 2, .pi)
        cairo_arc(cr, x + r, y + r, r, .pi, 3 * .pi / 2)
        cairo_close_path(cr)
    }

    static func colour(of status: HostStatus) -> Colour {
        switch status {
        case .online: Palette.online
        case .asleep: Palette.asleep
        case .needsPairing: Palette.needsPairing
        case .paired: Palette.paired
        }
    }
}
