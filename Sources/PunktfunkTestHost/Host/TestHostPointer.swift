import PunktfunkWire

/// The test host's pointer while it forwards the cursor (`HOST_CAP_CURSOR` toward a client that
/// set `CLIENT_CAP_CURSOR`, data-plane.md §7.3): one shape, and a position the client's input
/// moves as a desktop's pointer would — MouseMove by its counts, MouseMoveAbs to its place on the
/// reference surface scaled to the mode — clamped to the mode, and sent as 0xD0 with every frame.
/// Pure.
public struct TestHostPointer: Sendable {
    /// A 16×16 opaque magenta square (straight alpha), hot spot at its top-left pixel: a colour no
    /// test picture has, so a readback finds it.
    public static let shape = CursorShape(serial: 1, width: 16, height: 16, hotX: 0, hotY: 0,
                                          rgba: Array([[UInt8]](repeating: [255, 0, 255, 255], count: 16 * 16).joined()))

    public let width: Int32, height: Int32
    public private(set) var x: Int32, y: Int32
    /// The relative-mode hint (a game captured the pointer).
    public var captured = false
    /// Moves applied (relative and absolute).
    public private(set) var moves = 0

    /// At the centre of a `width` × `height` mode.
    public init(width: Int, height: Int) {
        self.width = Int32(clamping: max(1, width)); self.height = Int32(clamping: max(1, height))
        x = self.width / 2; y = self.height / 2
    }

    public mutating func apply(_ event: InputEvent) {
        switch event.kind {
        case .mouseMove:
            x = clamp(Int64(x) + Int64(event.x), width); y = clamp(Int64(y) + Int64(event.y), height)
            moves += 1
        case .mouseMoveAbs:
            let refW = Int64(event.flags >> 16), refH = Int64(event.flags & 0xFFFF)
            guard refW > 0, refH > 0 else { return }
            x = clamp(Int64(event.x) * Int64(width) / refW, width); y = clamp(Int64(event.y) * Int64(height) / refH, height)
            moves += 1
        default:
            break
        }
    }

    /// The 0xD0 for the next frame: serial 1, visible, the hint when captured.
    public var state: CursorState {
        CursorState(serial: Self.shape.serial, flags: captured ? [.visible, .relativeHint] : [.visible], x: x, y: y)
    }

    private func clamp(_ v: Int64, _ size: Int32) -> Int32 { Int32(min(max(0, v), Int64(size) - 1)) }
}
