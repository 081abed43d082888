import Testing
import PunktfunkSession
import Shell
@testable import Kiosk

/// The box's power in the app: standby from the TV and after the shell sat idle, what ends and
/// what the TV hears, the wakes (the bus, the box's own keys and clicks) and where they lead, and
/// the screen in standby.
@Suite struct BoxPowerTests {
    typealias Box = KioskMachineTests.Box
    static let second: UInt64 = 1_000_000_000
    static let why = "The TV went to standby, so the stream ended."

    static func started(standbyAfter: Int? = nil, tvOff: Bool? = nil, policy: KioskPolicy = KioskPolicy(afterJob: .returnToHosts)) -> Box {
        var box = Box(policy)
        var config = KioskConfig()
        config.standbyAfterSeconds = standbyAfter
        config.cecTVOff = tvOff
        box.send(.started(StartReport(display: .glass(name: "HDMI-A-1"), knownHosts: KioskMachineTests.trusted(), config: config)))
        return box
    }

    static func stream(_ box: inout Box, job: Int = 1) {
        box.send(.user(.connect(hostID: "living-room")))
        box.send(.resolved(job: job, key: KioskMachineTests.key))
        box.send(.stream(job: job, .established(peerFingerprint: KioskMachineTests.fp, redirected: false)))
        box.send(.stream(job: job, .firstPicture))
    }

    // MARK: - Standby from the TV

    @Test func theTVsStandbyEndsTheStreamAndTheBoxSleepsInTheShell() {
        var box = Self.started()
        Self.stream(&box)
        let before = box.machine.state
        #expect(box.send(.tvStandby) == [.stopStream(job: 1), .power(.standby(tellTV: .nothing))])
        #expect(box.phase == .choosingHost(focus: "living-room"))
        #expect(box.machine.state.power == .standby)
        #expect(KioskConsole.lines(from: before, to: box.machine.state) == [Self.why, "standby: nothing on glass until a wake"])
        // The stream's late end changes nothing; no retry, no second standby.
        #expect(box.send(.stream(job: 1, .ended(.finished))) == [])
        #expect(box.machine.nextDeadline == nil)
        #expect(box.send(.timer, after: 600 * Self.second) == [])
        #expect(box.send(.tvStandby) == [])
        #expect(box.machine.state.power == .standby)
    }

    @Test func whatRunsEndsTheWayAPersonWouldEndIt() {
        // Connecting (dialled): the stream stops.
        var box = Self.started()
        box.send(.user(.connect(hostID: "living-room")))
        box.send(.resolved(job: 1, key: KioskMachineTests.key))
        #expect(box.send(.tvStandby) == [.stopStream(job: 1), .power(.standby(tellTV: .nothing))])
        // Still resolving: nothing runs yet.
        box = Self.started()
        box.send(.user(.connect(hostID: "living-room")))
        #expect(box.send(.tvStandby) == [.power(.standby(tellTV: .nothing))])
        #expect(box.send(.resolved(job: 1, key: KioskMachineTests.key)) == [], "a late lookup starts nothing")
        // Pairing: forgotten.
        box = Self.started()
        box.send(.user(.pair(hostID: "living-room", pin: "1234")))
        #expect(box.send(.tvStandby) == [.cancelPairing(job: 1), .power(.standby(tellTV: .nothing))])
        // The in-stream menu: the stream under it stops.
        box = Self.started()
        Self.stream(&box)
        box.send(.user(.openMenu))
        #expect(box.send(.tvStandby) == [.stopStream(job: 1), .power(.standby(tellTV: .nothing))])
    }

    @Test func withSleepWithTheTVOffTheTVsStandbyChangesNothing() {
        var box = Box()
        var config = KioskConfig()
        config.cecStandbyEndsStream = false
        box.send(.started(StartReport(display: .glass(name: "HDMI-A-1"), knownHosts: KioskMachineTests.trusted(), config: config)))
        Self.stream(&box)
        #expect(box.send(.tvStandby) == [])
        #expect(box.machine.state.power == .on)
        if case .streaming = box.phase {} else { Issue.record("not streaming: \(box.phase)") }
    }

