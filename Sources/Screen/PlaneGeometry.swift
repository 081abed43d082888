/// An axis-aligned rectangle in whole pixels (CRTC or buffer coordinates).
public struct PixelRect: Sendable, Equatable, CustomStringConvertible {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// A plane's source rectangle in 16.16 fixed point, the unit of `SRC_X/Y/W/H`
/// (drm_mode.h, "plane source coordinates are 16.16 fixed point").
public struct FixedPointRect: Sendable, Equatable {
    public var x: UInt64, y: UInt64, width: UInt64, height: UInt64

    /// Whole-pixel rectangle → 16.16. Negative inputs clamp to 0.
    public init(_ r: PixelRect) {
        x = UInt64(max(0, r.x)) << 16; y = UInt64(max(0, r.y)) << 16
        width = UInt64(max(0, r.width)) << 16; height = UInt64(max(0, r.height)) << 16
    }
}

/// Where a picture lands on the screen (a CRTC, a Wayland surface's pixels): pure geometry, the
/// one rule both backends follow.
public enum PlaneGeometry {
    /// The rectangle a `width` × `height` picture occupies on a `screenWidth` × `screenHeight`
    /// screen under `scaling`: `fit` for `.fit`; for `.native` 1:1 and centred when it fits,
    /// else `fit`. - Returns: nil for non-positive sizes.
    public static func place(width: Int, height: Int, screenWidth: Int, screenHeight: Int,
                             scaling: PictureScaling) -> PixelRect? {
        guard width > 0, height > 0, screenWidth > 0, screenHeight > 0 else { return nil }
        if scaling == .native, width <= screenWidth, height <= screenHeight {
            return PixelRect(x: (screenWidth - width) / 2, y: (screenHeight - height) / 2, width: width, height: height)
        }
        return fit(width: width, height: height, crtcWidth: screenWidth, crtcHeight: screenHeight)
    }

    /// The largest rectangle of the picture's aspect on the screen: scaled up or down until it
    /// touches two opposite edges.
    ///
    /// Width-limited when width/height ≥ screen width/height (compared exactly): the width is the
    /// screen's and the height `height · screenWidth / width` rounded to the nearest pixel, halves
    /// up; otherwise the other way round. Centred with `x = (screenWidth − w) / 2` rounded down
    /// (an odd leftover puts the extra pixel right/bottom). Never larger than the screen, never
    /// smaller than 1×1. The same sizes and offsets as FFmpeg's `scale=W:H:force_original_aspect_
    /// ratio=decrease` followed by `pad=W:H:(ow-iw)/2:(oh-ih)/2` on RGB (ScalingRuleTests).
    /// - Returns: nil for non-positive sizes.
    public static func fit(width: Int, height: Int, crtcWidth: Int, crtcHeight: Int) -> PixelRect? {
        guard width > 0, height > 0, crtcWidth > 0, crtcHeight > 0 else { return nil }
        let w64 = Int64(width), h64 = Int64(height), sw = Int64(crtcWidth), sh = Int64(crtcHeight)
        var w = crtcWidth, h = crtcHeight
        if w64 * sh >= h64 * sw {
            h = Int((2 * h64 * sw + w64) / (2 * w64))
        } else {
            w = Int((2 * w64 * sh + h64) / (2 * h64))
        }
        w = min(max(w, 1), crtcWidth); h = min(max(h, 1), crtcHeight)
        return PixelRect(x: (crtcWidth - w) / 2, y: (crtcHeight - h) / 2, width: w, height: h)
    }

    /// Whether showing `source` at `destination` needs a scaler.
    public static func isScaled(source: PixelRect, destination: PixelRect) -> Bool {
        source.width != destination.width || source.height != destination.height
    }

    /// `rect` in pixels of a `pixelWidth` × `pixelHeight` screen as a rectangle of the same screen
    /// measured `logicalWidth` × `logicalHeight` (a Wayland surface's units at a fractional scale):
    /// each edge rounded to the nearest unit (halves up), so a rectangle that touches an edge in
    /// pixels touches it in logical units too. Width and height stay at least 1.
    public static func rescale(_ rect: PixelRect, pixelWidth: Int, pixelHeight: Int,
                               logicalWidth: Int, logicalHeight: Int) -> PixelRect {
        guard pixelWidth > 0, pixelHeight > 0 else { return rect }
        func edge(_ v: Int, _ p: Int, _ l: Int) -> Int { Int((2 * Int64(v) * Int64(l) + Int64(p)) / (2 * Int64(p))) }
        let x0 = edge(rect.x, pixelWidth, logicalWidth), x1 = edge(rect.x + rect.width, pixelWidth, logicalWidth)
        let y0 = edge(rect.y, pixelHeight, logicalHeight), y1 = edge(rect.y + rect.height, pixelHeight, logicalHeight)
        return PixelRect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0))
    }
}
