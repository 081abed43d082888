import Foundation
import Input
import Kiosk
import Screen
import X11Display

/// The X11 backend of the `Screen` seam, opened for `--display x11` (or auto with an X server
/// reachable and no compositor), and its seat: the server's keyboard and mouse (XInput 2) into
/// the input service. The window carries `STEAM_GAME` when Steam launched the kiosk, so
/// gamescope in Steam's Game Mode focuses it (`GamescopeProperties`).
enum X11Backend {
    static func open() throws(ScreenError) -> any Screen {
        let env = ProcessInfo.processInfo.environment
        let gamescope = GamescopeProperties.forWindow(environment: env,
                                                      insideGamescope: GamescopeProperties.insideGamescope(environment: env),
                                                      reaperAppID: SteamLaunchAncestry.appID())
        let screen = try X11Screen(extraProperties: gamescope.properties)
        note(gamescope.sentence)
        for notice in screen.notices { note(notice) }
        return screen
    }

    /// `RunnerConfiguration.openSeat`'s X11 half: the seat of an X11 screen (nil for any other).
    static func openSeat(_ screen: any Screen, _ service: InputService) -> SeatLink? {
        guard let x11 = screen as? X11Screen, let seat = x11.makeSeat(onEvent: { event in service.seat(event) }) else { return nil }
        for notice in seat.notices { note(notice) }
        return SeatLink(setCapture: { seat.setCapture($0) }, setPointerFree: { seat.setPointerFree($0) },
                        followMode: {
                            let m = x11.mode
                            seat.setGeometry(surfaceWidth: m.width, surfaceHeight: m.height, panelWidth: m.width, panelHeight: m.height)
                        },
                        close: { seat.destroy() })
    }
}
