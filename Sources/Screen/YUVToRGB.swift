import VideoFrames

/// The Y′CbCr → R′G′B′ matrix of a picture (H.273 matrix_coeffs), as luma weights Kr, Kb.
public enum YCbCrMatrix: Sendable, Equatable, CustomStringConvertible {
    case bt601, bt709, bt2020

    /// (Kr, Kb) from H.273 Table 4.
    public var weights: (kr: Double, kb: Double) {
        switch self {
        case .bt601: (0.299, 0.114)
        case .bt709: (0.2126, 0.0722)
        case .bt2020: (0.2627, 0.0593)
        }
    }

    /// matrix_coeffs → matrix: 1 → BT.709; 5, 6 → BT.601; 9, 10 → BT.2020; anything else
    /// (2 = unspecified, reserved) → BT.709 for HD (height > 576), BT.601 for SD — the guess
    /// libswscale and players make.
    public static func from(matrixCoefficients code: Int, height: Int) -> YCbCrMatrix {
        switch code {
        case 1: .bt709
        case 5, 6: .bt601
        case 9, 10: .bt2020
        default: height > 576 ? .bt709 : .bt601
        }
    }

    public var description: String {
        switch self { case .bt601: "BT.601"; case .bt709: "BT.709"; case .bt2020: "BT.2020" }
    }
}

/// The 32-bit RGB pixel a conversion writes (DRM fourcc names; little-endian words).
public enum RGBLayout: Sendable, Equatable, CustomStringConvertible {
    /// X:R:G:B = 8:8:8:8 bits from the top, X = 0xFF.
    case xrgb8888
    /// X:R:G:B = 2:10:10:10 bits from the top, X = 0b11.
    case xrgb2101010
    /// X:B:G:R = 2:10:10:10 bits from the top, X = 0b11.
    case xbgr2101010

    /// Bits per channel.
    public var depth: Int { self == .xrgb8888 ? 8 : 10 }

    public var description: String {
        switch self { case .xrgb8888: "XRGB8888"; case .xrgb2101010: "XRGB2101010"; case .xbgr2101010: "XBGR2101010" }
    }
}

/// NV12 / P010 → XRGB8888 (or a 10-bit layout) on the CPU, integer arithmetic, row by row.
///
/// **Arithmetic.** With n the bit depth, limited range subtracts 16·2ⁿ⁻⁸ from Y and 128·2ⁿ⁻⁸ from
/// Cb/Cr and scales by M/(219·2ⁿ⁻⁸) and M/(224·2ⁿ⁻⁸); full range subtracts 0 and 2ⁿ⁻¹ and
/// scales both by M/(2ⁿ−1) (H.273 eq. 20–25 inverted), M = 2ᵐ−1 for an m-bit output channel
/// (255 for XRGB8888, 1023 for XRGB2101010). Then
/// R = Y + 2(1−Kr)·Cr, B = Y + 2(1−Kb)·Cb, G = Y − 2Kb(1−Kb)/Kg·Cb − 2Kr(1−Kr)/Kg·Cr, Kg = 1−Kr−Kb.
/// Every product coefficient (scale folded in) is rounded to the nearest multiple of 2⁻¹⁶; each
/// channel is the 2⁻¹⁶-fixed sum plus 2¹⁵, shifted right by 16 (round half up), clamped to
/// 0…M. The result differs from the exact real formula rounded to nearest only where the exact
/// value lies within 0.01 of a .5 boundary (coefficient error ≤ 2⁻¹⁷ per unit of input).
///
/// **Chroma siting: nearest.** Output pixel (x, y) takes the chroma pair at (x/2, y/2) of the
/// 4:2:0 plane (each chroma sample covers its 2×2 luma block), as libswscale's unscaled YUV→RGB
/// paths do; no interpolation. When the picture is scaled (up or down), luma and chroma are both
/// sampled nearest: output column dx reads source column ⌊(2·dx+1)·srcW / (2·dstW)⌋ (same for
/// rows), chroma at half that source position. Scaled up, each source row is converted once (the
/// vector path, into a scratch row) and its pixels repeated; an output row that reads the same
/// source row as the one above is a copy of it.
///
/// Output pixels are little-endian 32-bit words in `output`'s layout: 0xFF_RR_GG_BB
/// (`DRM_FORMAT_XRGB8888`) by default, or 2:10:10:10 (XRGB2101010 / XBGR2101010) so a 10-bit
/// picture keeps its depth on a screen that takes it.
public struct YUVToRGBConverter: Sendable, Equatable {
    public let matrix: YCbCrMatrix
    public let fullRange: Bool
    public let bitDepth: Int
    /// The pixel written.
    public let output: RGBLayout
    /// Bits per output channel (8 or 10).
    public var outputDepth: Int { output.depth }

