import Foundation
import Testing
import Input
import PunktfunkWire

/// The shell route: key codes, pad buttons, the stick and the mouse → navigation; the routes
/// never let a press begun in one act in the other; the host holds nothing while the shell has
/// the input.
@Suite struct NavigationMapperTests {
    final class Heard {
        var events: [NavigationEvent] = []
        func take() -> [NavigationEvent] { defer { events = [] }; return events }
        /// Only the key presses and releases (no `.deviceUsed`).
        func keys() -> [NavigationEvent] { take().filter { if case .deviceUsed = $0 { false } else { true } } }
    }

    func mapper() -> (NavigationMapper, Heard) {
        let m = NavigationMapper(), heard = Heard()
        m.onEvent = { heard.events.append($0) }
        return (m, heard)
    }

    func press(_ m: NavigationMapper, _ device: Int, _ code: UInt16, _ down: Bool) {
        m.handle(device: device, type: EV.key, code: code, value: down ? 1 : 0)
        m.handle(device: device, type: EV.syn, code: EV.synReport, value: 0)
    }

    func tap(_ m: NavigationMapper, _ device: Int, _ code: UInt16) { press(m, device, code, true); press(m, device, code, false) }

    func stick(_ m: NavigationMapper, _ device: Int, x: Int32 = 0, y: Int32 = 0) {
        m.handle(device: device, type: EV.abs, code: EV.absX, value: x)
        m.handle(device: device, type: EV.abs, code: EV.absY, value: y)
        m.handle(device: device, type: EV.syn, code: EV.synReport, value: 0)
    }

    @Test func keyboardCodesMapToNavigationAndUSCharacters() {
        let (m, heard) = mapper()
        m.add(device: 1, role: .keyboard)
        tap(m, 1, 103)   // up
        #expect(heard.take() == [.deviceUsed(.keyboard), .key(.up, pressed: true, from: .keyboard), .key(.up, pressed: false, from: .keyboard)])
        for (code, key) in [(UInt16(108), NavigationKey.down), (105, .left), (106, .right), (28, .confirm), (96, .confirm),
                            (1, .back), (14, .erase), (59, .menu), (139, .menu), (127, .menu)] {
            press(m, 1, code, true)
            #expect(heard.keys() == [.key(key, pressed: true, from: .keyboard)], "code \(code)")
            press(m, 1, code, false)
            _ = heard.take()
        }
        // An address: 192.168.1.20:9777 and host_name-[x]
        let typed: [(UInt16, Bool)] = [(2, false), (10, false), (3, false), (52, false), (39, true), (12, false), (12, true),
                                       (26, false), (27, false), (35, false), (35, true), (11, false), (79, false), (83, false)]
        var chars: [Character] = []
        for (code, shifted) in typed {
            if shifted { press(m, 1, 42, true) }
            press(m, 1, code, true)
            for case .key(.character(let c), true, _) in heard.take() { chars.append(c) }
            press(m, 1, code, false)
            if shifted { press(m, 1, 42, false) }
            _ = heard.take()
        }
        #expect(String(chars) == "192.:-_[]hH01.")
    }

    @Test func ctrlAltFunctionKeysSwitchConsolesAndModifiedLettersTypeNothing() {
        let (m, heard) = mapper()
        m.add(device: 1, role: .keyboard)
        press(m, 1, 29, true); press(m, 1, 56, true)
        press(m, 1, 60, true)   // F2
        #expect(heard.take() == [.deviceUsed(.keyboard), .switchConsole(2)])
        press(m, 1, 60, false)
        press(m, 1, 88, true)   // F12
        #expect(heard.take() == [.switchConsole(12)])
        press(m, 1, 88, false)
        press(m, 1, 56, false)
        press(m, 1, 30, true)   // Ctrl+A
        #expect(heard.take().isEmpty)
    }

    @Test func padButtonsAndDpadMapAndTheFamilyFollowsTheKind() {
        let (m, heard) = mapper()
        m.add(device: 1, role: xboxPad())
        for (code, key) in [(EV.btnSouth, NavigationKey.confirm), (EV.btnEast, .back), (EV.btnNorth, .erase), (EV.btnStart, .menu),
                            (EV.btnDpadUp, .up)] {
            press(m, 1, code, true)
            #expect(heard.keys() == [.key(key, pressed: true, from: .xboxPad)], "code \(code)")
            press(m, 1, code, false)
            #expect(heard.keys() == [.key(key, pressed: false, from: .xboxPad)])
        }
        m.handle(device: 1, type: EV.abs, code: EV.absHat0X, value: -1)
        m.handle(device: 1, type: EV.syn, code: EV.synReport, value: 0)
        #expect(heard.keys() == [.key(.left, pressed: true, from: .xboxPad)])
        m.add(device: 2, role: xboxPad(uniq: "ps", kind: .dualSense))
        press(m, 2, EV.btnSouth, true)
        #expect(heard.take() == [.deviceUsed(.playStationPad), .key(.confirm, pressed: true, from: .playStationPad)])
    }

