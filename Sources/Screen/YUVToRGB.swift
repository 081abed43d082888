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

/// NV12 / P010 → XRGB8888 on the CPU, integer arithmetic, row by row.
///
/// **Arithmetic.** With n the bit depth, limited range subtracts 16·2ⁿ⁻⁸ from Y and 128·2ⁿ⁻⁸ from
/// Cb/Cr and scales by 255/(219·2ⁿ⁻⁸) and 255/(224·2ⁿ⁻⁸); full range subtracts 0 and 2ⁿ⁻¹ and
/// scales both by 255/(2ⁿ−1) (H.273 eq. 20–25 inverted). Then
/// R = Y + 2(1−Kr)·Cr, B = Y + 2(1−Kb)·Cb, G = Y − 2Kb(1−Kb)/Kg·Cb − 2Kr(1−Kr)/Kg·Cr, Kg = 1−Kr−Kb.
/// Every product coefficient (scale folded in) is rounded to the nearest multiple of 2⁻¹⁶; each
/// channel is the 2⁻¹⁶-fixed sum plus 2¹⁵, shifted right by 16 (round half up), clamped to
/// 0…255. The result differs from the exact real formula rounded to nearest only where the exact
/// value lies within 0.01 of a .5 boundary (coefficient error ≤ 2⁻¹⁷ per unit of input).
///
/// **Chroma siting: nearest.** Output pixel (x, y) takes the chroma pair at (x/2, y/2) of the
/// 4:2:0 plane (each chroma sample covers its 2×2 luma block), as libswscale's unscaled YUV→RGB
/// paths do; no interpolation. When the picture is scaled down, luma and chroma are both sampled
/// nearest: output column dx reads source column ⌊(2·dx+1)·srcW / (2·dstW)⌋ (same for rows),
/// chroma at half that source position.
///
/// Output pixels are little-endian 32-bit words 0xFF_RR_GG_BB (`DRM_FORMAT_XRGB8888`, X = 0xFF).
public struct YUVToRGBConverter: Sendable, Equatable {
    public let matrix: YCbCrMatrix
    public let fullRange: Bool
    public let bitDepth: Int

    /// Q16 coefficients (scale folded in) and input offsets in sample units.
    public let yScale: Int32, crToR: Int32, cbToG: Int32, crToG: Int32, cbToB: Int32
    public let yOffset: Int32, chromaOffset: Int32

    /// - Precondition: `bitDepth` is 8 or 10 (other values are clamped to that range).
    public init(matrix: YCbCrMatrix, fullRange: Bool, bitDepth: Int) {
        let n = min(max(bitDepth, 8), 10)
        self.matrix = matrix; self.fullRange = fullRange; self.bitDepth = n
        let unit = Double(1 << (n - 8))
        let ys = fullRange ? 255.0 / Double((1 << n) - 1) : 255.0 / (219.0 * unit)
        let cs = fullRange ? 255.0 / Double((1 << n) - 1) : 255.0 / (224.0 * unit)
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

    /// The converter for a frame's colour description.
    public init(for frame: DecodedFrame) {
        self.init(matrix: .from(matrixCoefficients: frame.colour.matrix, height: frame.visibleHeight),
                  fullRange: frame.colour.fullRange, bitDepth: frame.pixelFormat.bitDepth)
    }

    /// One pixel, for tests and for colours outside a frame (inputs are n-bit sample values).
    @inline(__always)
    public func pixel(y: Int32, cb: Int32, cr: Int32) -> UInt32 {
        // Wrapping operators: every intermediate is below 2^26 in magnitude (|sample| < 2^10,
        // coefficients < 2^17), so nothing can wrap; they only drop the overflow checks.
        let yy = (y &- yOffset) &* yScale &+ 32768
        let u = cb &- chromaOffset, v = cr &- chromaOffset
        return pack(yy, v &* crToR, 0 &- (u &* cbToG &+ v &* crToG), u &* cbToB)
    }

    @inline(__always)
    private func pack(_ yy: Int32, _ r: Int32, _ g: Int32, _ b: Int32) -> UInt32 {
        0xFF00_0000 | clamp8((yy &+ r) >> 16) << 16 | clamp8((yy &+ g) >> 16) << 8 | clamp8((yy &+ b) >> 16)
    }

    /// min(max(v, 0), 255) without branches (video noise makes clamp branches unpredictable).
    @inline(__always)
    private func clamp8(_ v: Int32) -> UInt32 {
        let positive = v & ~(v >> 31)                       // max(v, 0)
        let saturated = positive | ((255 &- positive) >> 31)  // all ones when > 255
        return UInt32(truncatingIfNeeded: saturated) & 0xFF
    }

    /// Converts the frame's visible window into `destination` (XRGB8888 rows `pitch` bytes apart)
    /// at `rect`. When `rect` is the visible size the copy is 1:1; otherwise it is resampled
    /// nearest (see the type's comment) using `columns`, a caller-owned scratch array that is
    /// resized only when the geometry changes (no allocation per frame in steady state).
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
        if scaled {
            if columns.count != rect.width {
                columns = (0..<rect.width).map { Int32(left + (2 * $0 + 1) * sw / (2 * rect.width)) }
            }
        }
        luma.bytes.withUnsafeBytes { yBuf in
            chroma.bytes.withUnsafeBytes { cBuf in
                columns.withUnsafeBufferPointer { cols in
                    for dy in 0..<rect.height {
                        let sy = top + (scaled ? (2 * dy + 1) * sh / (2 * rect.height) : dy)
                        let out = (destination + (rect.y + dy) * pitch + rect.x * 4)
                            .assumingMemoryBound(to: UInt32.self)
                        let yRow = yBuf.baseAddress! + sy * luma.stride
                        let cRow = cBuf.baseAddress! + (sy >> 1) * chroma.stride
                        if bps == 1 {
                            if scaled {
                                scaledRow8(yRow, cRow, cols.baseAddress!, out, rect.width)
                            } else {
                                row8(yRow, cRow, left, out, sw)
                            }
                        } else {
                            if scaled {
                                scaledRow16(yRow, cRow, cols.baseAddress!, out, rect.width)
                            } else {
                                row16(yRow, cRow, left, out, sw)
                            }
                        }
                    }
                }
            }
        }
    }

