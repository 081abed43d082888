/// The decision after re-reading the connector, a pure function of what was and what is.
public enum ConnectorVerdict: Sendable, Equatable {
    case unchanged
    case disconnected
    /// Connected, usable at `mode` (the same size and refresh as now, or not).
    case use(DisplayMode)
    /// Connected but offers no progressive mode: treated as not there.
    case noModes

    /// - Parameters:
    ///   - wasConnected: the connector's state as last seen.
    ///   - current: the mode the presenter drives now.
    ///   - connected/modes: the connector as re-read now (`connected` false also for a vanished id).
    ///   - request: an explicit `--mode`/config mode. It is kept while the display offers it;
    ///     only when it does not does the display's preferred mode take over.
    public static func classify(wasConnected: Bool, current: DisplayMode, connected: Bool,
                                modes: [DisplayMode], request: ModeRequest?) -> ConnectorVerdict {
        guard connected else { return wasConnected ? .disconnected : .unchanged }
        guard let chosen = ModeChoice.choose(from: modes, request: request) ?? ModeChoice.choose(from: modes, request: nil)
        else { return wasConnected ? .noModes : .unchanged }
        if wasConnected, chosen.sameTiming(as: current) { return .unchanged }
        return .use(chosen)
    }
}

extension DisplayMode {
    /// Same active size and refresh (the index into a connector's list may differ).
    public func sameTiming(as other: DisplayMode) -> Bool {
        width == other.width && height == other.height && refreshMilliHz == other.refreshMilliHz
    }
}