    @Test func theStickHasADeadzoneAndHysteresis() {
        let (m, heard) = mapper()
        m.add(device: 1, role: xboxPad())
        stick(m, 1, x: 14_000)                          // under the press threshold (~43 %)
        #expect(heard.keys().isEmpty)
        stick(m, 1, x: 18_000)                          // past it
        #expect(heard.keys() == [.key(.right, pressed: true, from: .xboxPad)])
        stick(m, 1, x: 12_000)                          // between the thresholds: still held
        stick(m, 1, x: 15_000)
        #expect(heard.keys().isEmpty)
        stick(m, 1, x: 9_000)                           // under the release threshold
        #expect(heard.keys() == [.key(.right, pressed: false, from: .xboxPad)])
        stick(m, 1, y: -20_000)                         // evdev Y grows downwards: this is up
        #expect(heard.keys() == [.key(.up, pressed: true, from: .xboxPad)])
        stick(m, 1, y: 20_000)
        #expect(heard.keys() == [.key(.up, pressed: false, from: .xboxPad), .key(.down, pressed: true, from: .xboxPad)])
    }

    @Test func aPressBegunInTheHostRouteIsIgnoredUntilReleased() {
        let (m, heard) = mapper()
        m.add(device: 1, role: .keyboard)
        m.add(device: 2, role: xboxPad())
        m.setRoute(.host)
        press(m, 1, 28, true)
        press(m, 2, EV.btnSouth, true)
        #expect(heard.keys().isEmpty, "nothing reaches the shell in the host route")
        m.setRoute(.shell)
        press(m, 1, 28, false)
        press(m, 2, EV.btnSouth, false)
        #expect(heard.keys().isEmpty, "a release whose press was the host's is not the shell's")
        press(m, 2, EV.btnSouth, true)
        #expect(heard.keys() == [.key(.confirm, pressed: true, from: .xboxPad)])
    }

    @Test func leavingTheShellReleasesWhatItHeldAndTheLaterReleaseIsNotSeenTwice() {
        let (m, heard) = mapper()
        m.add(device: 1, role: xboxPad())
        m.add(device: 2, role: .keyboard)
        press(m, 1, EV.btnDpadDown, true)
        press(m, 2, 106, true)
        _ = heard.take()
        m.setRoute(.host)
        #expect(Set(heard.keys().map { "\($0)" }) == Set([NavigationEvent.key(.down, pressed: false, from: .xboxPad),
                                                            .key(.right, pressed: false, from: .keyboard)].map { "\($0)" }))
        m.setRoute(.shell)
        press(m, 1, EV.btnDpadDown, false)
        press(m, 2, 106, false)
        #expect(heard.keys().isEmpty)
    }

    @Test func aPadButtonDownAtStartIsNeverAPress() {
        let (m, heard) = mapper()
        m.add(device: 1, role: xboxPad())
        m.handle(device: 1, type: EV.key, code: EV.btnSouth, value: 1)
        m.seedFrame(device: 1)
        press(m, 1, EV.btnSouth, false)
        #expect(heard.keys().isEmpty)
    }

    @Test func theMouseMovesClicksGoesBackAndScrolls() {
        let (m, heard) = mapper()
        m.add(device: 1, role: .keyboard)
        tap(m, 1, 103)
        m.add(device: 3, role: .mouse)
        m.handle(device: 3, type: EV.rel, code: EV.relX, value: 5)
        m.handle(device: 3, type: EV.rel, code: EV.relX, value: 7)
        m.handle(device: 3, type: EV.rel, code: EV.relY, value: -2)
        m.handle(device: 3, type: EV.syn, code: EV.synReport, value: 0)
        #expect(heard.take().last == .pointerMoved(dx: 12, dy: -2))
        press(m, 3, EV.btnLeft, true)
        #expect(heard.take() == [.click(pressed: true)], "a mouse keeps the glyphs of the keyboard before it")
        press(m, 3, EV.btnLeft, false)
        press(m, 3, EV.btnRight, true)
        #expect(heard.take() == [.click(pressed: false), .key(.back, pressed: true, from: .mouse)])
        press(m, 3, EV.btnRight, false)
        _ = heard.take()
        m.handle(device: 3, type: EV.rel, code: EV.relWheel, value: -2)
        m.handle(device: 3, type: EV.syn, code: EV.synReport, value: 0)
        #expect(heard.take() == [.key(.down, pressed: true, from: .mouse), .key(.down, pressed: false, from: .mouse),
                                 .key(.down, pressed: true, from: .mouse), .key(.down, pressed: false, from: .mouse)])
    }

    @Test func anAbsolutePointerPlacesTheShellsPointerAndItsTouchClicks() {
        let (m, heard) = mapper()
        m.add(device: 6, role: .absolutePointer(x: AxisRange(minimum: 0, maximum: 32767), y: AxisRange(minimum: 0, maximum: 32767)))
        for (c, v) in [(EV.absX, Int32(32767)), (EV.absY, Int32(8192))] { m.handle(device: 6, type: EV.abs, code: c, value: v) }
        m.handle(device: 6, type: EV.syn, code: EV.synReport, value: 0)
        press(m, 6, EV.btnTouch, true)
        press(m, 6, EV.btnTouch, false)
        press(m, 6, EV.btnStylus, true)
        #expect(heard.keys() == [.pointerPlaced(x: 1, y: 8192.0 / 32767), .click(pressed: true), .click(pressed: false),
                                 .key(.back, pressed: true, from: .mouse)])
        m.setRoute(.host)   // the press made in the shell is released on the way out
        m.handle(device: 6, type: EV.abs, code: EV.absX, value: 0)
        m.handle(device: 6, type: EV.syn, code: EV.synReport, value: 0)
        #expect(heard.keys() == [.key(.back, pressed: false, from: .mouse)])
    }
}

