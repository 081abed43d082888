import Testing
import PunktfunkSession
import Kiosk

/// The shell's screens as pure state: every page reachable and leavable with navigation inputs
/// alone, typed text kept on Back, focus restored after a dialog, and the inputs that act issuing
/// exactly the user actions and requests they stand for.
@Suite struct ShellNavigationTests {
    static let living = HostEntry(id: "living-room", name: "Living room", address: "192.168.1.20")
    static let office = HostEntry(id: "office", name: "Office", address: "office.lan:9800")
    static let key = "192.168.1.20:9777"
    static let fp = String(repeating: "ab", count: 32)

    struct Shell {
        var machine: KioskMachine
        var now: UInt64 = 1_000_000_000

        static let powerAllowed = PowerAbility(canPowerOff: true, canRestart: true, sentence: nil)

        init(hosts: [HostEntry] = [ShellNavigationTests.living, ShellNavigationTests.office], known: KnownHosts = KnownHosts(),
             power: PowerAbility? = Shell.powerAllowed, audioDevices: [String] = ["default"],
             policy: KioskPolicy = KioskPolicy(afterJob: .returnToHosts), initialAction: UserAction? = nil) {
            machine = KioskMachine(policy: policy, hosts: hosts, initialAction: initialAction)
            _ = send(.started(StartReport(display: .glass(name: "HDMI-A-1 1920x1080@60"), knownHosts: known,
                                          displayModes: ["1920x1080@60", "1280x720@60"], audioDevices: audioDevices)))
            if let power { _ = send(.boxChecked(BoxFacts(power: power, decoders: "software"))) }
        }

        var phase: KioskPhase { machine.state.phase }
        var page: ShellPage { machine.state.shell.top }
        var pages: [ShellPage] { machine.state.shell.pages }

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

        mutating func type(_ text: String) {
            for c in text { nav(.character(c)) }
        }
    }

    // MARK: home

    @Test func homeMovesAcrossHostCardsAndDownToTheActionRowAndStopsAtTheEdges() {
        var s = Shell()
        #expect(s.page == .home(.hosts))
        #expect(s.phase == .choosingHost(focus: "living-room"))
        s.nav(.move(.left))
        #expect(s.phase == .choosingHost(focus: "living-room"))
        s.nav(.move(.right))
        #expect(s.phase == .choosingHost(focus: "office"))
        s.nav(.move(.right))
        #expect(s.phase == .choosingHost(focus: "office"))
        s.nav(.move(.down))
        #expect(s.page == .home(.action(.addHost)))
        s.nav(.move(.right), .move(.right), .move(.right), .move(.right))
        #expect(s.page == .home(.action(.restart)))
        s.nav(.move(.down))
        #expect(s.page == .home(.action(.restart)))
        s.nav(.move(.up))
        #expect(s.page == .home(.hosts))
        #expect(s.phase == .choosingHost(focus: "office"), "the card focused before is focused again")
        // Back and Menu on home change nothing (home is the root; power is its way out).
        #expect(s.nav(.back, .menu) == [])
        #expect(s.pages == [.home(.hosts)])
    }

    @Test func withNoHostsTheFocusIsOnTheActionRow() {
        var s = Shell(hosts: [])
        #expect(s.phase == .choosingHost(focus: nil))
        s.nav(.move(.right))
        #expect(s.page == .home(.action(.settings)))
        s.nav(.move(.up))
        #expect(s.page == .home(.action(.settings)), "no card row to go up to")
    }

    // MARK: host page

