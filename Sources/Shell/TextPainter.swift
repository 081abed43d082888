import CCairo
import CPango

/// Shaped text with pango on a cairo context, in design pixels (the context is already scaled).
enum TextPainter {
    enum Align { case left, centre, right }

    static let family = "DejaVu Sans"

    /// A pango layout on `cr` in `family` at `size` design pixels; the caller unrefs it.
    private static func makeLayout(_ cr: OpaquePointer, size: Double, bold: Bool) -> OpaquePointer? {
        guard let layout = pango_cairo_create_layout(cr) else { return nil }
        let font = pango_font_description_new()
        pango_font_description_set_family(font, family)
        pango_font_description_set_weight(font, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL)
        pango_font_description_set_absolute_size(font, size * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, font)
        pango_font_description_free(font)
        return layout
    }

    /// Draws `text` with its top-left at (`x`, `y`) in a box `width` wide (aligned in it; one line
    /// ellipsized unless `wraps`; wrapped text past `maxLines` lines is ellipsized).
    /// - Returns: the height drawn.
    @discardableResult
    static func draw(_ text: String, _ cr: OpaquePointer, x: Double, y: Double, width: Double, size: Double,
                     bold: Bool = false, align: Align = .left, wraps: Bool = false, colour: Colour = Palette.text,
                     centreIn boxHeight: Double? = nil, maxLines: Int? = nil) -> Double {
        guard let layout = makeLayout(cr, size: size, bold: bold) else { return 0 }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        pango_layout_set_width(layout, Int32(width * Double(PANGO_SCALE)))
        if wraps {
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
            if let maxLines {
                pango_layout_set_height(layout, Int32(-maxLines))
                pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
            }
        } else {
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
        }
        switch align {
        case .left: pango_layout_set_alignment(layout, PANGO_ALIGN_LEFT)
        case .centre: pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
        case .right: pango_layout_set_alignment(layout, PANGO_ALIGN_RIGHT)
        }
        pango_layout_set_text(layout, text, -1)
        var w: Int32 = 0, h: Int32 = 0
        pango_layout_get_size(layout, &w, &h)
        let height = Double(h) / Double(PANGO_SCALE)
        let top = boxHeight.map { y + ($0 - height) / 2 } ?? y
        colour.set(cr)
        cairo_move_to(cr, x, top)
        pango_cairo_show_layout(cr, layout)
        return height
    }

    /// The width `text` takes at `size`, design pixels.
    static func width(_ text: String, _ cr: OpaquePointer, size: Double, bold: Bool = false) -> Double {
        guard let layout = makeLayout(cr, size: size, bold: bold) else { return 0 }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        pango_layout_set_text(layout, text, -1)
        var w: Int32 = 0, h: Int32 = 0
        pango_layout_get_size(layout, &w, &h)
        return Double(w) / Double(PANGO_SCALE)
    }
}
