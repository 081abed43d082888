import Testing
import PunktfunkSession
import Kiosk
import Shell

/// The shell's jobs as pure state: wake and wait, the speed test, forget, power where logind
/// allows, the card statuses, the settings' round trip through the config — and that an outcome
/// of a page the user left changes nothing.
@Suite struct ShellJobsTests {
    static let living = HostEntry(id: "living-room", name: "Living room", address: "192.168.1.20", macs: ["02:11:22:33:44:55"])
    static let office = HostEntry(id: "office", name: "Office", address: "office.lan:9800")
    static let fp = String(repeating: "ab", count: 32)

    static func trusted() -> KnownHosts {
        var k = KnownHosts()
        try! k.trust(host: "192.168.1.20:9777", fingerprint: fp)
        return k
    }

    struct Shell {
        var machine: KioskMachine
        var now: UInt64 = 1_000_000_000

        init(known: KnownHosts = ShellJobsTests.trusted(), power: PowerAbility? = nil, config: KioskConfig? = nil) {
            machine = KioskMachine(policy: KioskPolicy(afterJob: .returnToHosts), hosts: [ShellJobsTests.living, ShellJobsTests.office])
            send(.started(StartReport(display: .glass(name: "HDMI-A-1 1920x1080@60"), knownHosts: known,
                                      displayModes: ["1920x1080@60", "1280x720@60"], audioDevices: ["default", "hw:CARD=PCH,DEV=3"],
                                      config: config, configPath: "/home/kiosk/.config/punktfunk-kiosk/config")))
            if let power { send(.boxChecked(BoxFacts(power: power, decoders: "software"))) }
        }

        var page: ShellPage { machine.state.shell.top }
        var scene: ShellScene { ShellSceneBuilder.scene(for: machine.state, glyphs: .xbox)! }
        var texts: [String] { scene.elements.map(\.title) }

        @discardableResult
        mutating func send(_ event: KioskEvent) -> [KioskEffect] {
            now += 1_000_000
            return machine.handle(event, now: now)
        }

        @discardableResult
        mutating func nav(_ inputs: NavigationInput...) -> [KioskEffect] {
            var effects: [KioskEffect] = []
            for input in inputs { effects += send(.navigate(input)) }
            return effects
        }

        /// Opens the living room's host page on `action` and activates it.
        mutating func act(_ action: HostAction) -> [KioskEffect] {
            nav(.activate)
            for _ in 0..<HostAction.list(titles: []).firstIndex(of: action)! { nav(.move(.down)) }
            return nav(.activate)
        }
    }

    // MARK: wake

    @Test func wakeShowsItsProgressAndTheHostPageComesBackWithConnectFocusedWhenTheHostShows() throws {
        var s = Shell()
        let effects = s.act(.wake)
        guard case .shell(.wake(let job, let host))? = effects.first else { Issue.record("\(effects)"); return }
        #expect(host == Self.living)
        #expect(s.texts.first == "Waking Living room… 0 s")
        s.send(.shell(job: job, .wakeSent(sent: 3, destinations: 4)))
        s.send(.shell(job: job, .waited(seconds: 12)))
        #expect(s.texts.first == "Waking Living room… 12 s")
        #expect(s.texts.contains { $0.contains("Magic packets sent (3 of 4 destinations)") })
        // Another host showing changes nothing; this one ends the wait.
        #expect(s.send(.hostsChanged([Self.office])) == [])
        #expect(s.page == .waking({ var w = WakeProgress(job: job, hostID: "living-room"); w.sent = 3; w.destinations = 4; w.seconds = 12; return w }()))
        let seen = HostEntry(id: "living-room", name: "Living room", address: "192.168.1.20:9777")
        #expect(s.send(.hostsChanged([seen])) == [.shell(.cancel(job: job))])
        #expect(s.page == .host(id: "living-room", focus: .connect))
        #expect(s.machine.state.notice == "Living room is awake.")
        #expect(ShellSceneBuilder.status(of: Self.living, s.machine.state) == .online)
    }

    @Test func aWakeThatTimesOutSaysWhatToCheckAndHasAWayBack() {
        var s = Shell()
        guard case .shell(.wake(let job, _))? = s.act(.wake).first else { Issue.record("no wake"); return }
        s.send(.shell(job: job, .wakeSent(sent: 2, destinations: 2)))
        s.send(.shell(job: job, .wakeTimedOut))
        #expect(s.texts.first == "Living room did not wake")
        #expect(s.texts.contains { $0.contains("within 60 s") && $0.contains("Wake-on-LAN") })
        #expect(s.scene.elements.filter(\.focused).map(\.title) == ["Back"])
        // Leaving a finished wait cancels nothing.
        #expect(s.nav(.activate) == [])
        #expect(s.page == .host(id: "living-room", focus: .wake))
    }

