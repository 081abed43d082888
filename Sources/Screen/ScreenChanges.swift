/// What a windowed screen (Wayland, X11) reports from one batch of events. Pure.
public enum ScreenChanges {
    /// Mode changes coalesced into one, from the first `from` to the last `to` (none when they
    /// are equal), after the other changes in their order: a compositor or window manager may pass
    /// through intermediate states within one batch (sway 1.7 on a scale change: the new scale at
    /// the old logical size, then the new size), and the host must hear only where it ended.
    public static func coalesced(_ changes: [ScreenChange]) -> [ScreenChange] {
        var out: [ScreenChange] = []
        var firstFrom: ScreenMode?
        var last: (output: String, to: ScreenMode)?
        for c in changes {
            if case .modeChanged(let output, let from, let to) = c {
                firstFrom = firstFrom ?? from
                last = (output, to)
            } else {
                out.append(c)
            }
        }
        if let from = firstFrom, let last, from != last.to {
            out.append(.modeChanged(output: last.output, from: from, to: last.to))
        }
        return out
    }
}