    @Test func aHostCardOpensTheHostPageWhoseEntriesActAndBackReturnsToTheCard() {
        var s = Shell()
        s.nav(.move(.right), .activate)
        #expect(s.page == .host(id: "office", focus: .connect))
        s.nav(.move(.up))
        #expect(s.page == .host(id: "office", focus: .connect))
        s.nav(.move(.down), .move(.down), .move(.down))
        #expect(s.page == .host(id: "office", focus: .wake))
        guard case .shell(.wake(let wakeJob, Self.office))? = s.nav(.activate).first else { Issue.record("no wake request"); return }
        #expect(s.page == .waking(WakeProgress(job: wakeJob, hostID: "office")))
        #expect(s.nav(.back) == [.shell(.cancel(job: wakeJob))], "Back cancels the wait")
        #expect(s.page == .host(id: "office", focus: .wake))
        s.nav(.move(.down))
        guard case .shell(.speedTest(let testJob, Self.office))? = s.nav(.activate).first else { Issue.record("no speed test"); return }
        #expect(s.page == .speedTest(SpeedTestProgress(job: testJob, hostID: "office")))
        #expect(s.nav(.activate) == [.shell(.cancel(job: testJob))], "A on Cancel cancels the test")
        #expect(s.page == .host(id: "office", focus: .speedTest))
        s.nav(.move(.down))
        #expect(s.page == .host(id: "office", focus: .forget))
        s.nav(.back)
        #expect(s.pages == [.home(.hosts)])
        #expect(s.phase == .choosingHost(focus: "office"))
    }

    static func trusted() -> KnownHosts {
        var known = KnownHosts()
        try! known.trust(host: key, fingerprint: fp)
        return known
    }

    @Test func connectFromTheHostPageShowsCancellableStepsAndCancelComesBackToTheSamePage() {
        var s = Shell(known: Self.trusted())
        s.nav(.activate)
        #expect(s.nav(.activate) == [.resolve(job: 1, host: Self.living)])
        guard case .connecting(let c) = s.phase else { Issue.record("not connecting: \(s.phase)"); return }
        #expect(c.step == .resolving)
        // Moves do nothing while connecting; Back cancels.
        #expect(s.nav(.move(.down)) == [])
        #expect(s.nav(.back) == [])
        #expect(s.phase == .choosingHost(focus: "living-room"))
        #expect(s.page == .host(id: "living-room", focus: .connect))
        // A cancelled dial that had started stops its stream.
        s.nav(.activate)
        s.send(.resolved(job: 2, key: Self.key))
        if case .connecting(let c) = s.phase { #expect(c.step != .resolving) } else { Issue.record("not dialing") }
        #expect(s.nav(.activate) == [.stopStream(job: 2)])
        #expect(s.page == .host(id: "living-room", focus: .connect))
    }

    @Test func requestAccessWaitsWithACancel() {
        var s = Shell()
        s.nav(.activate, .move(.down), .move(.down))
        #expect(s.page == .host(id: "living-room", focus: .requestAccess))
        #expect(s.nav(.activate) == [.resolve(job: 1, host: Self.living)])
        #expect(s.send(.resolved(job: 1, key: Self.key))
            == [.startPairing(job: 1, PairingRequest(host: Self.living, key: Self.key, pin: nil))])
        s.send(.pairing(job: 1, .waitingForApproval(count: 1)))
        #expect(s.nav(.back) == [.cancelPairing(job: 1)])
        #expect(s.page == .host(id: "living-room", focus: .requestAccess))
    }

    // MARK: dialogs

    @Test func forgetAsksFirstAndNoRestoresTheFocusOnForget() {
        var s = Shell()
        s.nav(.activate, .move(.down), .move(.down), .move(.down), .move(.down), .move(.down), .activate)
        #expect(s.page == .confirm(.forget(hostID: "living-room"), yes: false))
        // "No" is focused first: A answers no and changes nothing.
        #expect(s.nav(.activate) == [])
        #expect(s.page == .host(id: "living-room", focus: .forget))
        // Back answers no too.
        s.nav(.activate, .move(.left))
        #expect(s.page == .confirm(.forget(hostID: "living-room"), yes: true))
        #expect(s.nav(.back) == [])
        #expect(s.page == .host(id: "living-room", focus: .forget))
        // Yes forgets and leaves the host page.
        s.nav(.activate, .move(.left))
        #expect(s.nav(.activate) == [.shell(.forget(Self.living))])
        #expect(s.pages == [.home(.hosts)])
    }

