/// Pixel layouts a decoder rung hands out. Both are 4:2:0 with one luma plane and one plane of
/// interleaved Cb/Cr pairs (the layouts VA-API surfaces and KMS planes use).
public enum DecodedPixelFormat: Sendable, Equatable {
    /// 8-bit: plane 0 Y (1 byte/sample), plane 1 CbCr pairs (2 bytes per chroma position).
    case nv12
    /// 10-bit in 16-bit little-endian words, sample in the high 10 bits (low 6 bits zero):
    /// plane 0 Y (2 bytes/sample), plane 1 CbCr pairs (4 bytes per chroma position).
    case p010

    /// Bits per sample of the content (8 or 10).
    public var bitDepth: Int { self == .nv12 ? 8 : 10 }
    /// Bytes per stored sample (1 or 2).
    public var bytesPerSample: Int { self == .nv12 ? 1 : 2 }
}
