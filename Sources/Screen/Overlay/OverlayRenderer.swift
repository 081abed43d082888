internal import CCairo

/// Renders the stats text with cairo into an `OverlayImage`: white monospace lines on a
/// semi-transparent dark box at the top-left corner of the mode.
///
/// Geometry is fixed per renderer (the box never changes size, so overlay plane buffers are
/// allocated once): font size = mode height / 45 (at least 10 px), the box fits `columns`
/// characters × `rows` lines plus a padding of half a line, and sits one padding from the corner.
public final class OverlayRenderer {
    public let columns: Int, rows: Int
    public let fontSize: Double
    public let width: Int, height: Int
    public let x: Int, y: Int
    /// Box fill: black at this opacity (premultiplied in the output).
    public static let boxAlpha = 0.6
    private let padding: Double
    private let lineHeight: Double, ascent: Double
    private var generation: UInt64 = 0

    /// - Returns: nil when cairo cannot create a surface (out of memory) or the mode is empty.
    public init?(modeWidth: Int, modeHeight: Int, columns: Int = 38, rows: Int = 5) {
        guard modeWidth > 0, modeHeight > 0, columns > 0, rows > 0 else { return nil }
        self.columns = columns; self.rows = rows
        fontSize = max(10, Double(modeHeight) / 45)
        // Measure the font once on a scratch surface.
        guard let probe = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1) else { return nil }
        defer { cairo_surface_destroy(probe) }
        let cr = cairo_create(probe)
        defer { cairo_destroy(cr) }
        Self.selectFont(cr, size: fontSize)
        var fe = cairo_font_extents_t()
        cairo_font_extents(cr, &fe)
        var te = cairo_text_extents_t()
        cairo_text_extents(cr, String(repeating: "M", count: columns), &te)
        guard cairo_status(cr) == CAIRO_STATUS_SUCCESS else { return nil }
        lineHeight = fe.height.rounded(.up)
        ascent = fe.ascent
        padding = (lineHeight / 2).rounded()
        width = min(modeWidth, Int((te.x_advance + 2 * padding).rounded(.up)))
        height = min(modeHeight, Int((Double(rows) * lineHeight + 2 * padding).rounded(.up)))
        x = min(Int(padding), modeWidth - width)
        y = min(Int(padding), modeHeight - height)
    }

    private static func selectFont(_ cr: OpaquePointer?, size: Double) {
        cairo_select_font_face(cr, "monospace", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cr, size)
    }

    /// Renders up to `rows` lines (longer lines are clipped by the box).
    /// - Returns: nil when cairo fails (the caller shows no overlay).
    public func render(_ lines: [String]) -> OverlayImage? {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else { return nil }
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)
        defer { cairo_destroy(cr) }
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        cairo_set_source_rgba(cr, 0, 0, 0, Self.boxAlpha)
        cairo_paint(cr)
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
        cairo_set_source_rgba(cr, 1, 1, 1, 1)
        Self.selectFont(cr, size: fontSize)
        for (i, line) in lines.prefix(rows).enumerated() {
            cairo_move_to(cr, padding, padding + ascent + Double(i) * lineHeight)
            cairo_show_text(cr, line)
        }
        cairo_surface_flush(surface)
        guard cairo_status(cr) == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(surface) else { return nil }
        let stride = Int(cairo_image_surface_get_stride(surface))
        let rowBytes = width * 4
        var pixels = [UInt8](repeating: 0, count: rowBytes * height)
        pixels.withUnsafeMutableBytes { dst in
            for r in 0..<height {
                (dst.baseAddress! + r * rowBytes).copyMemory(from: data + r * stride, byteCount: rowBytes)
            }
        }
        // cairo's ARGB32 is native-endian premultiplied 0xAARRGGBB: on little-endian hosts the
        // byte order of DRM AR24.
        #if _endian(big)
        for i in stride(from: 0, to: pixels.count, by: 4) { pixels[i..<i + 4].reverse() }
        #endif
        generation += 1
        return OverlayImage(width: width, height: height, x: x, y: y, pixels: pixels, generation: generation)
    }
}