    @Test func bootToStreamDropsItsRetryInStandbyAndStreamsAgainOnWake() {
        var policy = KioskPolicy(afterJob: .returnToHosts)
        policy.retryFailedHostAfterNs = 5 * Self.second
        policy.bootHost = "living-room"
        var box = Box(policy, initial: .connect(hostID: "living-room"))
        #expect(box.start(known: KioskMachineTests.trusted()) == [.resolve(job: 1, host: KioskMachineTests.living)])
        box.send(.resolved(job: 1, key: KioskMachineTests.key))
        box.send(.stream(job: 1, .established(peerFingerprint: KioskMachineTests.fp, redirected: false)))
        box.send(.stream(job: 1, .firstPicture))
        box.send(.stream(job: 1, .ended(.failed(sentence: "The host went away."))))
        #expect(box.machine.nextDeadline != nil, "a retry is due")
        #expect(box.send(.tvStandby) == [.power(.standby(tellTV: .nothing))])
        #expect(box.machine.nextDeadline == nil, "no retry wakes the host (and the TV) in standby")
        #expect(box.send(.timer, after: 30 * Self.second) == [])
        #expect(box.send(.tvWake) == [.power(.on(oneTouchPlay: false)), .resolve(job: 2, host: KioskMachineTests.living)])
        #expect(box.machine.state.power == .on)
    }

    @Test func aOneShotCommandEndsWhenTheTVGoesToStandby() {
        var box = Box(KioskMachineTests.oneShot, initial: .connect(hostID: "living-room"))
        _ = box.start(known: KioskMachineTests.trusted())
        box.send(.resolved(job: 1, key: KioskMachineTests.key))
        #expect(box.send(.tvStandby) == [.stopStream(job: 1)])
        if case .leaving(let l) = box.phase { #expect(l.reason == Self.why) } else { Issue.record("not leaving: \(box.phase)") }
    }

    @Test func aStandbyDuringTheStartHoldsTheCommandLinesJobUntilTheWake() {
        var box = Box(initial: .connect(hostID: "living-room"))
        #expect(box.send(.tvStandby) == [.power(.standby(tellTV: .nothing))])
        #expect(box.start(known: KioskMachineTests.trusted()) == [])
        #expect(box.phase == .choosingHost(focus: "living-room"))
        #expect(box.send(.tvWake) == [.power(.on(oneTouchPlay: false)), .resolve(job: 1, host: KioskMachineTests.living)])
    }

    // MARK: - Waking

    @Test func theBusWakesTheBoxBackToTheShellWhereTheUserWas() {
        var box = Self.started()
        box.send(.navigate(.move(.down)))   // onto the home actions
        let shell = box.machine.state.shell
        box.send(.tvStandby)
        #expect(box.machine.state.shell == shell)
        #expect(box.send(.tvWake) == [.power(.on(oneTouchPlay: true))])
        #expect(box.machine.state.power == .on)
        #expect(box.machine.state.shell == shell)
        #expect(box.send(.tvWake) == [], "awake already")
    }

    @Test func aKeyOrButtonOnTheBoxWakesItAndDoesNothingElse() {
        var box = Self.started()
        box.send(.tvStandby)
        let shell = box.machine.state.shell
        #expect(box.send(.navigate(.activate)) == [.power(.on(oneTouchPlay: true))])
        #expect(box.phase == .choosingHost(focus: "living-room"), "the press that woke the box did not connect")
        #expect(box.machine.state.shell == shell)
        box.send(.navigate(.activate))
        #expect(box.machine.state.shell.top == .host(id: "living-room", focus: .connect), "the next one acts: the card opens")
    }

    @Test func aClickWakesTheBoxAndAMoveDoesNot() {
        var box = Self.started()
        box.send(.tvStandby)
        #expect(box.send(.pointer(PointerEvent(x: 10, y: 10, action: .moved))) == [])
        #expect(box.machine.state.power == .standby)
        #expect(box.send(.pointer(PointerEvent(x: 10, y: 10, action: .clicked))) == [.power(.on(oneTouchPlay: true))])
    }

    // MARK: - The box's own standby

    @Test func theIdleShellGoesToStandbyAndAsksTheTVToo() {
        var box = Self.started(standbyAfter: 600)
        let start = box.now
        #expect(box.machine.nextDeadline == start + 600 * Self.second)
        box.send(.navigate(.move(.right)), after: 300 * Self.second)   // input restarts the clock
        #expect(box.machine.nextDeadline == box.now + 600 * Self.second)
        box.send(.pointer(PointerEvent(x: 1, y: 1, action: .moved)), after: 100 * Self.second)
        let due = box.now + 600 * Self.second
        #expect(box.machine.nextDeadline == due)
        #expect(box.send(.timer, after: 599 * Self.second) == [])
        let before = box.machine.state
        #expect(box.send(.timer, after: 1 * Self.second) == [.power(.standby(tellTV: .standby))])
        #expect(box.machine.state.power == .standby)
        #expect(KioskConsole.lines(from: before, to: box.machine.state)
                == ["The box went to standby after 10 min without input.", "standby: nothing on glass until a wake"])
        #expect(box.machine.nextDeadline == nil)
        // Woken, the clock starts again.
        box.send(.tvWake, after: 3_600 * Self.second)
        #expect(box.machine.nextDeadline == box.now + 600 * Self.second)
    }