    @Test func aCancelledWaitIgnoresItsLateOutcomes() {
        var s = Shell()
        guard case .shell(.wake(let job, _))? = s.act(.wake).first else { Issue.record("no wake"); return }
        #expect(s.nav(.back) == [.shell(.cancel(job: job))])
        let before = s.machine.state
        #expect(s.send(.shell(job: job, .waited(seconds: 5))) == [])
        #expect(s.send(.shell(job: job, .wakeTimedOut)) == [])
        #expect(s.machine.state == before)
        // A new wait does not take the old job's outcomes either.
        guard case .shell(.wake(let second, _))? = s.nav(.activate).first else { Issue.record("no second wake"); return }
        #expect(second != job)
        s.send(.shell(job: job, .waited(seconds: 40)))
        #expect(s.page == .waking(WakeProgress(job: second, hostID: "living-room")))
    }

    @Test func aWakeWithoutAMACSaysSo() {
        var s = Shell()
        s.nav(.move(.right))
        guard case .shell(.wake(let job, _))? = s.act(.wake).first else { Issue.record("no wake"); return }
        s.send(.shell(job: job, .wakeFailed(sentence: "No Wake-on-LAN address (MAC) is known for Office.")))
        #expect(s.texts.contains("No Wake-on-LAN address (MAC) is known for Office."))
        s.nav(.back)
        #expect(s.page == .host(id: "office", focus: .wake))
    }

    // MARK: speed test

    @Test func aSpeedTestShowsItsStepsThenTheResultAndTheBitrateItSuggests() {
        var s = Shell()
        guard case .shell(.speedTest(let job, Self.living))? = s.act(.speedTest).first else { Issue.record("no test"); return }
        #expect(s.texts.contains("Connecting to Living room…"))
        s.send(.shell(job: job, .speedTestStep(.measuring)))
        #expect(s.texts.contains { $0.hasPrefix("Measuring") })
        let result = SpeedTestResult(throughputKbps: 41_500, lossPercent: 0.4, rttMs: 2.25, targetKbps: 200_000)
        #expect(result.suggestedKbps == 29_000)
        s.send(.shell(job: job, .speedTestDone(result)))
        let body = s.texts[1]
        #expect(body.contains("Measured: 41500 kbit/s (41.5 Mbit/s)"), "\(body)")
        #expect(body.contains("Loss: 0.4 %"))
        #expect(body.contains("Round trip: 2.2 ms") || body.contains("Round trip: 2.3 ms"))
        #expect(body.contains("Suggested bitrate: 29 Mbit/s"))
        #expect(s.scene.elements.filter(\.focused).map(\.title) == ["Use 29 Mbit/s"])
        // Done: a late second result changes nothing; leaving cancels nothing.
        #expect(s.send(.shell(job: job, .speedTestFailed(sentence: "late"))) == [])
        #expect(s.texts[1] == body)
        s.nav(.move(.right))
        #expect(s.scene.elements.filter(\.focused).map(\.title) == ["Back"])
        #expect(s.nav(.activate) == [])
        #expect(s.page == .host(id: "living-room", focus: .speedTest))
    }

    @Test func theSuggestedBitrateCanBeUsedForTheNextStream() {
        var s = Shell()
        guard case .shell(.speedTest(let job, _))? = s.act(.speedTest).first else { Issue.record("no test"); return }
        s.send(.shell(job: job, .speedTestDone(SpeedTestResult(throughputKbps: 41_500, lossPercent: 0, rttMs: 1, targetKbps: 200_000))))
        // A pointer on Back, then on Use, focuses each.
        s.send(.navigate(.point(.confirm(yes: false))))
        #expect(s.scene.elements.filter(\.focused).map(\.title) == ["Back"])
        s.send(.navigate(.point(.confirm(yes: true))))
        var expected = s.machine.state.shell.settings
        expected.bitrateKbps = 29_000
        #expect(s.nav(.activate) == [.shell(.saveSettings(expected, statsOverlay: false))])
        #expect(s.machine.state.shell.settings.bitrateKbps == 29_000)
        #expect(s.machine.state.notice == "The next stream asks for 29 Mbit/s.")
        #expect(s.page == .host(id: "living-room", focus: .speedTest))
        let bitrate = s.machine.state.shell.settings.choice(.bitrate)!
        #expect(bitrate.options[bitrate.index] == "Up to 29 Mbit/s", "a ceiling the rate loop never passes")
    }

