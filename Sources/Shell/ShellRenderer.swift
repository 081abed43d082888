import CCairo
import CPango

/// Draws `ShellScene`s into an XRGB8888 buffer (cairo's RGB24: one native-endian 32-bit word per
/// pixel, the top byte unused) of `width` × `height` pixels, at any mode: the design canvas is
/// scaled by `scale` (1 at 1080p, 2/3 at 720p, 2 at 2160p) and centred.
///
/// Damage: between two scenes on the same ground, every element whose value changed is redrawn in
/// its old and new pixel rectangles (its frame grown by the focus ring, rounded outward); nothing
/// outside those rectangles is touched (another ground repaints all). Each element draws clipped
/// to its own rectangle, so a partial redraw leaves the buffer exactly as a full redraw of the
/// new scene would.
public final class ShellRenderer {
    public let width: Int
    public let height: Int
    /// Panel pixels per design pixel.
    public let scale: Double
    /// Where the design canvas's origin lies on the panel, panel pixels.
    let originX: Double
    let originY: Double

    /// How far the focus ring reaches outside an element's frame, design pixels.
    public static let ringOutset = 12.0

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        scale = min(Double(width) / ShellScene.designWidth, Double(height) / ShellScene.designHeight)
        originX = (Double(width) - ShellScene.designWidth * scale) / 2
        originY = (Double(height) - ShellScene.designHeight * scale) / 2
    }

    /// The whole panel.
    public var screen: PanelRect { PanelRect(x: 0, y: 0, width: width, height: height) }

    /// The pixels `element` may touch: its frame and focus ring, rounded outward, on the panel.
    public func pixelRect(of element: SceneElement) -> PanelRect {
        let f = element.frame, o = Self.ringOutset
        let x0 = max(0, Int((originX + (f.x - o) * scale).rounded(.down)))
        let y0 = max(0, Int((originY + (f.y - o) * scale).rounded(.down)))
        let x1 = min(width, Int((originX + (f.x + f.width + o) * scale).rounded(.up)))
        let y1 = min(height, Int((originY + (f.y + f.height + o) * scale).rounded(.up)))
        return PanelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    /// The index of the topmost element whose frame holds the pixel (`x`, `y`): what a pointer
    /// there is on (nil: the ground, or off the canvas).
    public func elementIndex(at x: Int, y: Int, in scene: ShellScene) -> Int? {
        // The pixel's centre on the design canvas.
        let dx = (Double(x) + 0.5 - originX) / scale, dy = (Double(y) + 0.5 - originY) / scale
        return scene.elements.indices.last { i in
            let f = scene.elements[i].frame
            return dx >= f.x && dx < f.x + f.width && dy >= f.y && dy < f.y + f.height
        }
    }

    /// The design-canvas point under the panel pixel (`x`, `y`) (its centre).
    public func designPoint(x: Int, y: Int) -> (x: Double, y: Double) {
        ((Double(x) + 0.5 - originX) / scale, (Double(y) + 0.5 - originY) / scale)
    }

    /// What a redraw from `old` (nil: nothing drawn yet) to `new` must repaint, without repeats.
    public func damage(from old: ShellScene?, to new: ShellScene) -> [PanelRect] {
        guard let old, old.ground == new.ground else { return [screen] }
        var rects: [PanelRect] = []
        func add(_ r: PanelRect) { if !r.isEmpty, !rects.contains(r) { rects.append(r) } }
        for i in 0..<max(old.elements.count, new.elements.count) {
            let a = i < old.elements.count ? old.elements[i] : nil
            let b = i < new.elements.count ? new.elements[i] : nil
            guard a != b else { continue }
            if let a { add(pixelRect(of: a)) }
            if let b { add(pixelRect(of: b)) }
        }
        return rects
    }

    /// Draws `scene` into `pixels` (`stride` bytes per row, at least 4 × `width`, a multiple of 4):
    /// all of it when `previous` is nil, else only what changed since `previous` — which the
    /// buffer must hold as this renderer drew it. - Returns: the rectangles repainted.
    @discardableResult
    public func draw(_ scene: ShellScene, over previous: ShellScene?, into pixels: UnsafeMutableRawPointer, stride: Int) -> [PanelRect] {
        precondition(stride >= width * 4 && stride % 4 == 0, "stride \(stride) cannot hold \(width) XRGB8888 pixels")
        let damaged = damage(from: previous, to: scene)
        guard !damaged.isEmpty else { return [] }
        let surface = cairo_image_surface_create_for_data(pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                          Int32(width), Int32(height), Int32(stride))
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        let rects = scene.elements.map(pixelRect(of:))
        for d in damaged {
            cairo_save(cr)
            clip(cr, d)
            if scene.ground == .black { cairo_set_source_rgb(cr, 0, 0, 0) } else { Palette.background.set(cr) }
            cairo_paint(cr)
            for (element, rect) in zip(scene.elements, rects) where rect.intersects(d) {
                cairo_save(cr)
                clip(cr, rect)
                cairo_translate(cr, originX, originY)
                cairo_scale(cr, scale, scale)
                ElementPainter.draw(element, cr)
                cairo_restore(cr)
            }
            cairo_restore(cr)
        }
        cairo_surface_flush(surface)
        return damaged
    }

    private func clip(_ cr: OpaquePointer, _ r: PanelRect) {
        cairo_rectangle(cr, Double(r.x), Double(r.y), Double(r.width), Double(r.height))
        cairo_clip(cr)
    }
}
