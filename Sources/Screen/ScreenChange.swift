/// What happened to the screen in use, as a backend reports it to the runner.
public enum ScreenChange: Sendable, Equatable {
    /// The output reports nothing attached (KMS connector unplugged, the Wayland output removed).
    /// Buffers stay set up; nothing is shown until it comes back.
    case disconnected(output: String)
    /// Attached again (or another display) at the same mode.
    case reconnected(output: String, mode: ScreenMode)
    /// Now at another mode (a hot-plug, a resize of the window, a new output scale): pictures
    /// are laid out anew from the next one on, and a live host is asked for `to`.
    case modeChanged(output: String, from: ScreenMode, to: ScreenMode)
    /// The screen is gone for good (the compositor closed the connection): `sentence` says why.
    case lost(sentence: String)
}
