/// One canvas buffer lent for drawing the shell: XRGB8888 (32-bit little-endian words 0x00RRGGBB),
/// the whole screen, `pitch` bytes per row. Valid until `Screen.release(frame: id)` frees it; it
/// is never on glass while being drawn.
///
/// `generation` and `index` name the buffer: a buffer keeps what was drawn into it until the
/// generation changes, so a caller may redraw only what changed since its own last drawing there.
public struct ScreenCanvas {
    public let id: UInt64
    public let pixels: UnsafeMutableRawPointer
    public let pitch: Int
    public let width: Int
    public let height: Int
    public let generation: Int
    public let index: Int

    public init(id: UInt64, pixels: UnsafeMutableRawPointer, pitch: Int, width: Int, height: Int, generation: Int, index: Int) {
        self.id = id; self.pixels = pixels; self.pitch = pitch; self.width = width; self.height = height
        self.generation = generation; self.index = index
    }
}
