public import Input

extension WaylandScreen {
    /// The compositor's seat on this screen's connection (keyboard and mouse under a compositor;
    /// issue 20, item 3): every event as a `SeatEvent` to `onEvent` — in the product
    /// `InputService.seat(_:)` — on the thread that services the screen. Streaming:
    /// `seat.setCapture(true)` beside `setStreaming(true)`; on a mode change
    /// `seat.setGeometry(...)` with `seatGeometry`. `seat.destroy()` before `close()`.
    public func makeSeat(onEvent: @escaping (SeatEvent) -> Void) -> WaylandSeat {
        let seat = WaylandSeat(onEvent: onEvent)
        seat.attach(display: connection.display, queue: connection.queue)
        let g = seatGeometry
        seat.setGeometry(surfaceWidth: g.surfaceWidth, surfaceHeight: g.surfaceHeight,
                         panelWidth: g.panelWidth, panelHeight: g.panelHeight)
        return seat
    }

    /// The surface's logical size (as configured) and the mode in pixels: what
    /// `WaylandSeat.setGeometry` scales absolute pointer positions between.
    public var seatGeometry: (surfaceWidth: Int, surfaceHeight: Int, panelWidth: Int, panelHeight: Int) {
        (layout.logicalWidth, layout.logicalHeight, layout.pixelWidth, layout.pixelHeight)
    }
}