    /// Q16 coefficients (scale folded in) and input offsets in sample units.
    public let yScale: Int32, crToR: Int32, cbToG: Int32, crToG: Int32, cbToB: Int32
    public let yOffset: Int32, chromaOffset: Int32

    /// - Precondition: `bitDepth` is 8 or 10 (other values are clamped to that range).
    public init(matrix: YCbCrMatrix, fullRange: Bool, bitDepth: Int, output: RGBLayout = .xrgb8888) {
        let n = min(max(bitDepth, 8), 10)
        self.matrix = matrix; self.fullRange = fullRange; self.bitDepth = n
        self.output = output
        let unit = Double(1 << (n - 8)), top = Double((1 << output.depth) - 1)
        let ys = fullRange ? top / Double((1 << n) - 1) : top / (219.0 * unit)
        let cs = fullRange ? top / Double((1 << n) - 1) : top / (224.0 * unit)
        let (kr, kb) = matrix.weights
        let kg = 1 - kr - kb
        func q16(_ v: Double) -> Int32 { Int32((v * 65536).rounded()) }
        yScale = q16(ys)
        crToR = q16(2 * (1 - kr) * cs)
        cbToB = q16(2 * (1 - kb) * cs)
        cbToG = q16(2 * kb * (1 - kb) / kg * cs)
        crToG = q16(2 * kr * (1 - kr) / kg * cs)
        yOffset = fullRange ? 0 : Int32(16 << (n - 8))
        chromaOffset = Int32(1 << (n - 1))
    }

    /// The converter for a frame's colour description, writing `output` pixels.
    public init(for frame: DecodedFrame, output: RGBLayout = .xrgb8888) {
        self.init(matrix: .from(matrixCoefficients: frame.colour.matrix, height: frame.visibleHeight),
                  fullRange: frame.colour.fullRange, bitDepth: frame.pixelFormat.bitDepth, output: output)
    }

    /// One pixel, for tests and for colours outside a frame (inputs are n-bit sample values).
    @inline(__always)
    public func pixel(y: Int32, cb: Int32, cr: Int32) -> UInt32 {
        // Wrapping operators: every intermediate is below 2^28 in magnitude (a sample's offset
        // from its zero times its coefficient stays below 2^26 at either output depth), so nothing
        // can wrap; they only drop the overflow checks.
        kernel.pair(y, 0, cb, cr).0
    }

