/// A linear gain ramp across one period (`FrameStretch.fade`).
public enum PlayoutFade: Sendable, Equatable {
    case none
    /// 0 → 1.
    case `in`
    /// 1 → 0.
    case out
}
