/// What a hot-plug did to the display, as the application hears it (the runner's translation of
/// `Display.DisplayChange`).
public struct DisplayNews: Sendable, Equatable {
    /// `HDMI-A-1`.
    public var connector: String
    /// The mode on glass now, `3840x2160@60`; nil while nothing is attached.
    public var mode: String?
    /// Width and height of `mode` (0 while nothing is attached).
    public var width: Int
    public var height: Int
    /// Whether the mode differs from the one before (false: the same display or an equal one
    /// came back, or it went away).
    public var modeChanged: Bool

    public init(connector: String, mode: String?, width: Int = 0, height: Int = 0, modeChanged: Bool) {
        self.connector = connector; self.mode = mode; self.width = width; self.height = height
        self.modeChanged = modeChanged
    }

    /// The sentence for the console and a toast.
    public var sentence: String {
        guard mode != nil else { return "The display on \(connector) went away; waiting for it to come back." }
        return modeChanged ? "The TV changed to \(width)×\(height)." : "The display on \(connector) is back."
    }
}
