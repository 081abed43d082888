import Testing
import PunktfunkSession
@testable import Kiosk

/// HDMI-CEC in the app: the config keys, the settings page's switches, and the TV's standby
/// ending a stream with the reason on screen.
@Suite struct CECKioskTests {
    typealias Box = KioskMachineTests.Box

    @Test func theCECKeysRoundTripAndDefaultsStayUnwritten() {
        var c = KioskConfig()
        #expect(!c.text.contains("cec"))
        c.cec = false
        c.cecDevice = "/dev/cec1"
        c.cecName = "Wohnzimmer"
        c.cecTVOn = false
        c.cecTVOff = true
        c.cecStandbyEndsStream = false
        let again = KioskConfig(text: c.text)
        #expect(again.problems.isEmpty, "\(again.problems)")
        #expect(again == c)
        #expect(c.text.contains("cec-device = /dev/cec1\n"))
    }

    @Test func badCECValuesAreNamedAndIgnored() {
        let c = KioskConfig(text: "cec = maybe\ncec-device = cec0\ncec-name = a name longer than fourteen\ncec-tv-off = off\n")
        #expect(c.problems.map(\.line) == [1, 2, 3])
        #expect(c.cec == nil && c.cecDevice == nil && c.cecName == nil)
        #expect(c.cecTVOff == false)
    }

    @Test func theSettingsSwitchesCycleAndAreStored() {
        var s = ShellSettings(config: KioskConfig(), modes: [], audioDevices: [])
        #expect(s.cec && s.cecTVOn && s.cecTVOff && s.cecStandbyEndsStream)
        #expect(s.choice(.cecTVOff)?.options == ["On", "Off"])
        let changed = s.cycle(.cecTVOff)
        #expect(changed)
        #expect(!s.cecTVOff)
        var stored = s.stored(in: KioskConfig())
        #expect(stored.cecTVOff == false)
        #expect(stored.cec == nil, "a default stays unwritten")
        _ = s.cycle(.cecTVOff)
        stored = s.stored(in: stored)
        #expect(stored.cecTVOff == true)
        #expect(SettingsItem.allCases.filter(\.isCEC) == [.cec, .cecTVOn, .cecTVOff, .cecStandbyEndsStream])
    }

    @Test func theTVsStandbyEndsTheStreamAndSaysWhy() {
        var box = Box()
        box.streaming()
        #expect(box.send(.tvStandby) == [.stopStream(job: 1)])
        #expect(box.phase == .error(sentence: "The TV went to standby, so the stream ended.", retry: nil))
        #expect(box.send(.stream(job: 1, .ended(.finished))) == [])
        #expect(box.phase == .error(sentence: "The TV went to standby, so the stream ended.", retry: nil), "it stays")
        #expect(box.send(.timer, after: 60_000_000_000) == [], "no retry wakes the TV")
        #expect(box.send(.tvStandby) == [], "nothing runs")
    }

    @Test func theTVsStandbyInTheMenuEndsTheStreamToo() {
        var box = Box()
        box.streaming()
        box.send(.user(.openMenu))
        #expect(box.send(.tvStandby) == [.stopStream(job: 1)])
    }

    @Test func withTheSettingOffTheStandbyChangesNothing() {
        var box = Box()
        var config = KioskConfig()
        config.cecStandbyEndsStream = false
        box.send(.started(StartReport(display: .glass(name: "HDMI-A-1"), knownHosts: KioskMachineTests.trusted(), config: config)))
        box.send(.user(.connect(hostID: "living-room")))
        box.send(.resolved(job: 1, key: KioskMachineTests.key))
        box.send(.stream(job: 1, .established(peerFingerprint: KioskMachineTests.fp, redirected: false)))
        box.send(.stream(job: 1, .firstPicture))
        #expect(box.send(.tvStandby) == [])
        if case .streaming = box.phase {} else { Issue.record("not streaming: \(box.phase)") }
    }

    @Test func aOneShotStreamLeavesWhenTheTVGoesToStandby() {
        var box = Box(KioskMachineTests.oneShot, initial: .connect(hostID: "living-room"))
        _ = box.start(known: KioskMachineTests.trusted())
        box.send(.resolved(job: 1, key: KioskMachineTests.key))
        box.send(.stream(job: 1, .established(peerFingerprint: KioskMachineTests.fp, redirected: false)))
        box.send(.stream(job: 1, .firstPicture))
        #expect(box.send(.tvStandby) == [.stopStream(job: 1)])
        if case .leaving(let l) = box.phase { #expect(l.reason == "The TV went to standby, so the stream ended.") }
        else { Issue.record("not leaving: \(box.phase)") }
    }
}
