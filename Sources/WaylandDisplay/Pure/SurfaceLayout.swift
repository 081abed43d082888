/// The geometry of the fullscreen toplevel, from the latest `xdg_toplevel.configure` and the
/// output it is on. Pure.
///
/// Sizes: *logical* is the surface size the compositor configures (surface-local units);
/// *buffer* is logical × the output's integer scale — the pixels a full-screen picture needs and
/// the size the host is asked for.
public struct SurfaceLayout: Sendable, Equatable {
    public var logicalWidth: Int
    public var logicalHeight: Int
    public var scale: Int

    public init(logicalWidth: Int, logicalHeight: Int, scale: Int) {
        self.logicalWidth = logicalWidth; self.logicalHeight = logicalHeight; self.scale = max(1, scale)
    }

    public var bufferWidth: Int { logicalWidth * scale }
    public var bufferHeight: Int { logicalHeight * scale }

    /// The layout a configure asks for. `width`/`height` 0 means "the client decides"
    /// (xdg-shell.xml): then the output's mode in logical units (mode / scale), and 1280 × 720
    /// when no output has told its mode yet. Negative sizes (a broken compositor) count as 0.
    public static func configured(width: Int32, height: Int32, outputMode: (width: Int, height: Int)?,
                                  scale: Int) -> SurfaceLayout {
        let s = max(1, scale)
        var w = Int(max(0, width)), h = Int(max(0, height))
        if w == 0 || h == 0 {
            if let mode = outputMode, mode.width > 0, mode.height > 0 {
                w = w == 0 ? max(1, mode.width / s) : w
                h = h == 0 ? max(1, mode.height / s) : h
            } else {
                w = w == 0 ? 1280 / s : w
                h = h == 0 ? 720 / s : h
            }
        }
        return SurfaceLayout(logicalWidth: w, logicalHeight: h, scale: s)
    }

    /// Where a `width` × `height` picture goes on the surface, in logical units, when the
    /// compositor scales it (`wp_viewporter` destination): as large as fits keeping its aspect,
    /// touching two opposite edges, centered (the leftover split down/left). nil for empty sizes.
    public func fit(width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int)? {
        guard width > 0, height > 0, logicalWidth > 0, logicalHeight > 0 else { return nil }
        var w = logicalWidth, h = logicalHeight
        // Compare aspects exactly: width/height vs logicalWidth/logicalHeight.
        if width * logicalHeight > logicalWidth * height {        // wider: full width
            h = max(1, (logicalWidth * height * 2 + width) / (2 * width))
        } else if width * logicalHeight < logicalWidth * height {  // taller: full height
            w = max(1, (logicalHeight * width * 2 + height) / (2 * height))
        }
        return ((logicalWidth - w) / 2, (logicalHeight - h) / 2, w, h)
    }

    /// Where a `width` × `height` picture goes on the surface, in logical units, when the
    /// compositor can scale it (`wp_viewporter`): the KMS rule (`PlaneGeometry`) — 1:1 in pixels
    /// and centered when it fits the buffer, else as large as fits keeping its aspect (`fit`). A
    /// host asked for the screen's mode sends exactly that size; a smaller one (a host that
    /// refused the mode, a file) is not blown up. nil for empty sizes.
    public func place(width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int)? {
        guard width > 0, height > 0, logicalWidth > 0, logicalHeight > 0 else { return nil }
        guard width <= bufferWidth, height <= bufferHeight else { return fit(width: width, height: height) }
        let w = max(1, width / scale), h = max(1, height / scale)
        return ((logicalWidth - w) / 2, (logicalHeight - h) / 2, w, h)
    }

    /// Where a `width` × `height` picture goes in a full-size *buffer* when nothing scales it
    /// (no viewporter): 1:1 and centered when it fits, else scaled down keeping its aspect (the
    /// KMS rule, `PlaneGeometry`). nil for empty sizes.
    public func bufferPlacement(width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int)? {
        guard width > 0, height > 0, bufferWidth > 0, bufferHeight > 0 else { return nil }
        var w = width, h = height
        if w > bufferWidth || h > bufferHeight {
            if width * bufferHeight > bufferWidth * height {
                w = bufferWidth; h = max(1, (bufferWidth * height * 2 + width) / (2 * width))
            } else {
                h = bufferHeight; w = max(1, (bufferHeight * width * 2 + height) / (2 * height))
            }
        }
        return ((bufferWidth - w) / 2, (bufferHeight - h) / 2, w, h)
    }
}
