public import Input

extension X11Screen {
    /// The X server's keyboard and mouse on this screen's connection (XInput 2): every event as a
    /// `SeatEvent` to `onEvent` — in the product `InputService.seat(_:)` — on the thread that
    /// services the screen. nil when the server offers no XInput 2.2. `destroy()` before `close()`
    /// (close does it too).
    public func makeSeat(onEvent: @escaping (SeatEvent) -> Void) -> X11Seat? {
        guard connection.xinputVersion != nil else { return nil }
        let s = X11Seat(connection: connection.c, window: window, root: connection.root, xinputOpcode: connection.xinputOpcode,
                        isXwayland: connection.isXwayland, onEvent: onEvent)
        seat = s
        s.setGeometry(surfaceWidth: mode.width, surfaceHeight: mode.height, panelWidth: mode.width, panelHeight: mode.height)
        return s
    }
}
