import Testing
import PunktfunkSession
@testable import Kiosk

/// HDMI-CEC in the app: the config keys and the settings page's switches.
@Suite struct CECKioskTests {

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
        #expect(!SettingsItem.standbyAfter.isCEC, "the box's own standby works without an adapter")
    }

    // The TV's standby in the machine: BoxPowerTests.
}
