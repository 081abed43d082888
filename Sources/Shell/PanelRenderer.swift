import CCairo

/// Draws a floating panel of the shell (the in-stream menu, a toast) for an overlay over the
/// stream: the scene's elements inside `panel` (design units) on a rounded, slightly translucent
/// ground, into ARGB8888 premultiplied pixels (DRM `AR24`: bytes B, G, R, A) covering only the
/// panel's rectangle on the mode. Outside the rounded ground the pixels are fully transparent.
public enum PanelRenderer {
    /// The ground's opacity (0…1): the stream shows faintly through, text stays legible.
    public static let groundAlpha = 0.94

    /// Loads the fonts (fontconfig's configuration and caches, the face) by laying out one line
    /// off-screen, so the first panel over a stream does not stall the presenting thread for it.
    /// Safe on any thread.
    public static func warmUp() {
        let scene = ShellScene(elements: [SceneElement(.statement, frame: SceneRect(x: 0, y: 0, width: 400, height: 60), title: "Aa")])
        _ = draw(scene, panel: SceneRect(x: 0, y: 0, width: 400, height: 60), modeWidth: 640, modeHeight: 360)
    }

    /// - Returns: where the panel goes on the mode (panel pixels) and its pixels, `rect.width × 4`
    ///   bytes per row.
    public static func draw(_ scene: ShellScene, panel: SceneRect, modeWidth: Int, modeHeight: Int) -> (rect: PanelRect, pixels: [UInt8]) {
        let layout = ShellRenderer(width: modeWidth, height: modeHeight)
        let rect = layout.pixelRect(of: SceneElement(.text, frame: panel))
        guard !rect.isEmpty else { return (rect, []) }
        var pixels = [UInt8](repeating: 0, count: rect.width * rect.height * 4)
        pixels.withUnsafeMutableBytes { raw in
            let surface = cairo_image_surface_create_for_data(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32,
                                                              Int32(rect.width), Int32(rect.height), Int32(rect.width * 4))
            defer { cairo_surface_destroy(surface) }
            let cr = cairo_create(surface)!
            defer { cairo_destroy(cr) }
            // Design units → this image: the renderer's mapping, shifted by the panel's corner.
            cairo_translate(cr, layout.originX - Double(rect.x), layout.originY - Double(rect.y))
            cairo_scale(cr, layout.scale, layout.scale)
            ElementPainter.roundedRect(cr, panel.x, panel.y, panel.width, panel.height, ElementPainter.radius * 1.5)
            let g = Palette.background
            cairo_set_source_rgba(cr, g.r, g.g, g.b, groundAlpha)
            cairo_fill(cr)
            for element in scene.elements {
                cairo_save(cr)
                ElementPainter.draw(element, cr)
                cairo_restore(cr)
            }
            cairo_surface_flush(surface)
        }
        return (rect, pixels)
    }
}
