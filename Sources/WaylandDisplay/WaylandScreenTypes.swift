import VideoFrames

/// The mode the Wayland screen lays pictures out for: the configured size × buffer scale, and
/// the output's refresh (0 when it does not say). Becomes `Screen.ScreenMode` at the seam.
public struct WaylandMode: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var refreshMilliHz: Int
    public init(width: Int, height: Int, refreshMilliHz: Int) {
        self.width = width; self.height = height; self.refreshMilliHz = refreshMilliHz
    }
    public var name: String { "\(width)x\(height)@\(refreshMilliHz > 0 ? (refreshMilliHz + 500) / 1000 : 60)" }
}

/// A canvas buffer lent for drawing the shell: XRGB8888, the whole mode, `pitch` bytes per row.
/// Valid until committed or released; never on glass while lent. A buffer keeps what was drawn
/// into it while `generation` stays the same (redraw only what changed since `index` was drawn).
public struct WaylandCanvas {
    public let id: UInt64
    public let pixels: UnsafeMutableRawPointer
    public let pitch: Int
    public let width: Int
    public let height: Int
    public let generation: Int
    public let index: Int
}

/// What changed on the screen (the runner follows it: a new mode is asked of the host).
public enum WaylandChange: Sendable, Equatable {
    case modeChanged(from: WaylandMode, to: WaylandMode)
    case outputRemoved(name: String)
    /// The compositor asked the window to close (`xdg_toplevel.close`).
    case closeRequested
    /// The connection is gone (compositor exit, protocol error): `sentence` says why.
    case lost(sentence: String)
}

/// Converts a CPU picture's visible window into XRGB8888 rows at a rectangle (scaled nearest when
/// the rectangle differs): the existing CPU path (`YUVToRGBConverter`), passed in so this target
/// needs no KMS code.
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