    @Test func aFailedSpeedTestSaysWhyAndACancelledOneIgnoresItsResult() {
        var s = Shell()
        guard case .shell(.speedTest(let job, _))? = s.act(.speedTest).first else { Issue.record("no test"); return }
        s.send(.shell(job: job, .speedTestFailed(sentence: "The host did not answer.")))
        #expect(s.texts.contains("The speed test did not work: The host did not answer."))
        s.nav(.activate)
        guard case .shell(.speedTest(let second, _))? = s.nav(.activate).first else { Issue.record("no second test"); return }
        #expect(s.nav(.back) == [.shell(.cancel(job: second))])
        let before = s.machine.state
        s.send(.shell(job: second, .speedTestDone(SpeedTestResult(throughputKbps: 1, lossPercent: 0, rttMs: nil, targetKbps: 1))))
        #expect(s.machine.state == before)
    }

    @Test func theSuggestedBitrateIsSeventyPercentOfWhatArrivedAndAtLeastTwoMegabits() {
        #expect(SpeedTestResult(throughputKbps: 100_000, lossPercent: 30, rttMs: nil, targetKbps: 200_000).suggestedKbps == 70_000)
        #expect(SpeedTestResult(throughputKbps: 900, lossPercent: 0, rttMs: nil, targetKbps: 200_000).suggestedKbps == 2_000)
    }

    // MARK: forget

    @Test func forgetRemovesTheCardAndThePinAndDiscoveryListsItAgainAsNeedingPairing() {
        var s = Shell()
        #expect(ShellSceneBuilder.status(of: Self.living, s.machine.state) == .asleep, "pinned, not seen, has a MAC")
        s.nav(.activate)
        for _ in 0..<5 { s.nav(.move(.down)) }
        s.nav(.activate, .move(.left))
        #expect(s.nav(.activate) == [.shell(.forget(Self.living))])
        #expect(s.machine.state.hosts == [Self.office])
        #expect(!s.texts.contains("Living room"))
        #expect(s.machine.state.phase == .choosingHost(focus: "office"))
        s.send(.trustStoreChanged(KnownHosts()))
        #expect(s.machine.state.knownHosts == KnownHosts())
        let advert = HostEntry(id: "living-room", name: "Living room", address: "192.168.1.20:9777", advertisedFingerprint: Self.fp)
        s.send(.hostsChanged([advert]))
        #expect(s.machine.state.hosts.map(\.id) == ["office", "living-room"])
        #expect(ShellSceneBuilder.status(of: advert, s.machine.state) == .needsPairing)
    }

    // MARK: card status

    @Test func cardsAreOnlineAsleepPairedOrNeedPairing() {
        var known = Self.trusted()
        try! known.trust(host: "10.0.0.5:9777", fingerprint: String(repeating: "cd", count: 32))
        var s = Shell(known: known)
        let state = { s.machine.state }
        let wired = HostEntry(id: "wired", name: "Wired", address: "10.0.0.5")
        #expect(ShellSceneBuilder.status(of: Self.living, state()) == .asleep)
        #expect(ShellSceneBuilder.status(of: Self.office, state()) == .needsPairing)
        #expect(ShellSceneBuilder.status(of: wired, state()) == .paired, "pinned, not seen, nothing to wake it with")
        s.send(.hostsChanged([HostEntry(id: "office", name: "Office", address: "office.lan:9800")]))
        #expect(ShellSceneBuilder.status(of: Self.office, state()) == .needsPairing, "seen but not pinned")
        // A given fingerprint an advert claims makes the fixed host seen.
        var given = HostEntry(id: "tv", name: "TV", address: "10.0.0.9", givenFingerprint: Self.fp)
        var m = KioskMachine(policy: KioskPolicy(afterJob: .returnToHosts), hosts: [given])
        _ = m.handle(.started(StartReport(display: .headlessByRequest, knownHosts: KnownHosts())), now: 1)
        _ = m.handle(.hostsChanged([HostEntry(id: "other-id", name: "TV", address: "10.0.0.10:9777", advertisedFingerprint: Self.fp)]), now: 2)
        given.address = "10.0.0.10:9777"
        #expect(ShellSceneBuilder.status(of: given, m.state) == .online)
    }

    // MARK: power

