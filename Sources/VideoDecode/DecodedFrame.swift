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

/// One CPU plane: `height` rows of `stride` bytes; the first `rowBytes` of each row are samples.
public struct FramePlane: Sendable, Equatable {
    /// Row-major bytes, `bytes.count >= stride * (height - 1) + rowBytes`.
    public var bytes: PlaneBytes
    /// Bytes from the start of one row to the next (≥ `rowBytes`).
    public var stride: Int
    /// Bytes of samples per row.
    public var rowBytes: Int
    /// Rows.
    public var height: Int

    public init(bytes: [UInt8], stride: Int, rowBytes: Int, height: Int) {
        self.init(bytes: PlaneBytes(bytes), stride: stride, rowBytes: rowBytes, height: height)
    }

    public init(bytes: PlaneBytes, stride: Int, rowBytes: Int, height: Int) {
        self.bytes = bytes
        self.stride = stride
        self.rowBytes = rowBytes
        self.height = height
    }
}

/// The part of the decoded picture to show (H.265 conformance window), in luma samples cut off
/// each edge of the `width` × `height` picture.
public struct FrameCrop: Sendable, Equatable {
    public var left: Int, right: Int, top: Int, bottom: Int
    public init(left: Int = 0, right: Int = 0, top: Int = 0, bottom: Int = 0) {
        self.left = left; self.right = right; self.top = top; self.bottom = bottom
    }
}

/// Colour description of a picture, as code points of H.273 (= H.265 Table E.3–E.5).
public struct FrameColour: Sendable, Equatable {
    /// colour_primaries (1 = BT.709, 9 = BT.2020, 2 = unspecified).
    public var primaries: Int
    /// transfer_characteristics (1 = BT.709, 16 = SMPTE ST 2084 (PQ), 18 = HLG).
    public var transfer: Int
    /// matrix_coeffs (1 = BT.709, 9 = BT.2020 non-constant luminance).
    public var matrix: Int
    /// video_full_range_flag: true = full (0…2ⁿ−1), false = limited ("TV") range.
    public var fullRange: Bool

    public init(primaries: Int = 2, transfer: Int = 2, matrix: Int = 2, fullRange: Bool = false) {
        self.primaries = primaries; self.transfer = transfer; self.matrix = matrix; self.fullRange = fullRange
    }
}

/// A decoded picture, the one frame type every decoder rung produces.
///
/// Invariants: `planes.count == 2` (luma, interleaved chroma); the luma plane has `height` rows
/// of `width` samples, the chroma plane `(height + 1) / 2` rows of `(width + 1) / 2` pairs;
/// `crop` lies inside `width` × `height`.
public struct DecodedFrame: Sendable, Equatable {
    /// Presentation timestamp as handed to the decoder with the access unit (caller's units).
    public var pts: Int64
    /// Decoded picture size in luma samples (before `crop`).
    public var width: Int
    public var height: Int
    /// The visible window.
    public var crop: FrameCrop
    public var pixelFormat: DecodedPixelFormat
    /// CPU planes: [Y, CbCr].
    public var planes: [FramePlane]
    public var colour: FrameColour
    /// Static HDR metadata that arrived with this picture (mastering display / content light
    /// level SEI); nil when the picture carried none (the last one seen still applies).
    public var hdr: HDRStaticMetadata?

    public init(pts: Int64, width: Int, height: Int, crop: FrameCrop, pixelFormat: DecodedPixelFormat,
                planes: [FramePlane], colour: FrameColour, hdr: HDRStaticMetadata? = nil) {
        self.pts = pts; self.width = width; self.height = height; self.crop = crop
        self.pixelFormat = pixelFormat; self.planes = planes; self.colour = colour; self.hdr = hdr
    }

    /// Visible size in luma samples.
    public var visibleWidth: Int { max(0, width - crop.left - crop.right) }
    public var visibleHeight: Int { max(0, height - crop.top - crop.bottom) }
}
