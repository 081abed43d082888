/// Colour description of a picture, as code points of H.273 (= H.265 Table E.3–E.5).
public struct FrameColour: Sendable, Equatable {
    /// colour_primaries (1 = BT.709, 9 = BT.2020, 2 = unspecified).
    public var primaries: Int
    /// transfer_characteristics (1 = BT.709, 16 = SMPTE ST 2084 (PQ), 18 = HLG).
    public var transfer: Int
    /// matrix_coeffs (1 = BT.709, 9 = BT.2020 non-constant luminance).
    public var matrix: Int
    /// video_full_range_flag: true = full (0…2ⁿ−1), false = limited ("TV") range.
    public var fullRange: Bool

    public init(primaries: Int = 2, transfer: Int = 2, matrix: Int = 2, fullRange: Bool = false) {
        self.primaries = primaries; self.transfer = transfer; self.matrix = matrix; self.fullRange = fullRange
    }
}
