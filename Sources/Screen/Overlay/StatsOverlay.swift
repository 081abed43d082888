/// The stats overlay of one presenting run, on the presenting thread: counts frames on glass
/// with their latency origin, closes a `StatsWindow` each second, re-renders only when the text
/// changed (at most once per second, never per frame) and hands the image to the screen
/// (`Screen.setPanel`), which shows it with the next committed frame.
public final class StatsOverlay {
    /// Names the latency origin on the overlay ("capture→glass", "ready→glass").
    public let latencyLabel: String
    /// The newest closed interval (nil before the first second).
    public private(set) var figures: StatsFigures?
    /// Renderings so far (the placeholder included).
    public private(set) var renderings = 0

    private let screen: Screen
    private let renderer: OverlayRenderer
    private let counters: () -> StatsCounters
    private let readyIsOrigin: Bool
    private var window: StatsWindow
    /// Latency origins of the last `originSlots` frame ids, by `id % originSlots` (no allocation
    /// per frame; an entry is valid only for its own id).
    private var origins = [(id: UInt64, ns: UInt64?)](repeating: (UInt64.max, nil), count: StatsOverlay.originSlots)
    static let originSlots = 64
    private var lines: [String] = []

    /// Renders the placeholder text and hands it to `screen` at once.
    /// - Parameters:
    ///   - readyIsOrigin: latency is measured from each frame's ready time (a file has no
    ///     capture time); otherwise from origins given to `noteOrigin`.
    ///   - counters: the sources' cumulative counters, read once per second on this thread.
    /// - Returns: nil when cairo cannot render (no overlay; presenting goes on).
    public init?(screen: Screen, latencyLabel: String, readyIsOrigin: Bool, nowNs: UInt64,
                 counters: @escaping () -> StatsCounters) {
        // Eleven lines: the five fixed ones, the rate, the latency split, the picture hold, the
        // audio line, the Wi-Fi link and the stalls.
        guard let r = OverlayRenderer(modeWidth: screen.mode.width, modeHeight: screen.mode.height, columns: 46, rows: 11) else { return nil }
        self.screen = screen; self.latencyLabel = latencyLabel; self.readyIsOrigin = readyIsOrigin
        self.counters = counters
        renderer = r
        window = StatsWindow(startNs: nowNs, counters: counters())
        show(StatsFigures.placeholderLines(latencyLabel: latencyLabel))
    }

    /// Frame `id`'s latency origin on the local CLOCK_MONOTONIC (nil: unknown, no sample).
    public func noteOrigin(frame id: UInt64, originNs: UInt64?) {
        guard !readyIsOrigin else { return }
        origins[Int(id % UInt64(Self.originSlots))] = (id, originNs)
    }

    /// `PresentLoop.onShown`: frame `id` reached glass at `flipNs`.
    public func shown(frame id: UInt64, flipNs: UInt64, readyNs: UInt64, nowNs: UInt64) {
        let slot = Int(id % UInt64(Self.originSlots))
        let origin = readyIsOrigin ? readyNs : (origins[slot].id == id ? origins[slot].ns : nil)
        window.frameOnGlass(flipNs: flipNs, originNs: origin)
        if let f = window.roll(nowNs: nowNs, counters: counters()) {
            figures = f
            show(f.lines(latencyLabel: latencyLabel))
        }
    }

    private func show(_ new: [String]) {
        guard new != lines, let image = renderer.render(new) else { return }
        lines = new
        renderings += 1
        screen.setPanel(image)
    }
}
