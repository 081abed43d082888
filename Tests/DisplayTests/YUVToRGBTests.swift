import Testing
import VideoDecode
@testable import Display
import VideoFrames

@Suite struct YUVToRGBTests {
    static let configs: [(YCbCrMatrix, Bool, Int)] = [.bt601, .bt709, .bt2020].flatMap { m in
        [false, true].flatMap { full in [8, 10].map { (m, full, $0) } }
    }

    /// The real-valued formula the converter documents (H.273 inverted), clamped to 0…`top`.
    func exact(_ m: YCbCrMatrix, full: Bool, depth n: Int, y: Int, cb: Int, cr: Int, top: Double = 255) -> (Double, Double, Double) {
        let unit = Double(1 << (n - 8))
        let yn = full ? Double(y) / Double((1 << n) - 1) : (Double(y) - 16 * unit) / (219 * unit)
        let pb = full ? (Double(cb) - Double(1 << (n - 1))) / Double((1 << n) - 1) : (Double(cb) - 128 * unit) / (224 * unit)
        let pr = full ? (Double(cr) - Double(1 << (n - 1))) / Double((1 << n) - 1) : (Double(cr) - 128 * unit) / (224 * unit)
        let (kr, kb) = m.weights
        let kg = 1 - kr - kb
        let r = yn + 2 * (1 - kr) * pr
        let b = yn + 2 * (1 - kb) * pb
        let g = yn - 2 * kb * (1 - kb) / kg * pb - 2 * kr * (1 - kr) / kg * pr
        func c(_ v: Double) -> Double { min(max(v * top, 0), top) }
        return (c(r), c(g), c(b))
    }

    func channels(_ p: UInt32, _ layout: RGBLayout = .xrgb8888) -> (Int, Int, Int) {
        let d = UInt32(layout.depth), mask = UInt32((1 << d) - 1)
        let hi = Int(p >> (2 * d) & mask), mid = Int(p >> d & mask), lo = Int(p & mask)
        return layout == .xbgr2101010 ? (lo, mid, hi) : (hi, mid, lo)
    }

    static let outputConfigs = configs.flatMap { c in [RGBLayout.xrgb8888, .xrgb2101010, .xbgr2101010].map { (c.0, c.1, c.2, $0) } }