/// The host route's side of switching: the host holds nothing while the shell has the input,
/// presses made for the shell never reach it, and the escape chord only fires for the host.
@Suite struct HostRouteSwitchTests {
    @Test func leavingForTheShellReleasesHeldKeysAndSendsNothingMore() {
        let sink = RecordingSink()
        let m = InputMapper(sink: sink)
        m.setPolicy(InputPolicy())
        m.add(device: 1, role: .keyboard)
        m.key(1, 30, true)
        _ = sink.take()
        m.leaveForShell()
        #expect(sink.events == [.keyUp(vk: 0x41)])
        #expect(m.held.isEmpty)
        _ = sink.take()
        m.key(1, 30, false)
        m.key(1, 31, true)
        #expect(sink.take().isEmpty, "nothing reaches the host from the shell")
        m.returnFromShell()
        m.key(1, 31, false)
        #expect(sink.take().isEmpty, "the release of a key pressed in the shell is not sent")
        m.key(1, 31, true)
        #expect(sink.events == [.keyDown(vk: 0x53)])
    }

    @Test func padButtonsPressedForTheShellAreHeldBackUntilReleased() {
        let sink = RecordingSink()
        let m = InputMapper(sink: sink)
        m.setPolicy(InputPolicy(gamepadSnapshots: true))
        m.add(device: 1, role: xboxPad())
        m.leaveForShell()
        _ = sink.take()
        m.key(1, EV.btnSouth, true)   // A pressed in the shell ("Connect")
        m.returnFromShell()
        m.key(1, EV.btnEast, true)
        #expect(m.held.pads[0].buttons == .b, "A stays the shell's")
        m.key(1, EV.btnSouth, false)
        m.key(1, EV.btnSouth, true)
        #expect(m.held.pads[0].buttons == [.a, .b])
    }

    @Test func theEscapeChordFiresOnlyForTheHost() {
        let m = InputMapper(sink: RecordingSink())
        var fired = 0
        m.onEscape = { fired += 1 }
        m.setPolicy(InputPolicy())
        m.add(device: 1, role: .keyboard)
        m.leaveForShell()
        for code: UInt16 in [29, 56, 42, 16] { m.key(1, code, true) }
        for code: UInt16 in [16, 42, 56, 29] { m.key(1, code, false) }
        #expect(fired == 0)
        m.returnFromShell()
        for code: UInt16 in [29, 56, 42, 16] { m.key(1, code, true) }
        for code: UInt16 in [16, 42, 56, 29] { m.key(1, code, false) }
        #expect(fired == 1)
    }

    @Test func batteryComesFromTheHIDDevicesPowerSupply() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-battery-\(getpid())")
        let supply = dir.appendingPathComponent("power_supply/ps-controller-battery-aa")
        try FileManager.default.createDirectory(at: supply, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "73\n".write(to: supply.appendingPathComponent("capacity"), atomically: true, encoding: .utf8)
        try "Charging\n".write(to: supply.appendingPathComponent("status"), atomically: true, encoding: .utf8)
        let r = PadBattery.read(hidDevice: dir.path)
        #expect(r.percent == 73 && r.charging == true)
        #expect(PadBattery.read(hidDevice: dir.path + "/nothing").percent == nil)
        #expect(PadBattery.charging(status: "Discharging") == false)
        #expect(PadBattery.charging(status: "Unknown") == nil)
    }
}

extension HostRouteSwitchTests {
    @Test func aPadArrivingWhileTheShellHasTheInputIsAnnouncedWhenTheHostGetsIt() {
        let sink = RecordingSink()
        let m = InputMapper(sink: sink)
        m.leaveForShell()
        m.setPolicy(InputPolicy())
        m.add(device: 1, role: xboxPad())
        m.tick(nowNs: 1_000_000_000)
        #expect(sink.take().isEmpty)
        m.returnFromShell()
        m.key(1, EV.btnEast, true)
        let sent = sink.events
        #expect(sent.first == .gamepadArrival(pad: 0, padType: GamepadKind.xboxOne.rawValue), "arrival before any state")
        m.tick(nowNs: 2_000_000_000)
        m.tick(nowNs: 3_000_000_000)
        m.tick(nowNs: 4_000_000_000)
        #expect(sink.events.filter { $0.kind == .gamepadArrival }.count == 3)
    }

}