    /// Converts the frame's visible window into `destination` (32-bit pixel rows `pitch` bytes apart)
    /// at `rect`. When `rect` is the visible size the copy is 1:1; otherwise it is resampled
    /// nearest (see the type's comment) using `columns`, a caller-owned scratch array (the
    /// column map and one converted row) that is rebuilt only when the geometry changes (no
    /// allocation per frame in steady state).
    ///
    /// - Precondition: `rect` lies inside the destination buffer, whose rows are `pitch` bytes.
    /// - Throws: `ScreenError.badFrame` when the frame's planes are shorter than its geometry says.
    public func convert(_ frame: DecodedFrame, into destination: UnsafeMutableRawPointer, pitch: Int,
                        rect: PixelRect, columns: inout [Int32]) throws(ScreenError) {
        let sw = frame.visibleWidth, sh = frame.visibleHeight
        guard sw > 0, sh > 0, rect.width > 0, rect.height > 0, frame.planes.count == 2 else {
            throw .badFrame("empty picture or missing planes")
        }
        let bps = frame.pixelFormat.bytesPerSample
        let luma = frame.planes[0], chroma = frame.planes[1]
        let left = frame.crop.left, top = frame.crop.top
        // Every sample read lies inside the planes' byte arrays.
        guard left >= 0, top >= 0, left + sw <= frame.width, top + sh <= frame.height,
              luma.bytes.count >= (top + sh - 1) * luma.stride + (left + sw) * bps,
              chroma.bytes.count >= ((top + sh - 1) / 2) * chroma.stride + ((left + sw - 1) / 2 + 1) * 2 * bps
        else { throw .badFrame("planes smaller than \(frame.width)x\(frame.height) crop \(frame.crop)") }
        let scaled = rect.width != sw || rect.height != sh
        // Widening: convert each source row whole (vector path) and repeat its pixels.
        let widening = scaled && rect.width >= sw
        if scaled { Self.prepare(&columns, width: rect.width, sourceWidth: sw, left: left) }
        luma.bytes.withUnsafeBytes { yBuf in
            chroma.bytes.withUnsafeBytes { cBuf in
                columns.withUnsafeMutableBufferPointer { scratch in
                    let cols = scaled ? scratch.baseAddress! + Self.headerCount : nil
                    let rowScratch = scaled
                        ? UnsafeMutableRawPointer(scratch.baseAddress! + Self.headerCount + rect.width).assumingMemoryBound(to: UInt32.self)
                        : nil
                    var lastSy = -1
                    var lastOut: UnsafeMutablePointer<UInt32>?
                    for dy in 0..<rect.height {
                        let sy = top + (scaled ? (2 * dy + 1) * sh / (2 * rect.height) : dy)
                        let out = (destination + (rect.y + dy) * pitch + rect.x * 4)
                            .assumingMemoryBound(to: UInt32.self)
                        if sy == lastSy, let lastOut {  // the same source row as the output row above
                            out.update(from: lastOut, count: rect.width)
                            continue
                        }
                        lastSy = sy; lastOut = out
                        let yRow = yBuf.baseAddress! + sy * luma.stride
                        let cRow = cBuf.baseAddress! + (sy >> 1) * chroma.stride
                        if widening, let cols, let rowScratch {
                            if bps == 1 { row8(yRow, cRow, left, rowScratch, sw) } else { row16(yRow, cRow, left, rowScratch, sw) }
                            for x in 0..<rect.width { out[x] = rowScratch[Int(cols[x]) - left] }
                        } else if let cols {
                            if bps == 1 {
                                scaledRow8(yRow, cRow, cols, out, rect.width)
                            } else {
                                scaledRow16(yRow, cRow, cols, out, rect.width)
                            }
                        } else if bps == 1 {
                            row8(yRow, cRow, left, out, sw)
                        } else {
                            row16(yRow, cRow, left, out, sw)
                        }
                    }
                }
            }
        }
    }

    /// Scratch layout: [output width, source width, left] · column map (output width entries:
    /// the source column of each output column) · one converted source row (source width
    /// pixels, as bit patterns).
    private static let headerCount = 3

    /// (Re)builds the scratch for this geometry; untouched when it already is.
    private static func prepare(_ scratch: inout [Int32], width: Int, sourceWidth sw: Int, left: Int) {
        if scratch.count == headerCount + width + sw, scratch[0] == Int32(width), scratch[1] == Int32(sw),
           scratch[2] == Int32(left) { return }
        scratch = [Int32(width), Int32(sw), Int32(left)] + (0..<width).map { Int32(left + (2 * $0 + 1) * sw / (2 * width)) }
            + [Int32](repeating: 0, count: sw)
    }

    // MARK: row kernels (inputs: row starts of the luma and chroma planes; `left` in luma samples)

    /// The coefficients and the output packing as locals, so the row loops keep them in registers.
    private struct Kernel {
        let yScale: Int32, crToR: Int32, cbToG: Int32, crToG: Int32, cbToB: Int32, yOffset: Int32, chromaOffset: Int32
        /// The output channel's largest value (255 or 1023), where R, G and B go (bit shifts),
        /// and the X bits.
        let top: Int32, rShift: UInt32, gShift: UInt32, bShift: UInt32, alpha: UInt32

