import Display
import Input
import Kiosk
import WaylandDisplay

/// The Wayland backend of the `Screen` seam, opened for `--display wayland` (or auto with a
/// compositor reachable), and its seat: the compositor's keyboard and mouse into the input service.
enum WaylandBackend {
    static func open(tenBitShm: TenBitShm = .auto) throws(ScreenError) -> any Screen {
        let screen = try WaylandScreen(tenBitShm: tenBitShm)
        for notice in screen.notices { note(notice) }
        return screen
    }

    /// `RunnerConfiguration.openSeat`: the seat of a Wayland screen (nil for any other).
    static func openSeat(_ screen: any Screen, _ service: InputService) -> SeatLink? {
        guard let wayland = screen as? WaylandScreen else { return nil }
        let seat = wayland.makeSeat { event in service.seat(event) }
        for notice in seat.notices { note(notice) }
        return SeatLink(setCapture: { seat.setCapture($0) }, setPointerFree: { seat.setPointerFree($0) },
                        followMode: {
                            let g = wayland.seatGeometry
                            seat.setGeometry(surfaceWidth: g.surfaceWidth, surfaceHeight: g.surfaceHeight,
                                             panelWidth: g.panelWidth, panelHeight: g.panelHeight)
                        },
                        close: { seat.destroy() })
    }
}