    @Test func powerOffAndRestartAreAskedFirstAndTheFocusComesBack() {
        var s = Shell()
        s.nav(.move(.down), .move(.right), .move(.right), .activate)
        #expect(s.page == .confirm(.powerOff, yes: false))
        s.nav(.back)
        #expect(s.page == .home(.action(.powerOff)))
        s.nav(.activate, .move(.left))
        #expect(s.nav(.activate) == [.shell(.powerOff)])
        #expect(s.page == .home(.action(.powerOff)))
        s.nav(.move(.right), .activate, .move(.left))
        #expect(s.nav(.activate) == [.shell(.restart)])
        #expect(s.page == .home(.action(.restart)))
    }

    @Test func aHostThatVanishesTakesItsPagesWithIt() {
        var s = Shell(hosts: [])
        s.send(.hostsChanged([Self.living]))
        s.nav(.activate, .move(.down), .activate)
        #expect(s.page == .pin(hostID: "living-room", focus: GridPosition(row: 0, column: 0)))
        s.send(.hostsChanged([]))
        #expect(s.pages == [.home(.hosts)])
        #expect(s.phase == .choosingHost(focus: nil))
    }

    // MARK: pairing with a PIN

    @Test func theDigitPadTypesAndTypedDigitsCountTooAndOKSendsFourDigits() {
        var s = Shell()
        s.nav(.activate, .move(.down), .activate)
        #expect(s.page == .pin(hostID: "living-room", focus: GridPosition(row: 0, column: 0)))
        // Pad: 1, then right → 2, down → 5.
        s.nav(.activate, .move(.right), .activate, .move(.down), .activate)
        #expect(s.machine.state.shell.pinDraft("living-room") == "125")
        // OK with three digits does nothing.
        s.nav(.move(.down), .move(.down), .move(.right))
        #expect(s.page == .pin(hostID: "living-room", focus: GridPosition(row: 3, column: 2)))
        #expect(s.nav(.activate) == [])
        // Typed: letters are refused, a digit is taken, a fifth is refused.
        s.type("x9")
        s.type("7")
        #expect(s.machine.state.shell.pinDraft("living-room") == "1259")
        // Erase on the pad and typed.
        s.nav(.move(.left), .move(.left), .activate)
        #expect(s.machine.state.shell.pinDraft("living-room") == "125")
        s.nav(.erase)
        #expect(s.machine.state.shell.pinDraft("living-room") == "12")
        s.type("34\n")
        #expect(s.phase == .pairing(PairingProgress(job: 1, host: Self.living, pin: "1234", step: .resolving)))
    }

    @Test func backFromThePinPadKeepsTheDigitsForTheNextVisit() {
        var s = Shell()
        s.nav(.activate, .move(.down), .activate)
        s.type("42")
        s.nav(.back)
        #expect(s.page == .host(id: "living-room", focus: .pairWithPIN))
        s.nav(.back)
        #expect(s.page == .home(.hosts))
        s.nav(.activate, .move(.down), .activate)
        #expect(s.machine.state.shell.pinDraft("living-room") == "42")
    }

    @Test func aWrongPinSaysSoAndBackReturnsToThePadWithTheDigits() {
        var s = Shell()
        s.nav(.activate, .move(.down), .activate)
        s.type("1234\n")
        s.send(.resolved(job: 1, key: Self.key))
        // The sentence the pairing exchange fails with on a wrong PIN.
        let sentence = HandshakeError.wrongPIN.description
        #expect(sentence.contains("one guess"))
        s.send(.pairing(job: 1, .failed(sentence: sentence)))
        #expect(s.phase == .error(sentence: sentence, retry: nil))
        #expect(s.machine.state.shell.errorFocus == .backToHosts)
        #expect(s.nav(.move(.left)) == [])
        #expect(s.machine.state.shell.errorFocus == .backToHosts, "no retry to move to")
        s.nav(.activate)
        #expect(s.page == .pin(hostID: "living-room", focus: GridPosition(row: 0, column: 0)))
        #expect(s.machine.state.shell.pinDraft("living-room") == "1234")
    }

