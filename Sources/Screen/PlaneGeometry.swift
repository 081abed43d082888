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

/// Where a picture lands on the CRTC: pure geometry, no KMS.
public enum PlaneGeometry {
    /// The destination of a `width` × `height` picture on a `crtcWidth` × `crtcHeight` CRTC.
    ///
    /// A picture that fits is shown 1:1, centered (odd leftovers put the extra pixel right/bottom,
    /// i.e. `x = (crtcWidth − width) / 2` rounded down). A picture that does not fit is scaled
    /// down keeping its aspect ratio to touch two opposite edges, the other extent rounded to the
    /// nearest pixel (ties up), then centered the same way. Never larger than the CRTC, never
    /// smaller than 1×1. - Returns: nil for non-positive sizes.
    public static func fit(width: Int, height: Int, crtcWidth: Int, crtcHeight: Int) -> PixelRect? {
        guard width > 0, height > 0, crtcWidth > 0, crtcHeight > 0 else { return nil }
        var w = width, h = height
        if w > crtcWidth || h > crtcHeight {
            // Compare aspect ratios exactly: width-limited when w/h ≥ W/H.
            if Int64(w) * Int64(crtcHeight) >= Int64(h) * Int64(crtcWidth) {
                h = Int((2 * Int64(h) * Int64(crtcWidth) + Int64(w)) / (2 * Int64(w)))
                w = crtcWidth
            } else {
                w = Int((2 * Int64(w) * Int64(crtcHeight) + Int64(h)) / (2 * Int64(h)))
                h = crtcHeight
            }
            w = min(max(w, 1), crtcWidth); h = min(max(h, 1), crtcHeight)
        }
        return PixelRect(x: (crtcWidth - w) / 2, y: (crtcHeight - h) / 2, width: w, height: h)
    }

    /// Whether showing `source` at `destination` needs a scaler.
    public static func isScaled(source: PixelRect, destination: PixelRect) -> Bool {
        source.width != destination.width || source.height != destination.height
    }
}
