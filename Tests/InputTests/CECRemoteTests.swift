import Testing
import Input
import PunktfunkWire

/// The TV remote (HDMI-CEC UI commands) as a keyboard: what each key means in the shell and
/// which key the host gets while streaming; media keys only from the remote.
@Suite struct CECRemoteTests {
    /// UI command → (shell key, host VK); nil: nothing there.
    static let table: [(UInt8, NavigationKey?, UInt8?)] = [
        (CECUserControl.select, .confirm, 0x0D),
        (CECUserControl.enter, .confirm, 0x0D),
        (CECUserControl.up, .up, 0x26),
        (CECUserControl.down, .down, 0x28),
        (CECUserControl.left, .left, 0x25),
        (CECUserControl.right, .right, 0x27),
        (CECUserControl.back, .back, 0x1B),
        (CECUserControl.clear, .erase, 0x08),
        (0x20, .character("0"), 0x30),
        (0x21, .character("1"), 0x31),
        (0x25, .character("5"), 0x35),
        (0x29, .character("9"), 0x39),
        (CECUserControl.channelUp, nil, 0x21),
        (CECUserControl.channelDown, nil, 0x22),
        (CECUserControl.play, nil, 0xB3),
        (CECUserControl.pause, nil, 0xB3),
        (CECUserControl.pausePlayFunction, nil, 0xB3),
        (CECUserControl.stop, nil, 0xB2),
        (CECUserControl.skipForward, nil, 0xB0),
        (CECUserControl.skipBackward, nil, 0xB1),
        (CECUserControl.rootMenu, .menu, nil),
        (CECUserControl.setupMenu, .menu, nil),
    ]

    @Test func eachRemoteKeyDrivesTheShellAndReachesTheHost() {
        let nav = NavigationMapper()
        var heard: [NavigationEvent] = []
        nav.onEvent = { heard.append($0) }
        nav.add(device: 9, role: .keyboard, family: .tvRemote)
        let sink = RecordingSink()
        let host = InputMapper(sink: sink)
        host.setPolicy(InputPolicy())
        host.addRemote(device: 9)
        for (command, shellKey, vk) in Self.table {
            let code = CECRemoteKeys.evdevCode(command)
            #expect(code != nil, "UI command \(command)")
            guard let code else { continue }
            nav.handle(device: 9, type: EV.key, code: code, value: 1)
            nav.handle(device: 9, type: EV.key, code: code, value: 0)
            let keys = heard.filter { if case .deviceUsed = $0 { false } else { true } }
            heard.removeAll()
            if let shellKey {
                #expect(keys == [.key(shellKey, pressed: true, from: .tvRemote), .key(shellKey, pressed: false, from: .tvRemote)],
                        "UI command \(command)")
            } else {
                #expect(keys.isEmpty, "UI command \(command)")
            }
            host.key(9, code, true)
            host.key(9, code, false)
            if let vk {
                #expect(sink.take() == [.event(.keyDown(vk: vk), reliable: true), .event(.keyUp(vk: vk), reliable: true)],
                        "UI command \(command)")
            } else {
                #expect(sink.take().isEmpty, "UI command \(command)")
            }
        }
        #expect(host.held.isEmpty)
    }

    @Test func theRemoteIsItsOwnFamilyForTheGlyphs() {
        let nav = NavigationMapper()
        var heard: [NavigationEvent] = []
        nav.onEvent = { heard.append($0) }
        nav.add(device: 9, role: .keyboard, family: .tvRemote)
        nav.handle(device: 9, type: EV.key, code: CECRemoteKeys.keyEnter, value: 1)
        #expect(heard.first == .deviceUsed(.tvRemote))
    }

    @Test func unknownCommandsMeanNothing() {
        for command: UInt8 in [0x71, 0x72, 0x40, 0x41, 0x42, 0x43, 0xFF] {
            #expect(CECRemoteKeys.evdevCode(command) == nil, "UI command \(command)")
        }
    }

    @Test func aKeyboardsMediaKeysStayUnmapped() {
        let sink = RecordingSink()
        let host = InputMapper(sink: sink)
        host.setPolicy(InputPolicy())
        host.add(device: 1, role: .keyboard)
        host.key(1, CECRemoteKeys.keyPlayPause, true)
        host.key(1, CECRemoteKeys.keyPlayPause, false)
        #expect(sink.take().isEmpty)
    }

    @Test func aRemoteThatLeavesReleasesWhatTheHostHolds() {
        let sink = RecordingSink()
        let host = InputMapper(sink: sink)
        host.setPolicy(InputPolicy())
        host.addRemote(device: 9)
        host.key(9, CECRemoteKeys.keyPlayPause, true)
        host.remove(device: 9)
        #expect(sink.take() == [.event(.keyDown(vk: 0xB3), reliable: true), .event(.keyUp(vk: 0xB3), reliable: true)])
        #expect(host.held.isEmpty)
    }
}