    @Test func aPairingThatSucceedsLeavesThePadAndForgetsThePin() {
        var s = Shell()
        s.nav(.activate, .move(.down), .activate)
        s.type("1234\n")
        s.send(.resolved(job: 1, key: Self.key))
        #expect(s.send(.pairing(job: 1, .paired(fingerprint: Self.fp))) == [.trustHost(key: Self.key, fingerprint: Self.fp)])
        #expect(s.page == .host(id: "living-room", focus: .pairWithPIN))
        #expect(s.machine.state.shell.pinDraft("living-room") == "")
    }

    @Test func cancellingAPairingReturnsToThePadWithTheDigits() {
        var s = Shell()
        s.nav(.activate, .move(.down), .activate)
        s.type("1234\n")
        #expect(s.nav(.activate) == [.cancelPairing(job: 1)])
        #expect(s.page == .pin(hostID: "living-room", focus: GridPosition(row: 0, column: 0)))
        #expect(s.machine.state.shell.pinDraft("living-room") == "1234")
    }

    // MARK: errors

    @Test func anErrorOffersRetryFirstAndBackToHosts() {
        var s = Shell()
        s.nav(.activate, .activate)
        s.send(.unresolvable(job: 1, sentence: "The name living-room does not resolve."))
        #expect(s.phase == .error(sentence: "The name living-room does not resolve.", retry: "living-room"))
        #expect(s.machine.state.shell.errorFocus == .retry)
        #expect(s.nav(.activate) == [.resolve(job: 2, host: Self.living)])
        s.send(.unresolvable(job: 2, sentence: "The name living-room does not resolve."))
        s.nav(.move(.right))
        #expect(s.machine.state.shell.errorFocus == .backToHosts)
        #expect(s.nav(.activate) == [])
        #expect(s.page == .host(id: "living-room", focus: .connect))
        s.nav(.activate)
        s.send(.unresolvable(job: 3, sentence: "again"))
        #expect(s.nav(.back) == [])
        #expect(s.phase == .choosingHost(focus: "living-room"))
    }

    // MARK: add a host

    @Test func addHostTypesOnTheKeyboardKeepsTheTextOnBackAndAddsAFocusedCard() {
        var s = Shell()
        s.nav(.move(.down), .activate)
        #expect(s.page == .addHost(focus: GridPosition(row: 0, column: 0)))
        // On-screen: "1", then right to "2"; typed: "0.lan".
        s.nav(.activate, .move(.right), .activate)
        s.type("0.lan")
        #expect(s.machine.state.shell.addressDraft == "120.lan")
        s.nav(.erase)
        s.nav(.back)
        #expect(s.page == .home(.action(.addHost)))
        #expect(s.machine.state.shell.addressDraft == "120.la", "Back keeps the text")
        s.nav(.activate)
        #expect(s.machine.state.shell.addressDraft == "120.la")
        s.type("n ")   // whitespace is refused
        // To OK: the last row's last key.
        for _ in 0..<4 { s.nav(.move(.down)) }
        for _ in 0..<5 { s.nav(.move(.right)) }
        #expect(s.page == .addHost(focus: GridPosition(row: 4, column: 3)))
        let host = HostEntry(address: "120.lan")
        #expect(s.nav(.activate) == [.shell(.saveHost(host))])
        #expect(s.pages == [.home(.hosts)])
        #expect(s.phase == .choosingHost(focus: "120.lan"))
        #expect(s.machine.state.hosts.map(\.id) == ["living-room", "office", "120.lan"])
        #expect(s.machine.state.shell.addressDraft == "")
        // Discovery replacing its part of the list keeps the added host.
        s.send(.hostsChanged([]))
        #expect(s.machine.state.hosts.map(\.id) == ["living-room", "office", "120.lan"])
    }

    @Test func anEmptyAddressIsNotAdded() {
        var s = Shell()
        s.nav(.move(.down), .activate)
        #expect(s.nav(.character("\n")) == [])
        #expect(s.page == .addHost(focus: GridPosition(row: 0, column: 0)))
    }

    // MARK: settings