    @Test func powerButtonsShowOnlyWhereLogindAllowsAndTheSentenceSaysWhyNot() {
        var s = Shell()
        #expect(s.machine.state.shell.homeActions == [.addHost, .settings], "hidden until logind answered")
        s.send(.boxChecked(BoxFacts(power: PowerAbility(canPowerOff: false, canRestart: false,
                                                        sentence: "Power off and restart are not offered: logind could not be asked (no bus)."),
                                    decoders: "software")))
        #expect(!s.texts.contains("Power off") && !s.texts.contains("Restart"))
        #expect(s.texts.contains("Power off and restart are not offered: logind could not be asked (no bus)."))
        s.nav(.move(.down), .move(.right), .move(.right), .move(.right))
        #expect(s.page == .home(.action(.settings)), "the row ends at Settings")
        // Restart only.
        var r = Shell(power: PowerAbility(canPowerOff: false, canRestart: true, sentence: "power off: not permitted"))
        #expect(r.machine.state.shell.homeActions == [.addHost, .settings, .restart])
        r.nav(.move(.down), .move(.right), .move(.right), .activate, .move(.left))
        #expect(r.nav(.activate) == [.shell(.restart)])
        // A stale pointer on a hidden button changes nothing.
        #expect(r.send(.navigate(.point(.homeAction(.powerOff)))) == [])
        #expect(r.page == .home(.action(.restart)))
        // An answer that takes the focused button away moves the focus to one that is there.
        r.send(.boxChecked(BoxFacts(power: PowerAbility(canPowerOff: false, canRestart: false, sentence: "no"), decoders: "software")))
        #expect(r.page == .home(.action(.settings)))
    }

    // MARK: settings

    @Test func settingsComeFromTheConfigAndGoBackIntoIt() {
        var config = KioskConfig()
        config.displayMode = "1280x720@60"
        config.bitrateKbps = 20_000
        config.decoder = "software"
        config.audioDevice = "hw:CARD=PCH,DEV=3"
        config.scaling = .native
        config.save(KioskConfig.SavedHost(id: "x", name: "X"))
        var s = Shell(config: config)
        let settings = s.machine.state.shell.settings
        #expect(settings.displayMode == "1280x720@60" && settings.bitrateKbps == 20_000 && settings.decoder == "software")
        #expect(settings.scaling == .native && settings.choice(.scaling)! == (["Fit the screen", "Native (1:1)"], 1))
        #expect(settings.choice(.mode)! == (["Native", "1920x1080@60", "1280x720@60"], 2))
        #expect(settings.choice(.audioDevice)!.index == 2)
        #expect(settings.choice(.bitrate)!.options[settings.choice(.bitrate)!.index] == "Up to 20 Mbit/s")
        // Changed on the page, written into the config text and read back.
        s.nav(.move(.down), .move(.right), .activate, .move(.down), .move(.down))
        guard case .shell(.saveSettings(let changed, let stats))? = s.nav(.move(.right)).first else { Issue.record("not saved"); return }
        #expect(changed.bitrateKbps == 40_000)
        var stored = changed.stored(in: config)
        stored.statsOverlay = stats
        let reread = KioskConfig(text: stored.text)
        #expect(reread.problems.isEmpty)
        #expect(ShellSettings(config: reread, modes: changed.availableModes, audioDevices: changed.availableAudioDevices) == changed)
        #expect(reread.hosts.map(\.id) == ["x"], "hosts are kept")
        #expect(reread.statsOverlay == false)
        #expect(reread.scaling == .native, "scaling = native written and read back")
        // The page says when they apply.
        #expect(s.texts.contains("Changes apply to the next stream; a new mode and HDMI-CEC at the next start."))
    }

    @Test func aSavedValueNoLongerOfferedStaysChoosable() {
        var config = KioskConfig()
        config.displayMode = "3840x2160@60"
        config.bitrateKbps = 12_345
        let s = Shell(config: config)
        #expect(s.machine.state.shell.settings.choice(.mode)! == (["Native", "1920x1080@60", "1280x720@60", "3840x2160@60"], 3))
        let bitrate = s.machine.state.shell.settings.choice(.bitrate)!
        #expect(bitrate.options[bitrate.index] == "Up to 12345 kbit/s")
    }

    @Test func aboutShowsTheVersionDisplayDecodersAndConfigPath() {
        var s = Shell(power: PowerAbility(canPowerOff: true, canRestart: true, sentence: nil))
        s.nav(.move(.down), .move(.right), .activate)
        for _ in 0..<7 { s.nav(.move(.down)) }
        s.nav(.activate)
        #expect(s.page == .info(.about))
        let body = s.texts[1]
        #expect(body.contains("punktfunk-kiosk \(KioskVersion.text)"))
        #expect(body.contains("Display: HDMI-A-1 1920x1080@60"))
        #expect(body.contains("Decoders: software"))
        #expect(body.contains("Settings: /home/kiosk/.config/punktfunk-kiosk/config"))
    }
}
