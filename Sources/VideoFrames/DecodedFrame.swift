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
    /// The decoder knows the picture is inexact (concealed: decoded from a reference it never
    /// received, or flagged by the decoder); false says nothing went wrong that it could see.
    public var damaged: Bool

    public init(pts: Int64, width: Int, height: Int, crop: FrameCrop, pixelFormat: DecodedPixelFormat,
                planes: [FramePlane], colour: FrameColour, hdr: HDRStaticMetadata? = nil, damaged: Bool = false) {
        self.pts = pts; self.width = width; self.height = height; self.crop = crop
        self.pixelFormat = pixelFormat; self.planes = planes; self.colour = colour; self.hdr = hdr
        self.damaged = damaged
    }

    /// Visible size in luma samples.
    public var visibleWidth: Int { max(0, width - crop.left - crop.right) }
    public var visibleHeight: Int { max(0, height - crop.top - crop.bottom) }
}
