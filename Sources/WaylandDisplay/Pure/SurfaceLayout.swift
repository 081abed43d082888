import Screen

/// The geometry of the fullscreen toplevel, from the latest `xdg_toplevel.configure`, the output
/// it is on and the compositor's preferred scale. Pure.
///
/// Sizes: *logical* is the surface size the compositor configures (surface-local units);
/// *pixels* is what a full-screen picture needs on glass — the size the host is asked for and
/// the canvas is drawn at. `scale` is the integer buffer scale a surface without a viewport
/// must use (pixels = logical × scale there).
public struct SurfaceLayout: Sendable, Equatable {
    public var logicalWidth: Int
    public var logicalHeight: Int
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// The output's integer scale (`wl_output.scale`).
    public var scale: Int

    /// Pixels = logical × `scale` (no viewport, or nothing better known).
    public init(logicalWidth: Int, logicalHeight: Int, scale: Int) {
        let s = max(1, scale)
        self.init(logicalWidth: logicalWidth, logicalHeight: logicalHeight, pixelWidth: logicalWidth * s,
                  pixelHeight: logicalHeight * s, scale: s)
    }

    public init(logicalWidth: Int, logicalHeight: Int, pixelWidth: Int, pixelHeight: Int, scale: Int) {
        self.logicalWidth = logicalWidth; self.logicalHeight = logicalHeight
        self.pixelWidth = max(1, pixelWidth); self.pixelHeight = max(1, pixelHeight); self.scale = max(1, scale)
    }

    /// The buffer size of a surface that cannot scale (no viewport): logical × integer scale.
    public var bufferWidth: Int { logicalWidth * scale }
    public var bufferHeight: Int { logicalHeight * scale }

    /// Where the pixel size comes from, best first.
    public enum PixelSource: Sendable, Equatable {
        /// `wp_fractional_scale_v1.preferred_scale` (numerator over 120): logical × scale / 120,
        /// halves away from zero (fractional-scale-v1.xml, "For toplevel surfaces").
        case fractional(scale120: Int)
        /// A fullscreen window covers its output: the output's current mode, turned by its
        /// transform — the panel's real pixels whatever scale the compositor advertises (sway 1.7
        /// at 1.5 says `wl_output.scale` 2).
        case outputMode(width: Int, height: Int)
        /// logical × `wl_output.scale` (no viewport to give the compositor other sizes, or the
        /// window is not fullscreen).
        case integerScale
    }

    /// The layout a configure asks for. `width`/`height` 0 means "the client decides"
    /// (xdg-shell.xml): then the output's mode in logical units (mode / scale), and 1280 × 720
    /// when no output has told its mode yet. Negative sizes (a broken compositor) count as 0.
    /// - Parameters:
    ///   - output: the current mode (already turned by the output's transform) and integer scale.
    ///   - fullscreen: the configure's states hold `fullscreen`.
    ///   - fractionalScale120: the surface's preferred scale × 120, when the compositor said one.
    ///   - viewport: the surface can be given buffers of another size than logical × scale.
    public static func configured(width: Int32, height: Int32, output: (width: Int, height: Int, scale: Int)?,
                                  fullscreen: Bool = true, fractionalScale120: Int? = nil,
                                  viewport: Bool = true) -> SurfaceLayout {
        let s = max(1, output?.scale ?? 1)
        var w = Int(max(0, width)), h = Int(max(0, height))
        let mode = output.flatMap { $0.width > 0 && $0.height > 0 ? (width: $0.width, height: $0.height) : nil }
        if w == 0 || h == 0 {
            if let mode {
                w = w == 0 ? max(1, mode.width / s) : w
                h = h == 0 ? max(1, mode.height / s) : h
            } else {
                w = w == 0 ? 1280 / s : w
                h = h == 0 ? 720 / s : h
            }
        }
        let source: PixelSource
        if !viewport {
            source = .integerScale
        } else if let f = fractionalScale120, f > 0 {
            source = .fractional(scale120: f)
        } else if fullscreen, let mode {
            source = .outputMode(width: mode.width, height: mode.height)
        } else {
            source = .integerScale
        }
        return layout(logicalWidth: w, logicalHeight: h, scale: s, pixels: source)
    }

    static func layout(logicalWidth w: Int, logicalHeight h: Int, scale s: Int, pixels: PixelSource) -> SurfaceLayout {
        switch pixels {
        case .fractional(let f):
            return SurfaceLayout(logicalWidth: w, logicalHeight: h, pixelWidth: (w * f + 60) / 120,
                                 pixelHeight: (h * f + 60) / 120, scale: s)
        case .outputMode(let mw, let mh):
            return SurfaceLayout(logicalWidth: w, logicalHeight: h, pixelWidth: mw, pixelHeight: mh, scale: s)
        case .integerScale:
            return SurfaceLayout(logicalWidth: w, logicalHeight: h, scale: s)
        }
    }

    /// Where a `width` × `height` picture goes in pixels of the full screen (`PlaneGeometry.place`).
    public func place(width: Int, height: Int, scaling: PictureScaling) -> PixelRect? {
        PlaneGeometry.place(width: width, height: height, screenWidth: pixelWidth, screenHeight: pixelHeight, scaling: scaling)
    }

    /// `rect` in pixels as surface-local (logical) units: each edge to the nearest unit.
    public func logical(_ rect: PixelRect) -> PixelRect {
        PlaneGeometry.rescale(rect, pixelWidth: pixelWidth, pixelHeight: pixelHeight,
                              logicalWidth: logicalWidth, logicalHeight: logicalHeight)
    }

    /// Where a `width` × `height` picture goes in a buffer of `bufferWidth` × `bufferHeight`
    /// drawn on the CPU (no viewporter): the same rule in the buffer's pixels.
    public func bufferPlace(width: Int, height: Int, scaling: PictureScaling) -> PixelRect? {
        PlaneGeometry.place(width: width, height: height, screenWidth: bufferWidth, screenHeight: bufferHeight, scaling: scaling)
    }
}
