internal import CVA
import VideoFrames
/// A 4:2:0 picture in separate Y, Cb, Cr planes without row padding — what libavcodec's
/// `yuv420p` (8-bit, 1 byte/sample) and `yuv420p10le` (10-bit, 16-bit little-endian words with
/// the sample in the low bits) hold, and what `ffmpeg -f framemd5` hashes.
///
/// Invariants: `y.count == width * height * bytesPerSample`, `cb.count == cr.count ==
/// ((width + 1) / 2) * ((height + 1) / 2) * bytesPerSample`.
public struct PlanarYUV420: Sendable, Equatable {
    /// 8 or 10.
    public var bitDepth: Int
    public var width: Int
    public var height: Int
    public var y: [UInt8]
    public var cb: [UInt8]
    public var cr: [UInt8]

    public init(bitDepth: Int, width: Int, height: Int, y: [UInt8], cb: [UInt8], cr: [UInt8]) {
        self.bitDepth = bitDepth; self.width = width; self.height = height
        self.y = y; self.cb = cb; self.cr = cr
    }

    public var bytesPerSample: Int { bitDepth > 8 ? 2 : 1 }
    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }

    /// The planes concatenated Y, Cb, Cr — the bytes ffmpeg's framemd5 hashes for this picture.
    public var packedBytes: [UInt8] { y + cb + cr }
}

extension DecodedFrame {
    /// Packs a planar picture into NV12 (8-bit) or P010 (10-bit), planes without row padding.
    /// Crop is carried as given; returns nil for a bit depth other than 8 or 10 or wrong plane sizes.
    public init?(planar p: PlanarYUV420, pts: Int64, crop: FrameCrop = FrameCrop(), colour: FrameColour = FrameColour()) {
        guard p.bitDepth == 8 || p.bitDepth == 10 else { return nil }
        let bps = p.bytesPerSample, cw = p.chromaWidth, ch = p.chromaHeight
        guard p.width > 0, p.height > 0, p.y.count == p.width * p.height * bps,
              p.cb.count == cw * ch * bps, p.cr.count == cw * ch * bps else { return nil }
        let format: DecodedPixelFormat = p.bitDepth == 8 ? .nv12 : .p010
        let planes = p.y.withUnsafeBufferPointer { yb in
            p.cb.withUnsafeBufferPointer { ub in
                p.cr.withUnsafeBufferPointer { vb in
                    YUVPacking.pack(format: format, width: p.width, height: p.height,
                                    y: yb.baseAddress!, yStride: p.width * bps,
                                    cb: ub.baseAddress!, cbStride: cw * bps,
                                    cr: vb.baseAddress!, crStride: cw * bps)
                }
            }
        }
        self.init(pts: pts, width: p.width, height: p.height, crop: crop, pixelFormat: format,
                  planes: planes, colour: colour)
    }

    /// Splits the NV12/P010 planes back into planar yuv420p / yuv420p10le.
    /// - Parameter cropped: only the visible window (`crop` applied; left/top offsets are
    ///   rounded down to even, as 4:2:0 conformance windows always are).
    public func planar(cropped: Bool = true) -> PlanarYUV420 {
        let bps = pixelFormat.bytesPerSample
        let left = cropped ? crop.left & ~1 : 0, top = cropped ? crop.top & ~1 : 0
        let w = cropped ? visibleWidth : width, h = cropped ? visibleHeight : height
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        var y = [UInt8](repeating: 0, count: w * h * bps)
        var cb = [UInt8](repeating: 0, count: cw * ch * bps)
        var cr = cb
        let lp = planes[0], cp = planes[1]
        lp.bytes.withUnsafeBytes { src in
            y.withUnsafeMutableBytes { dst in
                for row in 0..<h {
                    (dst.baseAddress! + row * w * bps).copyMemory(from: src.baseAddress! + (top + row) * lp.stride + left * bps,
                                                                  byteCount: w * bps)
                }
            }
        }
        cp.bytes.withUnsafeBytes { c in
            for row in 0..<ch {
                let base = (top / 2 + row) * cp.stride + (left / 2) * 2 * bps
                for x in 0..<cw {
                    let s = base + x * 2 * bps, d = (row * cw + x) * bps
                    if bps == 1 {
                        cb[d] = c[s]; cr[d] = c[s + 1]
                    } else {
                        let u = (UInt16(c[s]) | UInt16(c[s + 1]) << 8) >> 6
                        let v = (UInt16(c[s + 2]) | UInt16(c[s + 3]) << 8) >> 6
                        cb[d] = UInt8(u & 0xFF); cb[d + 1] = UInt8(u >> 8)
                        cr[d] = UInt8(v & 0xFF); cr[d + 1] = UInt8(v >> 8)
                    }
                }
            }
        }
        if bps == 2 {
            for i in stride(from: 0, to: y.count, by: 2) {
                let v = (UInt16(y[i]) | UInt16(y[i + 1]) << 8) >> 6
                y[i] = UInt8(v & 0xFF); y[i + 1] = UInt8(v >> 8)
            }
        }
        return PlanarYUV420(bitDepth: pixelFormat.bitDepth, width: w, height: h, y: y, cb: cb, cr: cr)
    }
}

