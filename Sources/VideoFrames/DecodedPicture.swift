/// A picture from any decoder rung: GPU memory from the VA-API rung, CPU planes from the
/// libavcodec rung. Both carry pts, colour (per picture, from the SPS VUI) and the crop window.
public enum DecodedPicture: Sendable {
    case dmaBuf(DMABufFrame)
    case cpu(DecodedFrame)

    public var pts: Int64 {
        switch self { case .dmaBuf(let f): f.pts; case .cpu(let f): f.pts }
    }
    public var width: Int {
        switch self { case .dmaBuf(let f): f.width; case .cpu(let f): f.width }
    }
    public var height: Int {
        switch self { case .dmaBuf(let f): f.height; case .cpu(let f): f.height }
    }
    public var crop: FrameCrop {
        switch self { case .dmaBuf(let f): f.crop; case .cpu(let f): f.crop }
    }
    public var colour: FrameColour {
        switch self { case .dmaBuf(let f): f.colour; case .cpu(let f): f.colour }
    }
    public var pixelFormat: DecodedPixelFormat {
        switch self { case .dmaBuf(let f): f.pixelFormat; case .cpu(let f): f.pixelFormat }
    }

    /// The decoder knows the picture is inexact (see `DecodedFrame.damaged`).
    public var damaged: Bool {
        switch self { case .dmaBuf(let f): f.damaged; case .cpu(let f): f.damaged }
    }

    /// Gives a GPU picture's surface back to its decoder (no-op for CPU pictures).
    public func release() {
        if case .dmaBuf(let f) = self { f.lease.release() }
    }
}
