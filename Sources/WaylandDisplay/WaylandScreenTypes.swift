import Screen
import VideoFrames

/// Converts a CPU picture's visible window into XRGB8888 rows at a rectangle (scaled nearest when
/// the rectangle differs). nil at `WaylandScreen.init`: `YUVToRGBConverter` (the KMS path's
/// own CPU conversion, from `Screen`).
public typealias PictureConversion = @Sendable (_ frame: DecodedFrame, _ destination: UnsafeMutableRawPointer, _ pitch: Int,
                                      _ x: Int, _ y: Int, _ width: Int, _ height: Int) throws -> Void

/// Counts for the JSON stats.
public struct WaylandStats: Sendable, Equatable {
    public var presentation = PresentationLedger.Stats()
    /// Video commits through wl_shm (CPU conversion) and through linux-dmabuf.
    public var shmFrames: UInt64 = 0
    public var dmabufFrames: UInt64 = 0
    /// Pictures dropped because every shm buffer was still held by the compositor.
    public var noFreeBuffer: UInt64 = 0
    /// Pictures that could not be shown at all (an unlisted dma-buf format, no conversion).
    public var refused: UInt64 = 0
    /// CPU conversion time, ns: sum and count (mean = sum / shmFrames).
    public var convertNsSum: UInt64 = 0
    public var convertNsMax: UInt64 = 0
    /// Whether the surface looks hidden now (no presentation answer for a second).
    public var hidden = false
}