    // MARK: row kernels (inputs: row starts of the luma and chroma planes; `left` in luma samples)

    /// The coefficients as locals, so the row loops keep them in registers.
    private struct Kernel {
        let yScale: Int32, crToR: Int32, cbToG: Int32, crToG: Int32, cbToB: Int32, yOffset: Int32, chromaOffset: Int32

        @inline(__always)
        func pair(_ y0: Int32, _ y1: Int32, _ cb: Int32, _ cr: Int32) -> (UInt32, UInt32) {
            let u = cb &- chromaOffset, v = cr &- chromaOffset
            let r = v &* crToR, g = 0 &- (u &* cbToG &+ v &* crToG), b = u &* cbToB
            let a = (y0 &- yOffset) &* yScale &+ 32768, c = (y1 &- yOffset) &* yScale &+ 32768
            return (Self.pack(a, r, g, b), Self.pack(c, r, g, b))
        }

        @inline(__always)
        static func pack(_ yy: Int32, _ r: Int32, _ g: Int32, _ b: Int32) -> UInt32 {
            0xFF00_0000 | clamp((yy &+ r) >> 16) << 16 | clamp((yy &+ g) >> 16) << 8 | clamp((yy &+ b) >> 16)
        }

        @inline(__always)
        static func clamp(_ v: Int32) -> UInt32 {
            let positive = v & ~(v >> 31)
            let saturated = positive | ((255 &- positive) >> 31)
            return UInt32(truncatingIfNeeded: saturated) & 0xFF
        }
    }

    private var kernel: Kernel {
        Kernel(yScale: yScale, crToR: crToR, cbToG: cbToG, crToG: crToG, cbToB: cbToB,
               yOffset: yOffset, chromaOffset: chromaOffset)
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
        let half = SIMD8<Int32>(repeating: 32768), zero = SIMD8<Int32>(), top = SIMD8<Int32>(repeating: 255)
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
            let px = SIMD8<UInt32>(truncatingIfNeeded: r &<< 16 | g &<< 8 | b) | SIMD8<UInt32>(repeating: 0xFF00_0000)
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

    @inline(__always)
    private func scaledRow8(_ yRow: UnsafeRawPointer, _ cRow: UnsafeRawPointer,
                            _ cols: UnsafePointer<Int32>, _ out: UnsafeMutablePointer<UInt32>, _ count: Int) {
        let y = yRow.assumingMemoryBound(to: UInt8.self), c = cRow.assumingMemoryBound(to: UInt8.self)
        for x in 0..<count {
            let sx = Int(cols[x]), ci = (sx >> 1) << 1
            out[x] = pixel(y: Int32(y[sx]), cb: Int32(c[ci]), cr: Int32(c[ci + 1]))
        }
    }

    @inline(__always)
    private func scaledRow16(_ yRow: UnsafeRawPointer, _ cRow: UnsafeRawPointer,
                             _ cols: UnsafePointer<Int32>, _ out: UnsafeMutablePointer<UInt32>, _ count: Int) {
        let y = yRow.assumingMemoryBound(to: UInt16.self), c = cRow.assumingMemoryBound(to: UInt16.self)
        for x in 0..<count {
            let sx = Int(cols[x]), ci = (sx >> 1) << 1
            out[x] = pixel(y: Int32(UInt16(littleEndian: y[sx]) >> 6),
                           cb: Int32(UInt16(littleEndian: c[ci]) >> 6),
                           cr: Int32(UInt16(littleEndian: c[ci + 1]) >> 6))
        }
    }
}