        @inline(__always)
        func pair(_ y0: Int32, _ y1: Int32, _ cb: Int32, _ cr: Int32) -> (UInt32, UInt32) {
            let u = cb &- chromaOffset, v = cr &- chromaOffset
            let r = v &* crToR, g = 0 &- (u &* cbToG &+ v &* crToG), b = u &* cbToB
            let a = (y0 &- yOffset) &* yScale &+ 32768, c = (y1 &- yOffset) &* yScale &+ 32768
            return (pack(a &+ r, a &+ g, a &+ b), pack(c &+ r, c &+ g, c &+ b))
        }

        /// Packs three Q16 channel sums (rounding offset included) into one pixel.
        @inline(__always)
        func pack(_ r: Int32, _ g: Int32, _ b: Int32) -> UInt32 {
            alpha | clamp(r >> 16) << rShift | clamp(g >> 16) << gShift | clamp(b >> 16) << bShift
        }

        /// min(max(v, 0), top) without branches (video noise makes clamp branches unpredictable).
        @inline(__always)
        func clamp(_ v: Int32) -> UInt32 {
            let positive = v & ~(v >> 31)                          // max(v, 0)
            let saturated = positive | ((top &- positive) >> 31)   // all ones when > top
            return UInt32(truncatingIfNeeded: saturated & top)
        }
    }

    private var kernel: Kernel {
        let d = UInt32(output.depth)
        return Kernel(yScale: yScale, crToR: crToR, cbToG: cbToG, crToG: crToG, cbToB: cbToB,
                      yOffset: yOffset, chromaOffset: chromaOffset, top: Int32((1 << d) - 1),
                      rShift: output == .xbgr2101010 ? 0 : 2 * d, gShift: d, bShift: output == .xbgr2101010 ? 2 * d : 0,
                      alpha: d == 10 ? 0xC000_0000 : 0xFF00_0000)
    }

    /// One unscaled row; `load(p, i)` reads sample i of a plane row (8-bit or P010).
    @inline(__always)
    private func row<S: FixedWidthInteger & SIMDScalar>(_ yRow: UnsafeRawPointer, _ cRow: UnsafeRawPointer, _ left: Int,
                                           _ out: UnsafeMutablePointer<UInt32>, _ count: Int, _: S.Type, shift: Int32) {
        let k = kernel
        let y = yRow.assumingMemoryBound(to: S.self), c = cRow.assumingMemoryBound(to: S.self)
        @inline(__always) func ld(_ p: UnsafePointer<S>, _ i: Int) -> Int32 { Int32(truncatingIfNeeded: S(littleEndian: p[i])) >> shift }
        var x = 0
        if left & 1 == 1 {  // odd crop: the first pixel is the right half of a chroma pair
            let ci = (left >> 1) << 1
            out[0] = k.pair(ld(y, left), 0, ld(c, ci), ld(c, ci + 1)).0
            x = 1
        }
        // 8 pixels at a time: sx is even, so the 8 chroma samples from sample sx are the 4 pairs
        // of these 8 pixels. Samples are loaded as little-endian lanes (the host order on every
        // Linux target this runs on).
        let bytes = MemoryLayout<S>.size
        let yRaw = UnsafeRawPointer(y), cRaw = UnsafeRawPointer(c)
        let ys = SIMD8<Int32>(repeating: k.yScale), yo = SIMD8<Int32>(repeating: k.yOffset)
        let co = SIMD8<Int32>(repeating: k.chromaOffset)
        let half = SIMD8<Int32>(repeating: 32768), zero = SIMD8<Int32>(), top = SIMD8<Int32>(repeating: k.top)
        let rShift = SIMD8<Int32>(repeating: Int32(k.rShift)), gShift = SIMD8<Int32>(repeating: Int32(k.gShift))
        let bShift = SIMD8<Int32>(repeating: Int32(k.bShift))
        let shiftV = SIMD8<Int32>(repeating: shift)
        while x + 8 <= count {
            let sx = left + x
            let yv = SIMD8<Int32>(truncatingIfNeeded: (yRaw + sx * bytes).loadUnaligned(as: SIMD8<S>.self)) &>> shiftV
            let cv = SIMD8<Int32>(truncatingIfNeeded: (cRaw + sx * bytes).loadUnaligned(as: SIMD8<S>.self)) &>> shiftV
            let u = SIMD8<Int32>(cv[0], cv[0], cv[2], cv[2], cv[4], cv[4], cv[6], cv[6]) &- co
            let v = SIMD8<Int32>(cv[1], cv[1], cv[3], cv[3], cv[5], cv[5], cv[7], cv[7]) &- co
            let yy = (yv &- yo) &* ys &+ half
            let r = pointwiseMin(pointwiseMax((yy &+ v &* k.crToR) &>> 16, zero), top)
            let g = pointwiseMin(pointwiseMax((yy &- u &* k.cbToG &- v &* k.crToG) &>> 16, zero), top)
            let b = pointwiseMin(pointwiseMax((yy &+ u &* k.cbToB) &>> 16, zero), top)
            let px = SIMD8<UInt32>(truncatingIfNeeded: r &<< rShift | g &<< gShift | b &<< bShift) | SIMD8<UInt32>(repeating: k.alpha)
            UnsafeMutableRawPointer(out + x).storeBytes(of: px, as: SIMD8<UInt32>.self)
            x += 8
        }
        while x + 1 < count {
            let sx = left + x, ci = sx  // sx is even here, so its chroma pair starts at sample sx
            let (p0, p1) = k.pair(ld(y, sx), ld(y, sx + 1), ld(c, ci), ld(c, ci + 1))
            out[x] = p0; out[x + 1] = p1
            x += 2
        }
        if x < count {
            let sx = left + x, ci = (sx >> 1) << 1
            out[x] = k.pair(ld(y, sx), 0, ld(c, ci), ld(c, ci + 1)).0
        }
    }

