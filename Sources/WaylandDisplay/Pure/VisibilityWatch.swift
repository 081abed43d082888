/// Whether the compositor says the window is not shown, from the one signal every compositor
/// gives: `wl_surface.frame` callbacks, which a server should not signal for a surface that is
/// not visible in any way (wayland.xml, `wl_surface.frame`). One callback is outstanding at a
/// time (requested with a commit when none is); hidden = it has gone unanswered for `stallNs`
/// while no `wp_presentation` feedback said presented either. Presentation feedback alone cannot
/// say it: headless sway 1.7 presents without feedback and discards commits superseded before a
/// repaint, while the picture is on screen. Pure: times are CLOCK_MONOTONIC ns passed in.
public struct VisibilityWatch: Sendable, Equatable {
    public let stallNs: UInt64
    /// When the outstanding callback was requested (nil: none outstanding).
    public private(set) var requestedNs: UInt64?
    private var presentedNs: UInt64 = 0

    public init(stallNs: UInt64 = 1_000_000_000) { self.stallNs = stallNs }

    /// A commit at `now`: whether to request a frame callback with it.
    public mutating func commit(now: UInt64) -> Bool {
        guard requestedNs == nil else { return false }
        requestedNs = now
        return true
    }

    /// The callback came back (the compositor drew, or may draw, the window).
    public mutating func frameDone() { requestedNs = nil }

    /// `wp_presentation_feedback.presented` arrived at `now`.
    public mutating func presented(now: UInt64) { presentedNs = now }

    public func isHidden(now: UInt64) -> Bool {
        guard let since = requestedNs, now > since, now - since >= stallNs else { return false }
        return presentedNs < since
    }
}
