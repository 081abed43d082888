/// How a picture whose size differs from the screen's is shown (`--scaling`, config key
/// `scaling`, the shell's settings). Both backends follow it (`PlaneGeometry.place`).
public enum PictureScaling: String, Sendable, Equatable, CaseIterable {
    /// Scaled up or down until it touches two opposite edges of the screen, its aspect ratio
    /// kept, black around it. The default: a host that streams less than the panel's mode (a
    /// capped encoder, a lower resolution chosen to save bandwidth, the first pictures before a
    /// mode change is answered) still fills the screen.
    case fit
    /// Pixel for pixel, centred on black; only a picture larger than the screen is scaled down
    /// (as `fit`). For desktops that must stay pixel-exact.
    case native

    /// The settings page's label.
    public var label: String {
        switch self {
        case .fit: "Fit the screen"
        case .native: "Native (1:1)"
        }
    }
}