    @Test func settingsChangeWithLeftRightAndAButAndOpenReadOnlyPagesBackOut() {
        var s = Shell()
        s.nav(.move(.down), .move(.right), .activate)
        #expect(s.page == .settings(focus: .mode))
        #expect(s.nav(.move(.left)) == [], "already the first mode")
        var expected = ShellSettings(config: KioskConfig(), modes: ["1920x1080@60", "1280x720@60"], audioDevices: ["default"])
        #expect(s.machine.state.shell.settings == expected)
        expected.displayMode = "1920x1080@60"
        #expect(s.nav(.move(.right)) == [.shell(.saveSettings(expected, statsOverlay: false))])
        s.nav(.move(.down))
        #expect(s.page == .settings(focus: .scaling))
        #expect(s.machine.state.shell.settings.choice(.scaling)?.options == ["Fit the screen", "Native (1:1)"])
        expected.scaling = .native
        #expect(s.nav(.activate) == [.shell(.saveSettings(expected, statsOverlay: false))])
        #expect(expected.stored(in: KioskConfig()).scaling == .native)
        s.nav(.move(.down))
        expected.bitrateKbps = ShellSettings.bitratesKbps[0]
        #expect(s.nav(.activate) == [.shell(.saveSettings(expected, statsOverlay: false))])
        s.nav(.move(.down), .move(.down))
        #expect(s.page == .settings(focus: .audioDevice))
        expected.audioDevice = "default"
        #expect(s.nav(.activate) == [.shell(.saveSettings(expected, statsOverlay: false))])
        s.nav(.move(.down))
        #expect(s.page == .settings(focus: .statsOverlay))
        #expect(s.nav(.activate) == [.setStatsOverlay(true), .shell(.saveSettings(expected, statsOverlay: true))])
        #expect(s.machine.state.statsOverlay)
        s.nav(.move(.down), .activate)
        #expect(s.page == .info(.controllers))
        s.nav(.back)
        #expect(s.page == .settings(focus: .controllers))
        s.nav(.move(.down), .activate)
        #expect(s.page == .info(.about))
        s.nav(.activate)
        #expect(s.page == .settings(focus: .about))
        // HDMI-CEC's switches follow (the second column)
        s.nav(.move(.down))
        #expect(s.page == .settings(focus: .cec))
        expected.cec = false
        #expect(s.nav(.activate) == [.shell(.saveSettings(expected, statsOverlay: true))])
        s.nav(.move(.down), .move(.down), .move(.down))
        #expect(s.page == .settings(focus: .cecStandbyEndsStream))
        // then the box's own standby, which saves at once
        s.nav(.move(.down))
        #expect(s.page == .settings(focus: .standbyAfter))
        expected.standbyAfterSeconds = 600
        #expect(s.nav(.move(.right)) == [.shell(.saveSettings(expected, statsOverlay: true))])
        // then what the next stream may ask for: HDR, the sound channels, redundant audio
        s.nav(.move(.down))
        #expect(s.page == .settings(focus: .hdr))
        expected.hdr = false
        #expect(s.nav(.activate) == [.shell(.saveSettings(expected, statsOverlay: true))])
        s.nav(.move(.down))
        expected.audioChannels = .fixed(2)
        #expect(s.nav(.move(.right)) == [.shell(.saveSettings(expected, statsOverlay: true))])
        s.nav(.move(.down))
        #expect(s.page == .settings(focus: .audioRedundancy))
        expected.audioRedundancy = false
        #expect(s.nav(.activate) == [.shell(.saveSettings(expected, statsOverlay: true))])
        s.nav(.move(.down))
        #expect(s.page == .settings(focus: .audioRedundancy), "the last entry")
        s.nav(.back)
        #expect(s.page == .home(.action(.settings)))
    }

    @Test func aChoiceCyclesFromItsLastOptionToTheFirst() {
        var s = Shell()
        s.nav(.move(.down), .move(.right), .activate, .move(.down), .move(.down), .move(.down))
        #expect(s.page == .settings(focus: .decoder))
        s.nav(.activate, .activate)
        #expect(s.machine.state.shell.settings.decoder == "v4l2")
        s.nav(.activate)
        #expect(s.machine.state.shell.settings.decoder == "software")
        s.nav(.activate)
        #expect(s.machine.state.shell.settings.decoder == "auto")
    }

