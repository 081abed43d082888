import Testing
import PunktfunkSession
import Kiosk

/// What the machine makes of a display that changes: the mode it names, the sentence it says, and
/// that a running stream goes on (no effect, no phase change).
@Suite struct DisplayNewsTests {
    typealias Box = KioskMachineTests.Box

    @Test func aNewModeIsNamedAndSaidWhileTheStreamGoesOn() {
        var box = Box()
        box.streaming()
        let phase = box.phase
        let news = DisplayNews(connector: "HDMI-A-1", mode: "3840x2160@60", width: 3840, height: 2160, modeChanged: true)
        #expect(box.send(.displayChanged(news)) == [])
        #expect(box.phase == phase)
        #expect(box.machine.state.display == .glass(name: "HDMI-A-1 3840x2160@60"))
        #expect(box.machine.state.notice == "The TV changed to 3840×2160.")
    }

    @Test func aDisplayGoneKeepsTheLastModeAndSaysItWaits() {
        var box = Box()
        _ = box.start()
        let phase = box.phase
        #expect(box.send(.displayChanged(DisplayNews(connector: "HDMI-A-1", mode: nil, modeChanged: false))) == [])
        #expect(box.phase == phase)
        #expect(box.machine.state.display == .glass(name: "HDMI-A-1 1920x1080@60"))
        #expect(box.machine.state.notice == "The display on HDMI-A-1 went away; waiting for it to come back.")
        let back = DisplayNews(connector: "HDMI-A-1", mode: "1920x1080@60", width: 1920, height: 1080, modeChanged: false)
        #expect(box.send(.displayChanged(back)) == [])
        #expect(box.machine.state.notice == "The display on HDMI-A-1 is back.")
    }
}
