/// One canvas buffer lent for drawing: XRGB8888 (32-bit little-endian words 0x00RRGGBB), the
/// whole mode, `pitch` bytes per row. Valid until `Presenter.release(frame: id)` frees it; it is
/// never scanned out while being drawn (it is neither on screen nor queued when lent).
///
/// `generation` and `index` name the buffer: a buffer keeps what was drawn into it until the
/// generation changes, so a caller may redraw only what changed since its own last drawing there.
public struct CanvasBuffer {
    public let id: UInt64
    public let pixels: UnsafeMutableRawPointer
    public let pitch: Int
    public let width: Int
    public let height: Int
    public let generation: Int
    public let index: Int
}