    // MARK: the stream and its menu

    @Test func theMenuChordOpensTheInStreamMenuWhichMovesActsAndBacksOut() {
        var s = Shell(hosts: [Self.living], known: Self.trusted())
        s.nav(.activate, .activate)
        s.send(.resolved(job: 1, key: Self.key))
        s.send(.stream(job: 1, .established(peerFingerprint: Self.fp, redirected: false)))
        s.send(.stream(job: 1, .firstPicture))
        guard case .streaming(let progress) = s.phase else { Issue.record("not streaming"); return }
        // While streaming only the chord means anything to the shell.
        #expect(s.nav(.activate, .back, .move(.up)) == [])
        s.nav(.menu)
        #expect(s.phase == .inStreamMenu(progress, selection: .resume))
        s.nav(.move(.up))
        #expect(s.phase == .inStreamMenu(progress, selection: .resume))
        s.nav(.move(.down))
        #expect(s.nav(.activate) == [.setStatsOverlay(true)])
        s.nav(.menu)
        #expect(s.phase == .streaming(progress))
        s.nav(.menu, .move(.down), .move(.down), .move(.down), .move(.down))
        #expect(s.phase == .inStreamMenu(progress, selection: .quit))
        s.nav(.move(.up))
        #expect(s.nav(.activate) == [.stopStream(job: 1)])
        #expect(s.page == .host(id: "living-room", focus: .connect), "back where the stream was started")
    }

    // MARK: auto-repeat

    @Test func aHeldDirectionRepeatsAfter400msThenEvery120ms() {
        var r = KeyRepeat()
        let t0: UInt64 = 5_000_000_000
        #expect(r.nextDeadline == nil)
        #expect(r.press(.right, now: t0) == .move(.right))
        #expect(r.nextDeadline == t0 + 400_000_000)
        #expect(r.fire(now: t0 + 399_999_999) == nil)
        #expect(r.fire(now: t0 + 400_000_000) == .move(.right))
        #expect(r.nextDeadline == t0 + 520_000_000)
        #expect(r.fire(now: t0 + 519_000_000) == nil)
        #expect(r.fire(now: t0 + 520_000_000) == .move(.right))
        #expect(r.nextDeadline == t0 + 640_000_000)
        r.release(.right)
        #expect(r.nextDeadline == nil)
        #expect(r.fire(now: t0 + 700_000_000) == nil)
    }

    @Test func aLateWakeUpOwesOneMoveNotABurst() {
        var r = KeyRepeat()
        _ = r.press(.down, now: 0)
        #expect(r.fire(now: 1_000_000_000) == .move(.down))
        #expect(r.fire(now: 1_000_000_000) == nil)
        #expect(r.nextDeadline == 1_120_000_000)
    }

    @Test func aSecondDirectionTakesOverAndReleasingTheFirstDoesNotStopIt() {
        var r = KeyRepeat()
        _ = r.press(.up, now: 0)
        #expect(r.press(.left, now: 300_000_000) == .move(.left))
        #expect(r.nextDeadline == 700_000_000, "the delay starts again")
        r.release(.up)
        #expect(r.held == .left)
        #expect(r.fire(now: 700_000_000) == .move(.left))
    }

    @Test func gridMovesStopAtEdgesAndLandOnShorterRows() {
        let rows = KeyLayout.rowLengths(KeyLayout.address)
        #expect(rows == [10, 10, 10, 10, 4])
        var p = GridPosition(row: 3, column: 9)
        p = p.moved(.down, rowLengths: rows)
        #expect(p == GridPosition(row: 4, column: 3))
        #expect(p.moved(.right, rowLengths: rows) == p)
        #expect(p.moved(.down, rowLengths: rows) == p)
        #expect(GridPosition(row: 0, column: 0).moved(.up, rowLengths: rows) == GridPosition(row: 0, column: 0))
        #expect(GridPosition(row: 0, column: 0).moved(.left, rowLengths: rows) == GridPosition(row: 0, column: 0))
        #expect(KeyLayout.digits[3].map(\.label) == ["⌫", "0", "OK"])
    }
}
