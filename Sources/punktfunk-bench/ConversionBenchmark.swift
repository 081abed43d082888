import SystemClock
import VideoFrames
import Display
#if canImport(Glibc)
import Glibc
#endif

/// `punktfunk-bench display`: CPU conversion cost of the XRGB fallback path, one core, against a
/// baseline measured in the same run — `memcpy` of the same number of output bytes (the floor
/// any conversion that writes 4 bytes per pixel pays).
public enum ConversionBenchmark {
    /// Lines of figures: ms per frame (median of `frames` runs), frames/s and the ratio to the
    /// copy baseline, for 1080p NV12 and P010 unscaled and 1080p → 1280×720 scaled; and smaller
    /// pictures fitted onto 1080p (the CPU scale's budget: half a refresh).
    public static func report(frames: Int = 60) -> [String] {
        var lines: [String] = []
        let w = 1920, h = 1080
        let pitch = w * 4
        let out = UnsafeMutableRawPointer.allocate(byteCount: pitch * h, alignment: 64)
        let src = UnsafeMutableRawPointer.allocate(byteCount: pitch * h, alignment: 64)
        defer { out.deallocate(); src.deallocate() }
        memset(src, 0x5A, pitch * h)
        let copyMs = medianMs(frames) { memcpy(out, src, pitch * h) }
        lines.append("display: baseline memcpy 1920x1080x4 B: \(fmt(copyMs)) ms")
        var nv12FullMs = 0.0
        // P010 → XRGB2101010: the Wayland wl_shm path for 10-bit pictures where the compositor
        // lists that format (the same kernel, other coefficients and packing).
        for (depth, output) in [(8, RGBLayout.xrgb8888), (10, .xrgb8888), (10, .xrgb2101010)] {
            let frame = testFrame(width: w, height: h, depth: depth)
            let conv = YUVToRGBConverter(for: frame, output: output)
            var columns: [Int32] = []
            for (label, rect) in [("1920x1080 1:1", PixelRect(x: 0, y: 0, width: w, height: h)),
                                  ("-> 1280x720 scaled", PixelRect(x: 0, y: 0, width: 1280, height: 720))] {
                let ms = medianMs(frames) {
                    try? conv.convert(frame, into: out, pitch: pitch, rect: rect, columns: &columns)
                }
                if depth == 8 && rect.width == w { nv12FullMs = ms }
                lines.append("display: \(depth == 8 ? "NV12" : "P010") \(label) -> \(output): "
                             + "\(fmt(ms)) ms/frame, \(fmt(1000 / ms)) fps on one core, \(fmt(ms / copyMs))x memcpy")
            }
        }
        // Fitting a smaller picture on a 1080p screen (issue 29): the CPU scale's cost against its
        // budget of half a refresh (8.33 ms at 60 Hz), beside the 1:1 conversion above.
        for (sw, sh) in [(1280, 720), (640, 360), (960, 720)] {
            let frame = testFrame(width: sw, height: sh, depth: 8)
            let conv = YUVToRGBConverter(for: frame)
            var columns: [Int32] = []
            let rect = PlaneGeometry.place(width: sw, height: sh, screenWidth: w, screenHeight: h, scaling: .fit)!
            let ms = medianMs(frames) { try? conv.convert(frame, into: out, pitch: pitch, rect: rect, columns: &columns) }
            lines.append("display: NV12 \(sw)x\(sh) -> \(rect.width)x\(rect.height) fitted -> XRGB8888: \(fmt(ms)) ms/frame, "
                         + "\(fmt(ms / max(nv12FullMs, 0.001)))x the 1080p 1:1 conversion, \(fmt(100 * ms / 8.333))% of the 60 Hz budget")
        }
        // The stats overlay on the composited route: cairo renders at most once a second; the blend
        // runs on every frame, over the box only.
        if let renderer = OverlayRenderer(modeWidth: w, modeHeight: h) {
            let text = ["fps 59.9 | 42.1 Mb/s", "loss 0/s (0 total)", "decode 3.41 ms",
                        "capture→glass p50 21.3 p95 24.8 ms", "stats overlay benchmark"]
            var image = renderer.render(text)
            let renderMs = medianMs(frames) { image = renderer.render(text) }
            if let image {
                let blendMs = medianMs(frames) {
                    image.blend(into: out, pitch: pitch, bufferWidth: w, bufferHeight: h, video: PixelRect(x: 0, y: 0, width: w, height: h))
                }
                lines.append("display: stats overlay \(image.width)x\(image.height) at 1080p: render (cairo, ≤ once a second) "
                             + "\(fmt(renderMs)) ms; blend into XRGB \(fmt(blendMs)) ms/frame = "
                             + "\(fmt(100 * blendMs / max(nv12FullMs, 0.001)))% of the NV12 1:1 conversion")
            }
        }
        return lines
    }

    private static func medianMs(_ n: Int, _ body: () -> Void) -> Double {
        body()  // warm-up
        var times: [Double] = []
        for _ in 0..<max(1, n) {
            let t0 = MonotonicClock.nowNs()
            body()
            times.append(Double(MonotonicClock.nowNs() - t0) / 1e6)
        }
        return times.sorted()[times.count / 2]
    }

    private static func fmt(_ v: Double) -> String {
        let r = (v * 100).rounded() / 100
        return "\(r)"
    }

    /// A limited-range BT.709 picture with varied samples (so no branch is always taken).
    static func testFrame(width w: Int, height h: Int, depth: Int) -> DecodedFrame {
        let bps = depth == 8 ? 1 : 2
        var y = [UInt8](repeating: 0, count: w * h * bps)
        var c = [UInt8](repeating: 0, count: ((w + 1) / 2) * 2 * ((h + 1) / 2) * bps)
        var seed: UInt32 = 1
        func next() -> Int { seed = seed &* 1_664_525 &+ 1_013_904_223; return Int(seed >> 8) }
        for i in 0..<(w * h) {
            let v = 16 + next() % 220
            if bps == 1 { y[i] = UInt8(v) } else { let s = UInt16(v << 2) << 6; y[2 * i] = UInt8(s & 0xFF); y[2 * i + 1] = UInt8(s >> 8) }
        }
        for i in 0..<(c.count / bps) {
            let v = 16 + next() % 225
            if bps == 1 { c[i] = UInt8(v) } else { let s = UInt16(v << 2) << 6; c[2 * i] = UInt8(s & 0xFF); c[2 * i + 1] = UInt8(s >> 8) }
        }
        let planes = [FramePlane(bytes: y, stride: w * bps, rowBytes: w * bps, height: h),
                      FramePlane(bytes: c, stride: ((w + 1) / 2) * 2 * bps, rowBytes: ((w + 1) / 2) * 2 * bps, height: (h + 1) / 2)]
        return DecodedFrame(pts: 0, width: w, height: h, crop: FrameCrop(), pixelFormat: depth == 8 ? .nv12 : .p010,
                            planes: planes, colour: FrameColour(primaries: 1, transfer: 1, matrix: 1, fullRange: false))
    }
}