/// Planar → semi-planar packing shared by the libavcodec rung and the array API.
enum YUVPacking {
    /// Packs planar 4:2:0 rows (8-bit, or 10-bit LE words with the sample in the low bits) into
    /// NV12 / P010 planes without row padding. Pointers must cover `stride × rows` bytes.
    static func pack(format: DecodedPixelFormat, width: Int, height: Int,
                     y: UnsafePointer<UInt8>, yStride: Int,
                     cb: UnsafePointer<UInt8>, cbStride: Int,
                     cr: UnsafePointer<UInt8>, crStride: Int) -> [FramePlane] {
        [packLuma(format: format, width: width, height: height, y: y, yStride: yStride),
         packChroma(format: format, width: width, height: height, cb: cb, cbStride: cbStride, cr: cr, crStride: crStride)]
    }

    /// Plane 0: the luma rows copied (NV12) or shifted into the high bits (P010).
    static func packLuma(format: DecodedPixelFormat, width: Int, height: Int,
                         y: UnsafePointer<UInt8>, yStride: Int) -> FramePlane {
        let bps = format.bytesPerSample, yRow = width * bps
        let luma = [UInt8](unsafeUninitializedCapacity: yRow * height) { out, n in
            let o = out.baseAddress!
            for row in 0..<height {
                let s = y + row * yStride, d = o + row * yRow
                if bps == 1 {
                    d.update(from: s, count: yRow)
                } else {
                    UnsafeMutableRawPointer(d).withMemoryRebound(to: UInt16.self, capacity: width) { d16 in
                        UnsafeRawPointer(s).withMemoryRebound(to: UInt16.self, capacity: width) { pf_pack_p010_luma_row(d16, $0, width) }
                    }
                }
            }
            n = yRow * height
        }
        return FramePlane(bytes: luma, stride: yRow, rowBytes: yRow, height: height)
    }

    /// Plane 1: Cb/Cr rows interleaved into pairs (P010: shifted into the high bits).
    static func packChroma(format: DecodedPixelFormat, width: Int, height: Int,
                           cb: UnsafePointer<UInt8>, cbStride: Int,
                           cr: UnsafePointer<UInt8>, crStride: Int) -> FramePlane {
        let bps = format.bytesPerSample
        let cw = (width + 1) / 2, ch = (height + 1) / 2, cRow = cw * 2 * bps
        let chroma = [UInt8](unsafeUninitializedCapacity: cRow * ch) { out, n in
            let o = out.baseAddress!
            for row in 0..<ch {
                let u = cb + row * cbStride, v = cr + row * crStride, d = o + row * cRow
                if bps == 1 {
                    pf_pack_nv12_chroma_row(d, u, v, cw)
                } else {
                    UnsafeMutableRawPointer(d).withMemoryRebound(to: UInt16.self, capacity: 2 * cw) { d16 in
                        UnsafeRawPointer(u).withMemoryRebound(to: UInt16.self, capacity: cw) { u16 in
                            UnsafeRawPointer(v).withMemoryRebound(to: UInt16.self, capacity: cw) { pf_pack_p010_chroma_row(d16, u16, $0, cw) }
                        }
                    }
                }
            }
            n = cRow * ch
        }
        return FramePlane(bytes: chroma, stride: cRow, rowBytes: cRow, height: ch)
    }
}
