import Input
import Screen

/// Keyboards and mice that reach the kiosk through the screen — a compositor's seat — instead of
/// evdev (`Screen.keyboardsAndMiceAreTheScreens`). The executable opens it for the backend that
/// has one (`RunnerConfiguration.openSeat`); the runner only drives it, on its own thread.
public struct SeatLink {
    /// Streaming with the focus: the pointer locked with relative motion, the compositor's
    /// shortcuts inhibited. Off in the shell and the in-stream menu.
    public var setCapture: (Bool) -> Void
    /// The screen's mode changed: absolute pointer positions are scaled to the new one.
    public var followMode: () -> Void
    /// Desktop mode (true): the box draws the host's pointer as the seat's cursor and the host has
    /// not captured it, so while streaming the pointer stays free and absolute; false: locked.
    public var setPointerFree: (Bool) -> Void
    /// Lets go of the seat (releases for everything held go out first). Before `Screen.close`.
    public var close: () -> Void

    public init(setCapture: @escaping (Bool) -> Void, setPointerFree: @escaping (Bool) -> Void = { _ in },
                followMode: @escaping () -> Void, close: @escaping () -> Void) {
        self.setCapture = setCapture; self.setPointerFree = setPointerFree; self.followMode = followMode; self.close = close
    }
}
