import VideoFrames

/// One frame from a source, numbered in output order.
public struct SourcedFrame: Sendable {
    public var frame: DecodedPicture
    /// Output index over all passes (the pacer id and the flip log's `frame`).
    public var index: UInt64
    /// Index within its pass and whether that pass is the first (checkpoints use first-pass
    /// indices).
    public var indexInPass: Int
    public var firstPass: Bool

    public init(frame: DecodedPicture, index: UInt64, indexInPass: Int, firstPass: Bool) {
        self.frame = frame; self.index = index; self.indexInPass = indexInPass; self.firstPass = firstPass
    }
}