    @Test func withTVOffWithBoxOffTheTVOnlyHearsWeAreInactive() {
        var box = Self.started(standbyAfter: 60, tvOff: false)
        #expect(box.send(.timer, after: 60 * Self.second) == [.power(.standby(tellTV: .inactiveSource))])
    }

    @Test func aStreamDoesNotIdleAndTheClockStartsWhenTheShellIsBack() {
        var box = Self.started(standbyAfter: 60)
        Self.stream(&box)
        #expect(box.machine.nextDeadline == nil, "no idle while streaming")
        #expect(box.send(.timer, after: 3_600 * Self.second) == [])
        box.send(.user(.openMenu))
        box.send(.user(.menu(.disconnect)), after: 5 * Self.second)
        #expect(box.machine.nextDeadline == box.now + 60 * Self.second)
    }

    @Test func offByDefaultAndTheCommandLineOverrides() {
        var box = Self.started()
        #expect(box.machine.nextDeadline == nil)
        var policy = KioskPolicy(afterJob: .returnToHosts)
        policy.standbyAfterSeconds = 90
        box = Self.started(standbyAfter: 600, policy: policy)
        #expect(box.machine.state.shell.settings.standbyAfterSeconds == 90)
        policy.standbyAfterSeconds = 0
        box = Self.started(standbyAfter: 600, policy: policy)
        #expect(box.machine.state.shell.settings.standbyAfterSeconds == nil)
        #expect(box.machine.nextDeadline == nil)
    }

    // MARK: - On glass, settings, config

    @Test func inStandbyTheShellIsBlackWithNothingToPointAt() {
        var box = Self.started()
        box.send(.tvStandby)
        let view = ShellSceneBuilder.view(for: box.machine.state, glyphs: .keyboard)
        #expect(view == ShellView(scene: ShellScene(elements: [], ground: .black), targets: []))
        #expect(KioskRunner.screenName(box.machine.state) == "standby")
        box.send(.tvWake)
        #expect(ShellSceneBuilder.view(for: box.machine.state, glyphs: .keyboard)?.scene.ground == .shell)
        #expect(KioskRunner.screenName(box.machine.state) == "home")
    }

    @Test func standbyAfterParsesRoundTripsAndRefusesNonsense() {
        let c = KioskConfig(text: "standby-after = 30\n")
        #expect(c.standbyAfterSeconds == 1_800 && c.problems.isEmpty)
        for (text, seconds) in [("90s", 90), ("2h", 7_200), ("45min", 2_700), ("10 m", 600), ("off", nil)] as [(String, Int?)] {
            let parsed = KioskConfig(text: "standby-after = \(text)\n")
            #expect(parsed.problems.isEmpty && parsed.standbyAfterSeconds == seconds, "\(text)")
            #expect(KioskConfig(text: parsed.text) == parsed, "\(text) round trip")
        }
        #expect(KioskConfig(text: "standby-after = 90s\n").text.contains("standby-after = 90s\n"))
        #expect(!KioskConfig().text.contains("standby-after"), "off stays unwritten")
        for bad in ["soon", "5s", "-3", "25h", "0", "1.5"] {
            let parsed = KioskConfig(text: "standby-after = \(bad)\n")
            #expect(parsed.problems.map(\.line) == [1] && parsed.standbyAfterSeconds == nil, "\(bad)")
        }
    }

    @Test func sleepAfterIsASettingThatCyclesAndIsStored() {
        var s = ShellSettings(config: KioskConfig(), modes: [], audioDevices: [])
        #expect(s.choice(.standbyAfter)?.options == ["Off", "10 min", "30 min", "1 h", "2 h"])
        #expect(s.choice(.standbyAfter)?.index == 0)
        let changed = s.cycle(.standbyAfter)
        #expect(changed && s.standbyAfterSeconds == 600)
        #expect(s.stored(in: KioskConfig()).standbyAfterSeconds == 600)
        // A saved value not offered stays in the list, and cycling from the last wraps to Off.
        var config = KioskConfig()
        config.standbyAfterSeconds = 20
        s = ShellSettings(config: config, modes: [], audioDevices: [])
        #expect(s.choice(.standbyAfter)?.options == ["Off", "10 min", "30 min", "1 h", "2 h", "20 s"])
        let wrapped = s.cycle(.standbyAfter)
        #expect(wrapped && s.standbyAfterSeconds == nil)
        #expect(s.stored(in: config).standbyAfterSeconds == nil)
    }
}
