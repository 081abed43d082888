public import Input
import Screen

extension WaylandScreen {
    /// The compositor's seat on this screen's connection (keyboard and mouse under a compositor;
    /// issue 20, item 3): every event as a `SeatEvent` to `onEvent` — in the product
    /// `InputService.seat(_:)` — on the thread that services the screen. Streaming:
    /// `seat.setCapture(true)` beside `setStreaming(true)`; on a mode change
    /// `seat.setGeometry(...)` with `seatGeometry`. `seat.destroy()` before `close()`.
    public func makeSeat(onEvent: @escaping (SeatEvent) -> Void) -> WaylandSeat {
        let seat = WaylandSeat(onEvent: onEvent)
        seat.attach(display: connection.display, queue: connection.queue)
        if let compositor = connection.compositor, let shm = connection.shm { seat.cursorMaker = (compositor, shm) }
        self.seat = seat
        let g = seatGeometry
        seat.setGeometry(surfaceWidth: g.surfaceWidth, surfaceHeight: g.surfaceHeight,
                         panelWidth: g.panelWidth, panelHeight: g.panelHeight)
        return seat
    }

    /// The seat hears where a `width` × `height` picture is on the panel (`place`, panel pixels;
    /// nil: no stream on glass) when that changed.
    func tellSeat(_ place: PixelRect?, width: Int = 0, height: Int = 0) {
        let area = place.map { SeatVideoArea(x: $0.x, y: $0.y, width: $0.width, height: $0.height, videoWidth: width, videoHeight: height) }
        guard area != seatVideoArea else { return }
        seatVideoArea = area
        seat?.setVideoArea(area)
    }

    /// The surface's logical size (as configured) and the mode in pixels: what
    /// `WaylandSeat.setGeometry` scales absolute pointer positions between.
    public var seatGeometry: (surfaceWidth: Int, surfaceHeight: Int, panelWidth: Int, panelHeight: Int) {
        (layout.logicalWidth, layout.logicalHeight, layout.pixelWidth, layout.pixelHeight)
    }
}
