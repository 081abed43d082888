/// The part of the decoded picture to show (H.265 conformance window), in luma samples cut off
/// each edge of the `width` × `height` picture.
public struct FrameCrop: Sendable, Equatable {
    public var left: Int, right: Int, top: Int, bottom: Int
    public init(left: Int = 0, right: Int = 0, top: Int = 0, bottom: Int = 0) {
        self.left = left; self.right = right; self.top = top; self.bottom = bottom
    }
}
