#if canImport(Glibc)
import Glibc
#endif

/// One rendered overlay: ARGB8888 premultiplied (DRM `AR24`: 32-bit little-endian words
/// 0xAARRGGBB, i.e. bytes B, G, R, A), `width × 4` bytes per row, placed at (`x`, `y`) on the CRTC.
/// `generation` increases with every new rendering (equal generations = equal pixels).
public struct OverlayImage: Sendable, Equatable {
    public var width: Int, height: Int
    public var x: Int, y: Int
    public var pixels: [UInt8]
    public var generation: UInt64

    public init(width: Int, height: Int, x: Int, y: Int, pixels: [UInt8], generation: UInt64) {
        precondition(pixels.count == width * height * 4, "pixels must be width*height*4 bytes")
        self.width = width; self.height = height; self.x = x; self.y = y
        self.pixels = pixels; self.generation = generation
    }

    public var rect: PixelRect { PixelRect(x: x, y: y, width: width, height: height) }

    /// Blends the image over an XRGB8888 buffer of `bufferWidth × bufferHeight` (`pitch` bytes per
    /// row): `out = src + dst·(255 − α)/255` per channel, rounded to nearest. Pixels outside
    /// `video` count as black underneath (they hold whatever an earlier blend left, so they are
    /// recomputed from black rather than read). Only the image's rectangle, clipped to the
    /// buffer, is touched; X bytes are written as 0xFF.
    public func blend(into base: UnsafeMutableRawPointer, pitch: Int, bufferWidth: Int, bufferHeight: Int, video: PixelRect) {
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(bufferWidth, x + width), y1 = min(bufferHeight, y + height)
        guard x0 < x1, y0 < y1 else { return }
        pixels.withUnsafeBufferPointer { src in
            for row in y0..<y1 {
                let d = (base + row * pitch).assumingMemoryBound(to: UInt8.self)
                let s = (row - y) * width * 4
                let rowInVideo = row >= video.y && row < video.y + video.height
                for col in x0..<x1 {
                    let si = s + (col - x) * 4, di = col * 4
                    let a = Int(src[si + 3]), keep = 255 - a
                    let inVideo = rowInVideo && col >= video.x && col < video.x + video.width
                    for c in 0..<3 {
                        let under = inVideo ? Int(d[di + c]) : 0
                        d[di + c] = UInt8(min(255, Int(src[si + c]) + (under * keep + 127) / 255))
                    }
                    d[di + 3] = 0xFF
                }
            }
        }
    }

    /// Writes the image for a test harness: the ASCII header `PFOVERLAY W H X Y\n`, then the
    /// pixels as stored (W·H·4 bytes, rows top to bottom). - Returns: false when it cannot be written.
    @discardableResult
    public func dump(to path: String) -> Bool {
        guard let f = fopen(path, "wb") else { return false }
        defer { fclose(f) }
        let header = Array("PFOVERLAY \(width) \(height) \(x) \(y)\n".utf8)
        guard fwrite(header, 1, header.count, f) == header.count else { return false }
        return pixels.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) } == pixels.count
    }
}