    @Test(arguments: outputConfigs)
    func matchesTheFormulaRoundedHalfUp(_ config: (YCbCrMatrix, Bool, Int, RGBLayout)) {
        let (m, full, n, layout) = config
        let d = layout.depth
        let conv = YUVToRGBConverter(matrix: m, fullRange: full, bitDepth: n, output: layout)
        let top = Double((1 << d) - 1)
        let maxV = (1 << n) - 1, step = n == 8 ? 5 : 19
        var checked = 0, nearTies = 0
        for y in Swift.stride(from: 0, through: maxV, by: step) {
            for cb in Swift.stride(from: 0, through: maxV, by: step) {
                for cr in Swift.stride(from: 0, through: maxV, by: step) {
                    let (er, eg, eb) = exact(m, full: full, depth: n, y: y, cb: cb, cr: cr, top: top)
                    let pixel = conv.pixel(y: Int32(y), cb: Int32(cb), cr: Int32(cr))
                    if d == 8 ? pixel >> 24 != 0xFF : pixel >> 30 != 0b11 {
                        Issue.record("X bits of \(String(pixel, radix: 16)) for a \(d)-bit output")
                        return
                    }
                    let (r, g, b) = channels(pixel, layout)
                    for (e, got) in [(er, r), (eg, g), (eb, b)] {
                        let want = Int((e + 0.5).rounded(.down))
                        let tie = abs(e - e.rounded(.down) - 0.5) < 0.01
                        if tie { nearTies += 1 }
                        if tie ? abs(got - want) > 1 : got != want {
                            Issue.record("\(m) full=\(full) \(n)-bit → \(d)-bit Y\(y) Cb\(cb) Cr\(cr): \(got) vs exact \(e)")
                            return
                        }
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 10_000)
        #expect(nearTies < checked / 50)
    }

    @Test func blackAndWhiteAreExact() {
        for m in [YCbCrMatrix.bt601, .bt709, .bt2020] {
            let l8 = YUVToRGBConverter(matrix: m, fullRange: false, bitDepth: 8)
            #expect(l8.pixel(y: 16, cb: 128, cr: 128) == 0xFF00_0000)
            #expect(l8.pixel(y: 235, cb: 128, cr: 128) == 0xFFFF_FFFF)
            #expect(l8.pixel(y: 0, cb: 128, cr: 128) == 0xFF00_0000)  // below black clamps
            let f8 = YUVToRGBConverter(matrix: m, fullRange: true, bitDepth: 8)
            #expect(f8.pixel(y: 255, cb: 128, cr: 128) == 0xFFFF_FFFF)
            #expect(f8.pixel(y: 128, cb: 128, cr: 128) == 0xFF80_8080)
            let l10 = YUVToRGBConverter(matrix: m, fullRange: false, bitDepth: 10)
            #expect(l10.pixel(y: 64, cb: 512, cr: 512) == 0xFF00_0000)
            #expect(l10.pixel(y: 940, cb: 512, cr: 512) == 0xFFFF_FFFF)
            let l10to10 = YUVToRGBConverter(matrix: m, fullRange: false, bitDepth: 10, output: .xrgb2101010)
            #expect(l10to10.pixel(y: 64, cb: 512, cr: 512) == 0xC000_0000)
            #expect(l10to10.pixel(y: 940, cb: 512, cr: 512) == 0xFFFF_FFFF)
            #expect(l10to10.pixel(y: 0, cb: 512, cr: 512) == 0xC000_0000)
            // a grey keeps the two bits an 8-bit output drops: Y 500 → (500 − 64) / 876 × 1023 = 509.16
            #expect(l10to10.pixel(y: 500, cb: 512, cr: 512) == 0xC000_0000 | 509 << 20 | 509 << 10 | 509)
            #expect(l10.pixel(y: 500, cb: 512, cr: 512) == 0xFF7F_7F7F)  // 126.9 → 127 at 8 bits
            // XBGR2101010: red in the low bits — limited-range red (Y 250, Cb 409, Cr 960 at 10 bits)
            let bgr = YUVToRGBConverter(matrix: m, fullRange: false, bitDepth: 10, output: .xbgr2101010)
            let rgb = l10to10.pixel(y: 250, cb: 409, cr: 960)
            #expect(bgr.pixel(y: 250, cb: 409, cr: 960) == 0xC000_0000 | (rgb & 0x3FF) << 20 | (rgb & 0xFFC00) | (rgb >> 20 & 0x3FF))
        }
    }

    @Test func matrixFromCodePoints() {
        #expect(YCbCrMatrix.from(matrixCoefficients: 1, height: 480) == .bt709)
        #expect(YCbCrMatrix.from(matrixCoefficients: 5, height: 1080) == .bt601)
        #expect(YCbCrMatrix.from(matrixCoefficients: 6, height: 1080) == .bt601)
        #expect(YCbCrMatrix.from(matrixCoefficients: 9, height: 2160) == .bt2020)
        #expect(YCbCrMatrix.from(matrixCoefficients: 2, height: 720) == .bt709)
        #expect(YCbCrMatrix.from(matrixCoefficients: 2, height: 576) == .bt601)
    }

    /// A w×h 4:2:0 picture with distinct samples: Y = 16 + 7x + 13y, Cb = 60 + 20cx + 3cy, Cr = (200 + 247cx + 5cy) mod 256.
    func picture(width w: Int, height h: Int, depth: Int, crop: FrameCrop = FrameCrop()) -> (DecodedFrame, PlanarYUV420) {
        let cw = (w + 1) / 2, ch = (h + 1) / 2, scale = 1 << (depth - 8)
        func bytes(_ vals: [Int]) -> [UInt8] {
            depth == 8 ? vals.map { UInt8($0) } : vals.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        }
        let y = (0..<(w * h)).map { i in (16 + 7 * (i % w) + 13 * (i / w)) % 220 * scale }
        let cb = (0..<(cw * ch)).map { i in (60 + 20 * (i % cw) + 3 * (i / cw)) % 256 * scale }
        let cr = (0..<(cw * ch)).map { i in (200 + 247 * (i % cw) + 5 * (i / cw)) % 256 * scale }
        let planar = PlanarYUV420(bitDepth: depth, width: w, height: h, y: bytes(y), cb: bytes(cb), cr: bytes(cr))
        let frame = DecodedFrame(planar: planar, pts: 0, crop: crop, colour: FrameColour(primaries: 1, transfer: 1, matrix: 1))!
        return (frame, planar)
    }

    func sample(_ p: PlanarYUV420, _ plane: [UInt8], _ i: Int) -> Int32 {
        p.bitDepth == 8 ? Int32(plane[i]) : Int32(plane[2 * i]) | Int32(plane[2 * i + 1]) << 8
    }

    @Test(arguments: [8, 10])
    func nearestChromaSitingWithCrop(depth: Int) throws {
        // Odd crop: visible column 0 is source column 1, which shares chroma pair 0 with column 0.
        let (frame, planar) = picture(width: 10, height: 6, depth: depth, crop: FrameCrop(left: 1, right: 1, top: 1, bottom: 1))
        let conv = YUVToRGBConverter(for: frame)
        #expect(conv.matrix == .bt709 && conv.bitDepth == depth && !conv.fullRange)
        let W = 12, H = 8
        var out = [UInt32](repeating: 0xDEAD_BEEF, count: W * H)
        var columns: [Int32] = []
        try out.withUnsafeMutableBytes { buf in
            try conv.convert(frame, into: buf.baseAddress!, pitch: W * 4,
                             rect: PixelRect(x: 2, y: 1, width: 8, height: 4), columns: &columns)
        }
        let cw = 5
        for dy in 0..<H {
            for dx in 0..<W {
                let got = out[dy * W + dx]
                guard (2..<10).contains(dx), (1..<5).contains(dy) else {
                    #expect(got == 0xDEAD_BEEF, "outside the rect at \(dx),\(dy)")
                    continue
                }
                let sx = dx - 2 + 1, sy = dy - 1 + 1
                let want = conv.pixel(y: sample(planar, planar.y, sy * 10 + sx),
                                      cb: sample(planar, planar.cb, (sy / 2) * cw + sx / 2),
                                      cr: sample(planar, planar.cr, (sy / 2) * cw + sx / 2))
                #expect(got == want, "pixel \(dx),\(dy)")
            }
        }
        #expect(columns.isEmpty)  // unscaled: no column map
    }

    /// Rows wide enough for the 8-pixel vector path, with even and odd crops (odd = a scalar head),
    /// and widths leaving 0…7-pixel tails: every pixel must equal the scalar formula.
    @Test(arguments: [(8, RGBLayout.xrgb8888), (10, .xrgb8888), (8, .xrgb2101010), (10, .xrgb2101010), (10, .xbgr2101010)])
    func vectorRowsMatchTheScalarPixel(depth: Int, output: RGBLayout) throws {
        for (width, left, right) in [(64, 0, 0), (70, 2, 0), (72, 1, 2), (66, 3, 0), (48, 5, 4)] {
            let (frame, planar) = picture(width: width, height: 4, depth: depth,
                                          crop: FrameCrop(left: left, right: right, top: 0, bottom: 0))
            let conv = YUVToRGBConverter(for: frame, output: output)
            let vw = width - left - right, cw = (width + 1) / 2
            var out = [UInt32](repeating: 0, count: vw * 4)
            var columns: [Int32] = []
            try out.withUnsafeMutableBytes { buf in
                try conv.convert(frame, into: buf.baseAddress!, pitch: vw * 4,
                                 rect: PixelRect(x: 0, y: 0, width: vw, height: 4), columns: &columns)
            }
            for row in 0..<4 {
                for dx in 0..<vw {
                    let sx = left + dx
                    let want = conv.pixel(y: sample(planar, planar.y, row * width + sx),
                                          cb: sample(planar, planar.cb, (row / 2) * cw + sx / 2),
                                          cr: sample(planar, planar.cr, (row / 2) * cw + sx / 2))
                    #expect(out[row * vw + dx] == want, "width \(width) crop \(left) pixel \(dx),\(row)")
                }
            }
        }
    }

    @Test(arguments: [(8, RGBLayout.xrgb8888), (10, .xrgb8888), (10, .xbgr2101010)])
    func scaledDownSamplesNearest(depth: Int, output: RGBLayout) throws {
        let (frame, planar) = picture(width: 8, height: 4, depth: depth)
        let conv = YUVToRGBConverter(for: frame, output: output)
        var out = [UInt32](repeating: 0, count: 4 * 2)
        var columns: [Int32] = []
        try out.withUnsafeMutableBytes { buf in
            try conv.convert(frame, into: buf.baseAddress!, pitch: 16, rect: PixelRect(x: 0, y: 0, width: 4, height: 2),
                             columns: &columns)
        }
        // dst column dx reads floor((2dx+1)*8/8) = 2dx+1; dst row dy reads 2dy+1.
        for dy in 0..<2 {
            for dx in 0..<4 {
                let sx = 2 * dx + 1, sy = 2 * dy + 1
                let want = conv.pixel(y: sample(planar, planar.y, sy * 8 + sx),
                                      cb: sample(planar, planar.cb, (sy / 2) * 4 + sx / 2),
                                      cr: sample(planar, planar.cr, (sy / 2) * 4 + sx / 2))
                #expect(out[dy * 4 + dx] == want)
            }
        }
    }

    /// Scaled up (the widening path: each source row converted once, its pixels repeated, a
    /// repeated row copied) and mixed (wider but shorter), with an odd crop: every output pixel
    /// is the documented nearest source pixel, as the scalar formula gives it; the scratch is
    /// reused across geometries without going stale.
    @Test(arguments: [(8, RGBLayout.xrgb8888), (10, .xrgb8888), (10, .xbgr2101010)])
    func scaledUpSamplesNearest(depth: Int, output: RGBLayout) throws {
        let (frame, planar) = picture(width: 22, height: 10, depth: depth, crop: FrameCrop(left: 3, right: 1, top: 1, bottom: 2))
        let conv = YUVToRGBConverter(for: frame, output: output)
        let sw = 18, sh = 7, cw = 11
        var columns: [Int32] = []
        for (dw, dh) in [(55, 23), (36, 14), (40, 5), (18, 20), (61, 7)] {
            var out = [UInt32](repeating: 0, count: dw * dh)
            try out.withUnsafeMutableBytes { buf in
                try conv.convert(frame, into: buf.baseAddress!, pitch: dw * 4, rect: PixelRect(x: 0, y: 0, width: dw, height: dh),
                                 columns: &columns)
            }
            for dy in 0..<dh {
                for dx in 0..<dw {
                    let sx = 3 + (2 * dx + 1) * sw / (2 * dw), sy = 1 + (2 * dy + 1) * sh / (2 * dh)
                    let want = conv.pixel(y: sample(planar, planar.y, sy * 22 + sx),
                                          cb: sample(planar, planar.cb, (sy / 2) * cw + sx / 2),
                                          cr: sample(planar, planar.cr, (sy / 2) * cw + sx / 2))
                    #expect(out[dy * dw + dx] == want, "\(dw)x\(dh) pixel \(dx),\(dy)")
                }
            }
        }
    }

    @Test func shortPlanesAreATypedError() {
        var (frame, _) = picture(width: 8, height: 4, depth: 8)
        frame.planes[1].bytes = PlaneBytes(frame.planes[1].bytes.dropLast(3))
        var out = [UInt32](repeating: 0, count: 32)
        var columns: [Int32] = []
        #expect(throws: ScreenError.self) {
            try out.withUnsafeMutableBytes { buf in
                try conv(frame).convert(frame, into: buf.baseAddress!, pitch: 32, rect: PixelRect(x: 0, y: 0, width: 8, height: 4),
                                        columns: &columns)
            }
        }
    }

    func conv(_ f: DecodedFrame) -> YUVToRGBConverter { YUVToRGBConverter(for: f) }
}
