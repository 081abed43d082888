import Screen
import VideoFrames

/// Converts a CPU picture's visible window into XRGB8888 rows at a rectangle (scaled nearest when
/// the rectangle differs). nil at `WaylandScreen.init`: `YUVToRGBConverter` (the KMS path's
/// own CPU conversion, from `Screen`).
public typealias PictureConversion = @Sendable (_ frame: DecodedFrame, _ destination: UnsafeMutableRawPointer, _ pitch: Int,
                                      _ x: Int, _ y: Int, _ width: Int, _ height: Int) throws -> Void

/// Whether the CPU pictures of a 10-bit stream go to the compositor as 10-bit wl_shm buffers
/// (XRGB2101010, else XBGR2101010) instead of XRGB8888 (`--wayland-10bit`).
public enum TenBitShm: String, Sendable, CaseIterable {
    /// When the compositor lists one of the two formats and composites on a GPU, which it shows by
    /// offering linux-dmabuf. A software compositor composites in 8 bits, so 10-bit buffers gain
    /// nothing there — and weston 10's pixman renderer lists both formats yet shows such buffers
    /// black (measured headless, Tests/wayland).
    case auto
    /// Whenever the compositor lists one of the two formats.
    case on
    /// Never: XRGB8888 always.
    case off

    /// The wl_shm format and pixel layout for 10-bit pictures: nil = XRGB8888.
    /// - Parameters:
    ///   - shmFormats: the compositor's `wl_shm.format` codes.
    ///   - composited: the compositor offers linux-dmabuf.
    public func layout(shmFormats: Set<UInt32>, composited: Bool) -> (format: UInt32, layout: RGBLayout)? {
        guard self == .on || (self == .auto && composited) else { return nil }
        if shmFormats.contains(Self.xrgb2101010) { return (Self.xrgb2101010, .xrgb2101010) }
        if shmFormats.contains(Self.xbgr2101010) { return (Self.xbgr2101010, .xbgr2101010) }
        return nil
    }

    /// `wl_shm.format` codes: the DRM fourccs 'XR30' and 'XB30' (only ARGB8888 and XRGB8888 have
    /// the small codes 0 and 1).
    public static let xrgb2101010: UInt32 = 0x3033_5258
    public static let xbgr2101010: UInt32 = 0x3033_4258
}

/// Counts for the JSON stats.
public struct WaylandStats: Sendable, Equatable {
    /// Every commit of a picture or a canvas, whether or not the compositor reports on it.
    public var committed: UInt64 = 0
    /// The compositor's own answers (wp_presentation); all zero without it.
    public var presentation = PresentationLedger.Stats()
    /// Video commits through wl_shm (CPU conversion) and through linux-dmabuf.
    public var shmFrames: UInt64 = 0
    public var dmabufFrames: UInt64 = 0
    /// Of `shmFrames`, the 10-bit pictures shown as 10-bit buffers (their depth kept).
    public var shmDeepFrames: UInt64 = 0
    /// Pictures dropped because every shm buffer was still held by the compositor.
    public var noFreeBuffer: UInt64 = 0
    /// Pictures that could not be shown at all (an unlisted dma-buf format, no conversion).
    public var refused: UInt64 = 0
    /// CPU conversion time, ns: sum and count (mean = sum / shmFrames).
    public var convertNsSum: UInt64 = 0
    public var convertNsMax: UInt64 = 0
    /// Whether the compositor says the surface is not shown now (a frame callback withheld for a
    /// second with nothing presented; `VisibilityWatch`).
    public var hidden = false
}
