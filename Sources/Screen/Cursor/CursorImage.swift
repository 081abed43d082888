/// A pointer image as the host sent it (CursorShape 0x30), ready for a screen: premultiplied
/// ARGB8888 — 32-bit little-endian words 0xAARRGGBB, bytes B, G, R, A: DRM's `AR24`, wl_shm's
/// `ARGB8888` and X RENDER's a8r8g8b8 alike — `width × 4` bytes per row, top row first, with its
/// hot spot (the pixel that points) in its own pixels.
public struct CursorImage: Sendable, Equatable {
    /// The host's serial for this shape (0xD0 names the shape in force by it).
    public let serial: UInt32
    public let width: Int, height: Int
    public let hotX: Int, hotY: Int
    public let pixels: [UInt8]

    public init(serial: UInt32, width: Int, height: Int, hotX: Int, hotY: Int, premultipliedARGB pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 4, "pixels must be width*height*4 bytes")
        self.serial = serial; self.width = width; self.height = height
        self.hotX = min(max(0, hotX), width - 1); self.hotY = min(max(0, hotY), height - 1)
        self.pixels = pixels
    }

    /// From straight-alpha RGBA8 (CursorShape's tag 6): each colour becomes `(c·a + 127) / 255`
    /// (premultiplied, rounded to nearest). A hot spot outside the image is clamped into it.
    /// - Returns: nil unless `rgba` holds exactly `width·height` pixels of a non-empty image.
    public init?(serial: UInt32, width: Int, height: Int, hotX: Int, hotY: Int, straightRGBA rgba: [UInt8]) {
        guard width > 0, height > 0, rgba.count == width * height * 4 else { return nil }
        var out = [UInt8](repeating: 0, count: rgba.count)
        for i in stride(from: 0, to: rgba.count, by: 4) {
            let a = UInt32(rgba[i + 3])
            out[i] = UInt8((UInt32(rgba[i + 2]) * a + 127) / 255)       // B
            out[i + 1] = UInt8((UInt32(rgba[i + 1]) * a + 127) / 255)   // G
            out[i + 2] = UInt8((UInt32(rgba[i]) * a + 127) / 255)       // R
            out[i + 3] = UInt8(a)
        }
        self.init(serial: serial, width: width, height: height, hotX: hotX, hotY: hotY, premultipliedARGB: out)
    }

    /// The size `scaled(by: scale)` has, without drawing it.
    public func scaledSize(by scale: Double) -> (width: Int, height: Int) {
        guard scale.isFinite, scale > 0, abs(scale - 1) > 1e-9 else { return (width, height) }
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    /// The image drawn `scale` times its size (nearest pixel; at least 1×1) — what a screen that
    /// shows the host's pictures scaled shows its pointer at — with its hot spot scaled likewise
    /// (rounded down). `scale` 1 (or not a positive number) is the image itself.
    public func scaled(by scale: Double) -> CursorImage {
        guard scale.isFinite, scale > 0, abs(scale - 1) > 1e-9 else { return self }
        let (w, h) = scaledSize(by: scale)
        var out = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            let sy = min(height - 1, Int((Double(y) + 0.5) * Double(height) / Double(h)))
            for x in 0..<w {
                let sx = min(width - 1, Int((Double(x) + 0.5) * Double(width) / Double(w)))
                let s = (sy * width + sx) * 4, d = (y * w + x) * 4
                out[d] = pixels[s]; out[d + 1] = pixels[s + 1]; out[d + 2] = pixels[s + 2]; out[d + 3] = pixels[s + 3]
            }
        }
        return CursorImage(serial: serial, width: w, height: h, hotX: Int(Double(hotX) * scale), hotY: Int(Double(hotY) * scale),
                           premultipliedARGB: out)
    }
}

/// Where a screen draws the host's pointer: the host's position (pixels of the video mode, the
/// space 0xD0 and MouseMoveAbs use) mapped through the picture's place on the screen
/// (`PlaneGeometry.place`); the way back, for a seat pointer, is `SeatVideoArea.hostPoint` (Input). Pure.
public enum CursorPlacement {
    /// The screen pixel host pixel (`x`, `y`) lands on: the pixel whose area holds the host
    /// pixel's centre, clamped to the picture.
    public static func screenPoint(x: Int32, y: Int32, videoWidth: Int, videoHeight: Int, picture: PixelRect) -> (x: Int, y: Int) {
        func map(_ v: Int32, _ video: Int, _ origin: Int, _ size: Int) -> Int {
            guard video > 0, size > 0 else { return origin }
            let p = Int(((Double(v) + 0.5) * Double(size) / Double(video)).rounded(.down))
            return origin + min(max(0, p), size - 1)
        }
        return (map(x, videoWidth, picture.x, picture.width), map(y, videoHeight, picture.y, picture.height))
    }

    /// How much larger the pointer is drawn than the host drew it: the picture's scale (its
    /// width over the video's).
    public static func scale(videoWidth: Int, picture: PixelRect) -> Double {
        videoWidth > 0 ? Double(picture.width) / Double(videoWidth) : 1
    }
}

/// The host's pointer for a screen to draw over the stream: its image and its hot spot's place in
/// pixels of the host's video mode (0xD0's space, `videoWidth` × `videoHeight`; 0 × 0: the
/// picture's size). The screen maps it through the picture's place and draws the image at the
/// picture's scale.
public struct ScreenPointer: Sendable, Equatable {
    public var image: CursorImage
    public var x: Int32, y: Int32
    public var videoWidth: Int, videoHeight: Int
    public init(image: CursorImage, x: Int32, y: Int32, videoWidth: Int = 0, videoHeight: Int = 0) {
        self.image = image; self.x = x; self.y = y; self.videoWidth = videoWidth; self.videoHeight = videoHeight
    }

    /// How much larger than the host drew it the image is drawn over `picture` (the picture's place,
    /// showing a picture `pictureWidth` wide — the video's width when `videoWidth` is 0): the
    /// picture's scale, never so large that the image outgrows `maxWidth` × `maxHeight` (what the
    /// cursor plane, the X server or the cursor surface holds).
    public func drawScale(picture: PixelRect, pictureWidth: Int, maxWidth: Int, maxHeight: Int) -> Double {
        let scale = CursorPlacement.scale(videoWidth: videoWidth > 0 ? videoWidth : pictureWidth, picture: picture)
        return min(scale, Double(maxWidth) / Double(image.width), Double(maxHeight) / Double(image.height))
    }
}