    @inline(__always)
    private func row8(_ yRow: UnsafeRawPointer, _ cRow: UnsafeRawPointer, _ left: Int,
                      _ out: UnsafeMutablePointer<UInt32>, _ count: Int) {
        row(yRow, cRow, left, out, count, UInt8.self, shift: 0)
    }

    @inline(__always)
    private func row16(_ yRow: UnsafeRawPointer, _ cRow: UnsafeRawPointer, _ left: Int,
                       _ out: UnsafeMutablePointer<UInt32>, _ count: Int) {
        // P010: little-endian words, sample in the high 10 bits.
        row(yRow, cRow, left, out, count, UInt16.self, shift: 6)
    }

    // The scaled rows stay two loops: one generic over the sample type (as `row` is) measured
    // 11.7 ms against 8.0 ms per 1080p → 720p picture (`punktfunk-bench display`).
    @inline(__always)
    private func scaledRow8(_ yRow: UnsafeRawPointer, _ cRow: UnsafeRawPointer,
                            _ cols: UnsafePointer<Int32>, _ out: UnsafeMutablePointer<UInt32>, _ count: Int) {
        let k = kernel
        let y = yRow.assumingMemoryBound(to: UInt8.self), c = cRow.assumingMemoryBound(to: UInt8.self)
        for x in 0..<count {
            let sx = Int(cols[x]), ci = (sx >> 1) << 1
            out[x] = k.pair(Int32(y[sx]), 0, Int32(c[ci]), Int32(c[ci + 1])).0
        }
    }

    @inline(__always)
    private func scaledRow16(_ yRow: UnsafeRawPointer, _ cRow: UnsafeRawPointer,
                             _ cols: UnsafePointer<Int32>, _ out: UnsafeMutablePointer<UInt32>, _ count: Int) {
        let k = kernel
        let y = yRow.assumingMemoryBound(to: UInt16.self), c = cRow.assumingMemoryBound(to: UInt16.self)
        for x in 0..<count {
            let sx = Int(cols[x]), ci = (sx >> 1) << 1
            out[x] = k.pair(Int32(UInt16(littleEndian: y[sx]) >> 6), 0,
                            Int32(UInt16(littleEndian: c[ci]) >> 6), Int32(UInt16(littleEndian: c[ci + 1]) >> 6)).0
        }
    }
}
