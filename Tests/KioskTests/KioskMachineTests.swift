import Testing
import PunktfunkSession
import Kiosk

/// The life of the box without devices: every phase's transitions, fed as events with a manual
/// clock, each step's state and effects asserted exactly (an unexpected effect fails the test).
@Suite struct KioskMachineTests {
    static let fp = String(repeating: "ab", count: 32)
    static let otherFP = String(repeating: "cd", count: 32)
    static let living = HostEntry(id: "living-room", name: "Living room", address: "192.168.1.20")
    static let office = HostEntry(id: "office", name: "Office", address: "office.lan:9800")
    static let key = "192.168.1.20:9777"
    static let file = FilePlayback(path: "/tmp/a.hevc", fps: 60, passes: 1, seconds: nil)

    /// A machine and a clock; `send` checks that no event ever moves time backwards.
    struct Box {
        var machine: KioskMachine
        var now: UInt64 = 1_000_000_000

        init(_ policy: KioskPolicy = KioskPolicy(afterJob: .returnToHosts), hosts: [HostEntry] = [KioskMachineTests.living],
             initial: UserAction? = nil) {
            machine = KioskMachine(policy: policy, hosts: hosts, initialAction: initial)
        }

        var phase: KioskPhase { machine.state.phase }

        @discardableResult
        mutating func send(_ event: KioskEvent, after ns: UInt64 = 1_000_000) -> [KioskEffect] {
            now += ns
            return machine.handle(event, now: now)
        }

        /// `.started` with a display and, optionally, a trust store.
        mutating func start(known: KnownHosts = KnownHosts(), display: StartReport.Display = .glass(name: "HDMI-A-1 1920x1080@60"),
                            problem: String? = nil) -> [KioskEffect] {
            send(.started(StartReport(display: display, knownHosts: known, profileProblem: problem)))
        }

        /// Started, connected to `living` (resolved, dialled) and streaming as job 1.
        mutating func streaming(known: KnownHosts = KioskMachineTests.trusted()) {
            _ = start(known: known)
            send(.user(.connect(hostID: "living-room")))
            send(.resolved(job: 1, key: KioskMachineTests.key))
            send(.stream(job: 1, .established(peerFingerprint: KioskMachineTests.fp, redirected: false)))
            send(.stream(job: 1, .firstPicture))
        }
    }

    static func trusted() -> KnownHosts {
        var k = KnownHosts()
        try! k.trust(host: key, fingerprint: fp)
        return k
    }

    static let oneShot = KioskPolicy(afterJob: .exitProcess)

    // MARK: starting

    @Test func startingWithADisplayShowsTheHostListFocusedOnTheFirstHost() {
        var box = Box(hosts: [Self.living, Self.office])
        #expect(box.phase == .starting)
        #expect(box.machine.nextDeadline == nil)
        #expect(box.start() == [])
        #expect(box.phase == .choosingHost(focus: "living-room"))
        #expect(box.machine.state.display == .glass(name: "HDMI-A-1 1920x1080@60"))
        // A second start report changes nothing.
        #expect(box.start(display: .headlessByRequest) == [])
        #expect(box.machine.state.display == .glass(name: "HDMI-A-1 1920x1080@60"))
    }

    @Test func withoutADisplayAJobThatNeedsOneEndsWithStatus2AndSaysWhy() {
        var box = Box(KioskPolicy(afterJob: .exitProcess, requiresDisplay: true), initial: .connect(hostID: "living-room"))
        let before = box.machine.state
        #expect(box.start(display: .unavailable(sentence: "No DRM device has a connected display.")) == [.exit(code: 2)])
        #expect(box.phase == .leaving(Leaving(code: 2, reason: "No DRM device has a connected display.", job: nil, deadlineNs: .max)))
        #expect(KioskConsole.lines(from: before, to: box.machine.state) == ["No DRM device has a connected display."])
    }

    @Test func anUnusableDisplayEndsAJobThatNeedsOneWithStatus1() {
        var box = Box(KioskPolicy(afterJob: .exitProcess, requiresDisplay: true), initial: .play(Self.file))
        #expect(box.start(display: .unusable(sentence: "mode 800x600 not offered")) == [.exit(code: 1)])
        var kiosk = Box(KioskPolicy(afterJob: .exitProcess), initial: .connect(hostID: "living-room"))
        let before = kiosk.machine.state
        #expect(kiosk.start(known: Self.trusted(), display: .unusable(sentence: "Another session holds the display.")) == [.resolve(job: 1, host: Self.living)])
        #expect(KioskConsole.lines(from: before, to: kiosk.machine.state) == ["Another session holds the display. Running without a display."])
    }

    @Test func withoutADisplayTheKioskSaysSoOnceAndRunsTheSameJobHeadless() {
        var box = Box(KioskPolicy(afterJob: .exitProcess), initial: .connect(hostID: "living-room"))
        let before = box.machine.state
        #expect(box.start(known: Self.trusted(), display: .unavailable(sentence: "No DRM device has a connected display."))
                == [.resolve(job: 1, host: Self.living)])
        #expect(KioskConsole.lines(from: before, to: box.machine.state)
                == ["No DRM device has a connected display. Running without a display."])
        let resolving = box.machine.state
        box.send(.resolved(job: 1, key: Self.key))
        #expect(KioskConsole.lines(from: resolving, to: box.machine.state) == [])
    }

    @Test func theCommandLinesJobStartsOnceStarted() {
        var box = Box(Self.oneShot, initial: .play(Self.file))
        #expect(box.start() == [.startStream(job: 1, .file(Self.file))])
        #expect(box.phase == .connecting(ConnectProgress(job: 1, target: .file(Self.file), step: .awaitingPicture)))
    }

    // MARK: choosing a host

    @Test func connectResolvesFirstAndUnknownHostIdsAreIgnored() {
        var box = Box()
        _ = box.start()
        #expect(box.send(.user(.connect(hostID: "nobody"))) == [])
        #expect(box.phase == .choosingHost(focus: "living-room"))
        #expect(box.send(.user(.connect(hostID: "living-room"))) == [.resolve(job: 1, host: Self.living)])
        #expect(box.phase == .connecting(ConnectProgress(job: 1, target: .host(Self.living), step: .resolving)))
        // No second job while one runs.
        #expect(box.send(.user(.connect(hostID: "living-room"))) == [])
        #expect(box.send(.user(.pair(hostID: "living-room", pin: "1234"))) == [])
    }

    @Test func anUnusableProfileRefusesHostsButNotFiles() {
        var box = Box()
        _ = box.start(problem: "The client identity in /cfg is unusable.")
        #expect(box.send(.user(.connect(hostID: "living-room"))) == [])
        #expect(box.phase == .error(sentence: "The client identity in /cfg is unusable.", retry: nil))
        box.send(.user(.back))
        #expect(box.send(.user(.pair(hostID: "living-room", pin: nil))) == [])
        #expect(box.phase == .error(sentence: "The client identity in /cfg is unusable.", retry: nil))
        box.send(.user(.back))
        #expect(box.send(.user(.play(Self.file))) == [.startStream(job: 1, .file(Self.file))])
    }

    @Test func playingAFileNeedsGlass() {
        var box = Box()
        _ = box.start(display: .headlessByRequest)
        #expect(box.send(.user(.play(Self.file))) == [])
        #expect(box.phase == .error(sentence: "There is no display to show /tmp/a.hevc on.", retry: nil))
        var oneShot = Box(Self.oneShot)
        _ = oneShot.start(display: .headlessByRequest)
        #expect(oneShot.send(.user(.play(Self.file))) == [.exit(code: 2)])
    }

    @Test func discoveryUpdatesKeepTheCommandLinesHostsAndMoveALostFocus() {
        var box = Box()
        _ = box.start()
        let kitchen = HostEntry(id: "kitchen", name: "Kitchen", address: "10.0.0.9")
        let duplicate = HostEntry(id: "living-room", name: "other", address: "10.0.0.1")
        box.send(.hostsChanged([kitchen, duplicate]))
        #expect(box.machine.state.hosts == [Self.living, kitchen])
        #expect(box.phase == .choosingHost(focus: "living-room"))
        var empty = Box(hosts: [])
        _ = empty.start()
        #expect(empty.phase == .choosingHost(focus: nil))
        empty.send(.hostsChanged([kitchen]))
        #expect(empty.phase == .choosingHost(focus: "kitchen"))
        empty.send(.hostsChanged([]))
        #expect(empty.phase == .choosingHost(focus: nil))
        #expect(empty.machine.state.hosts == [])
    }

    @Test func quitAndSignalsFromTheHostListExitAtOnce() {
        var quit = Box()
        _ = quit.start()
        #expect(quit.send(.user(.quit)) == [.exit(code: 0)])
        #expect(quit.send(.user(.quit)) == [])
        #expect(quit.send(.signal(.terminate)) == [])
        var interrupted = Box()
        _ = interrupted.start()
        #expect(interrupted.send(.signal(.interrupt)) == [.exit(code: 130)])
        #expect(interrupted.machine.nextDeadline == nil)
    }

    // MARK: trust and connecting

    @Test func aHostInTheTrustStoreIsPinnedToItsFingerprint() {
        var box = Box()
        _ = box.start(known: Self.trusted())
        box.send(.user(.connect(hostID: "living-room")))
        #expect(box.send(.resolved(job: 1, key: Self.key))
                == [.startStream(job: 1, .session(host: Self.living, key: Self.key, trust: .pinned(Self.fp)))])
        #expect(box.phase == .connecting(ConnectProgress(job: 1, target: .host(Self.living),
                                                         step: .dialing(key: Self.key, trust: .pinned(fingerprint: Self.fp, source: .trustStore)))))
    }

    @Test func theTrustOrderIsStoreThenGivenThenFirstUseThenRefusal() {
        let given = HostEntry(address: "192.168.1.20", givenFingerprint: Self.otherFP.uppercased())
        let store = Self.trusted()
        #expect(TrustDecision.decide(key: Self.key, host: given, knownHosts: store, allowFirstUse: true)
                == .pinned(fingerprint: Self.fp, source: .trustStore))
        #expect(TrustDecision.decide(key: Self.key, host: given, knownHosts: KnownHosts(), allowFirstUse: true)
                == .pinned(fingerprint: Self.otherFP, source: .given))
        #expect(TrustDecision.decide(key: Self.key, host: Self.living, knownHosts: KnownHosts(), allowFirstUse: true) == .trustOnFirstUse)
        let refused = TrustDecision.decide(key: Self.key, host: Self.living, knownHosts: KnownHosts(), allowFirstUse: false)
        #expect(refused == .refused(sentence: TrustDecision.unknownHostSentence("192.168.1.20")))
        #expect(refused.hostTrust == nil)
        let sentence = TrustDecision.unknownHostSentence("192.168.1.20")
        #expect(sentence.contains("punktfunk-kiosk pair 192.168.1.20 --pin PIN") && sentence.contains("--fp") && sentence.contains("--tofu"))
    }

    @Test func anUnknownHostIsRefusedWithTheSentenceAndBackLeadsToTheHostList() {
        var box = Box(hosts: [Self.living, Self.office])
        _ = box.start()
        box.send(.user(.connect(hostID: "office")))
        #expect(box.send(.resolved(job: 1, key: "10.1.1.1:9800")) == [])
        let sentence = TrustDecision.unknownHostSentence("office.lan:9800")
        #expect(box.phase == .error(sentence: sentence, retry: "office"))
        #expect(box.send(.user(.back)) == [])
        #expect(box.phase == .choosingHost(focus: "office"))
    }

    @Test func anUnknownHostEndsAOneShotConnectWithStatus1() {
        var box = Box(Self.oneShot, initial: .connect(hostID: "living-room"))
        _ = box.start()
        let before = box.machine.state
        #expect(box.send(.resolved(job: 1, key: Self.key)) == [.exit(code: 1)])
        #expect(KioskConsole.lines(from: before, to: box.machine.state) == [TrustDecision.unknownHostSentence("192.168.1.20")])
    }

    @Test func anUnresolvableHostIsAnErrorWithRetry() {
        var box = Box()
        _ = box.start()
        box.send(.user(.connect(hostID: "living-room")))
        #expect(box.send(.unresolvable(job: 7, sentence: "stale")) == [])
        #expect(box.send(.unresolvable(job: 1, sentence: "Cannot resolve the host: x.")) == [])
        #expect(box.phase == .error(sentence: "Cannot resolve the host: x.", retry: "living-room"))
        // Retry from the error screen.
        #expect(box.send(.user(.connect(hostID: "living-room"))) == [.resolve(job: 2, host: Self.living)])
    }

    @Test func firstUseRecordsTheFingerprintOnceEstablishedButNotAfterARedirect() {
        var box = Box(KioskPolicy(afterJob: .returnToHosts, allowFirstUse: true))
        _ = box.start()
        box.send(.user(.connect(hostID: "living-room")))
        #expect(box.send(.resolved(job: 1, key: Self.key))
                == [.startStream(job: 1, .session(host: Self.living, key: Self.key, trust: .trustOnFirstUse))])
        #expect(box.send(.stream(job: 1, .established(peerFingerprint: Self.fp, redirected: false)))
                == [.trustHost(key: Self.key, fingerprint: Self.fp)])
        #expect(box.machine.state.knownHosts.fingerprint(for: Self.key) == Self.fp)
        #expect(box.phase == .connecting(ConnectProgress(job: 1, target: .host(Self.living), step: .awaitingPicture)))

        var redirected = Box(KioskPolicy(afterJob: .returnToHosts, allowFirstUse: true))
        _ = redirected.start()
        redirected.send(.user(.connect(hostID: "living-room")))
        redirected.send(.resolved(job: 1, key: Self.key))
        #expect(redirected.send(.stream(job: 1, .established(peerFingerprint: Self.otherFP, redirected: true))) == [])
        #expect(redirected.machine.state.knownHosts.fingerprint(for: Self.key) == nil)

        // A pinned session records nothing.
        var pinned = Box()
        _ = pinned.start(known: Self.trusted())
        pinned.send(.user(.connect(hostID: "living-room")))
        pinned.send(.resolved(job: 1, key: Self.key))
        #expect(pinned.send(.stream(job: 1, .established(peerFingerprint: Self.fp, redirected: false))) == [])
    }

    @Test func waitingForApprovalIsAVisibleStepSaidOnce() {
        var box = Box()
        _ = box.start(known: Self.trusted())
        box.send(.user(.connect(hostID: "living-room")))
        box.send(.resolved(job: 1, key: Self.key))
        var before = box.machine.state
        box.send(.stream(job: 1, .waitingForApproval(count: 1)))
        let trust = TrustDecision.pinned(fingerprint: Self.fp, source: .trustStore)
        #expect(box.phase == .connecting(ConnectProgress(job: 1, target: .host(Self.living),
                                                         step: .waitingForApproval(key: Self.key, trust: trust, count: 1))))
        #expect(KioskConsole.lines(from: before, to: box.machine.state) == ["waiting for approval on the host"])
        before = box.machine.state
        box.send(.stream(job: 1, .waitingForApproval(count: 2)))
        #expect(KioskConsole.lines(from: before, to: box.machine.state) == [])
        box.send(.stream(job: 1, .established(peerFingerprint: Self.fp, redirected: false)))
        #expect(box.send(.stream(job: 1, .firstPicture), after: 5_000) == [])
        #expect(box.phase == .streaming(StreamProgress(job: 1, target: .host(Self.living), sinceNs: box.now)))
    }

    @Test func aLossBeforeTheFirstPictureResumesAsAConnectStep() {
        var box = Box()
        _ = box.start(known: Self.trusted())
        box.send(.user(.connect(hostID: "living-room")))
        box.send(.resolved(job: 1, key: Self.key))
        box.send(.stream(job: 1, .established(peerFingerprint: Self.fp, redirected: false)))
        let before = box.machine.state
        box.send(.stream(job: 1, .resuming(attempt: 1)))
        #expect(box.phase == .connecting(ConnectProgress(job: 1, target: .host(Self.living), step: .resuming(attempt: 1))))
        #expect(KioskConsole.lines(from: before, to: box.machine.state) == ["the connection was lost; resuming the session (attempt 1)"])
        box.send(.stream(job: 1, .established(peerFingerprint: Self.fp, redirected: false)))
        #expect(box.phase == .connecting(ConnectProgress(job: 1, target: .host(Self.living), step: .awaitingPicture)))
    }

    @Test func aFailedConnectShowsTheHostsSentenceAndRetryWorks() {
        var box = Box()
        _ = box.start(known: Self.trusted())
        box.send(.user(.connect(hostID: "living-room")))
        box.send(.resolved(job: 1, key: Self.key))
        let before = box.machine.state
        #expect(box.send(.stream(job: 1, .ended(.failed(sentence: "The host denied this device. [0x64 denied]")))) == [])
        #expect(box.phase == .error(sentence: "The host denied this device. [0x64 denied]", retry: "living-room"))
        #expect(KioskConsole.lines(from: before, to: box.machine.state) == ["The host denied this device. [0x64 denied]"])
        #expect(box.send(.user(.connect(hostID: "living-room"))) == [.resolve(job: 2, host: Self.living)])
    }

    @Test func cancellingStopsTheStreamAndLateEventsOfThatJobAreIgnored() {
        var box = Box()
        _ = box.start(known: Self.trusted())
        box.send(.user(.connect(hostID: "living-room")))
        box.send(.resolved(job: 1, key: Self.key))
        box.send(.stream(job: 1, .waitingForApproval(count: 1)))
        #expect(box.send(.user(.cancel)) == [.stopStream(job: 1)])
        #expect(box.phase == .choosingHost(focus: "living-room"))
        #expect(box.send(.stream(job: 1, .established(peerFingerprint: Self.fp, redirected: false))) == [])
        #expect(box.send(.stream(job: 1, .firstPicture)) == [])
        #expect(box.send(.stream(job: 1, .ended(.failed(sentence: "late")))) == [])
        #expect(box.phase == .choosingHost(focus: "living-room"))
        // Cancelling while resolving has nothing to stop; the late lookup is ignored.
        box.send(.user(.connect(hostID: "living-room")))
        #expect(box.send(.user(.cancel)) == [])
        #expect(box.send(.resolved(job: 2, key: Self.key)) == [])
        #expect(box.phase == .choosingHost(focus: "living-room"))
        // Nothing to cancel in the host list.
        #expect(box.send(.user(.cancel)) == [])
    }

    @Test func aOneShotCancelEndsWithStatus1() {
        var box = Box(Self.oneShot, initial: .connect(hostID: "living-room"))
        _ = box.start(known: Self.trusted())
        box.send(.resolved(job: 1, key: Self.key))
        #expect(box.send(.user(.cancel)) == [.stopStream(job: 1)])
        #expect(box.send(.stream(job: 1, .ended(.finished))) == [.exit(code: 1)])
    }

    @Test func aSignalWhileDialingStopsTheStreamThenExits() {
        var box = Box(Self.oneShot, initial: .connect(hostID: "living-room"))
        _ = box.start(known: Self.trusted())
        box.send(.resolved(job: 1, key: Self.key))
        #expect(box.send(.signal(.interrupt)) == [.stopStream(job: 1)])
        #expect(box.machine.nextDeadline == box.now + 5_000_000_000)
        #expect(box.send(.stream(job: 1, .ended(.failed(sentence: "closed")))) == [.exit(code: 130)])
        #expect(box.machine.nextDeadline == nil)
        #expect(box.send(.timer) == [])
    }

    // MARK: streaming

    @Test func aOneShotStreamThatRanItsCourseExits0() {
        var box = Box(Self.oneShot, initial: .connect(hostID: "living-room"))
        _ = box.start(known: Self.trusted())
        box.send(.resolved(job: 1, key: Self.key))
        box.send(.stream(job: 1, .established(peerFingerprint: Self.fp, redirected: false)))
        box.send(.stream(job: 1, .firstPicture))
        #expect(box.send(.stream(job: 1, .ended(.finished))) == [.exit(code: 0)])
        #expect(box.phase == .leaving(Leaving(code: 0, reason: nil, job: nil, deadlineNs: .max)))
    }

    @Test func aOneShotStreamThatBrokeOffExits1WithTheSentenceAndNothingToStop() {
        var box = Box(Self.oneShot, initial: .play(Self.file))
        _ = box.start()
        box.send(.stream(job: 1, .firstPicture))
        let before = box.machine.state
        #expect(box.send(.stream(job: 1, .ended(.failed(sentence: "The file holds no HEVC access units.")))) == [.exit(code: 1)])
        #expect(KioskConsole.lines(from: before, to: box.machine.state) == ["The file holds no HEVC access units."])
    }

    @Test func aStreamThatEndsInTheKioskGoesBackToTheHostList() {
        var box = Box()
        box.streaming()
        #expect(box.send(.stream(job: 1, .ended(.finished))) == [])
        #expect(box.phase == .choosingHost(focus: "living-room"))
    }

    @Test func resumingIsShownWhileStreamingAndClearedWhenTheSessionIsBack() {
        var box = Box()
        box.streaming()
        let since = box.now
        var before = box.machine.state
        box.send(.stream(job: 1, .resuming(attempt: 1)))
        #expect(box.phase == .streaming(StreamProgress(job: 1, target: .host(Self.living), sinceNs: since, resuming: 1)))
        #expect(KioskConsole.lines(from: before, to: box.machine.state) == ["the connection was lost; resuming the session (attempt 1)"])
        before = box.machine.state
        box.send(.stream(job: 1, .resuming(attempt: 2)))
        #expect(KioskConsole.lines(from: before, to: box.machine.state) == ["the connection was lost; resuming the session (attempt 2)"])
        box.send(.stream(job: 1, .established(peerFingerprint: Self.fp, redirected: false)))
        #expect(box.phase == .streaming(StreamProgress(job: 1, target: .host(Self.living), sinceNs: since)))
    }

    @Test func aSignalWhileStreamingWaitsForTheStreamThenExitsWithTheSignalsStatus() {
        var box = Box(Self.oneShot, initial: .connect(hostID: "living-room"))
        _ = box.start(known: Self.trusted())
        box.send(.resolved(job: 1, key: Self.key))
        box.send(.stream(job: 1, .firstPicture))
        #expect(box.send(.signal(.terminate)) == [.stopStream(job: 1)])
        // A second signal does not change the code or stop twice.
        #expect(box.send(.signal(.interrupt)) == [])
        #expect(box.send(.stream(job: 1, .ended(.finished))) == [.exit(code: 143)])
    }

    @Test func aStreamThatDoesNotStopInTimeIsLeftBehindAtTheDeadline() {
        var box = Box()
        box.streaming()
        #expect(box.send(.user(.quit)) == [.stopStream(job: 1)])
        let deadline = box.now + 5_000_000_000
        #expect(box.machine.nextDeadline == deadline)
        #expect(box.send(.timer, after: 4_000_000_000) == [])
        #expect(box.send(.timer, after: 1_000_000_000) == [.exit(code: 0)])
        #expect(box.machine.nextDeadline == nil)
        #expect(box.send(.timer) == [])
        #expect(box.send(.stream(job: 1, .ended(.finished))) == [])
    }

    // MARK: the in-stream menu

    @Test func theMenuOpensOverTheStreamAndResumeOrBackCloseIt() {
        var box = Box()
        box.streaming()
        guard case .streaming(let s) = box.phase else { Issue.record("not streaming: \(box.phase)"); return }
        #expect(box.send(.user(.openMenu)) == [])
        #expect(box.phase == .inStreamMenu(s, selection: .resume))
        #expect(box.send(.user(.menu(.resume))) == [])
        #expect(box.phase == .streaming(s))
        box.send(.user(.openMenu))
        #expect(box.send(.user(.back)) == [])
        #expect(box.phase == .streaming(s))
        // The menu only exists over a stream.
        var idle = Box()
        _ = idle.start()
        #expect(idle.send(.user(.openMenu)) == [])
        #expect(idle.send(.user(.menu(.quit))) == [])
        #expect(idle.phase == .choosingHost(focus: "living-room"))
    }

    @Test func theMenuTogglesTheStatsOverlayAndStaysOpen() {
        var box = Box()
        box.streaming()
        box.send(.user(.openMenu))
        #expect(box.send(.user(.menu(.toggleStats))) == [.setStatsOverlay(true)])
        #expect(box.machine.state.statsOverlay)
        guard case .inStreamMenu(_, .toggleStats) = box.phase else { Issue.record("\(box.phase)"); return }
        #expect(box.send(.user(.menu(.toggleStats))) == [.setStatsOverlay(false)])
    }

    @Test func disconnectFromTheMenuStopsTheStreamAndShowsTheHostList() {
        var box = Box()
        box.streaming()
        box.send(.user(.openMenu))
        #expect(box.send(.user(.menu(.disconnect))) == [.stopStream(job: 1)])
        #expect(box.phase == .choosingHost(focus: "living-room"))
        #expect(box.send(.stream(job: 1, .ended(.finished))) == [])
        var oneShot = Box(Self.oneShot, initial: .connect(hostID: "living-room"))
        _ = oneShot.start(known: Self.trusted())
        oneShot.send(.resolved(job: 1, key: Self.key))
        oneShot.send(.stream(job: 1, .firstPicture))
        oneShot.send(.user(.openMenu))
        #expect(oneShot.send(.user(.menu(.disconnect))) == [.stopStream(job: 1)])
        #expect(oneShot.send(.stream(job: 1, .ended(.finished))) == [.exit(code: 0)])
    }

    /// On glass the chord opens the in-stream menu over the stream (Resume focused) and closes it
    /// again; the stream is not touched.
    @Test func theEscapeChordOpensAndClosesTheMenuOnGlass() {
        var box = Box()
        box.streaming()
        #expect(box.send(.user(.escapeChord)) == [])
        guard case .inStreamMenu(let s, .resume) = box.phase else { Issue.record("no menu: \(box.phase)"); return }
        #expect(s.job == 1)
        #expect(box.send(.user(.escapeChord)) == [])
        guard case .streaming = box.phase else { Issue.record("the menu stayed: \(box.phase)"); return }
        var idle = Box()
        _ = idle.start()
        #expect(idle.send(.user(.escapeChord)) == [])
    }

    /// Headless there is no menu to show: the chord ends the stream like the menu's disconnect.
    @Test func theEscapeChordEndsAHeadlessStreamLikeDisconnect() {
        var box = Box()
        _ = box.start(known: Self.trusted(), display: .headlessByRequest)
        box.send(.user(.connect(hostID: "living-room")))
        box.send(.resolved(job: 1, key: Self.key))
        box.send(.stream(job: 1, .firstPicture))
        #expect(box.send(.user(.escapeChord)) == [.stopStream(job: 1)])
        #expect(box.phase == .choosingHost(focus: "living-room"))
        var oneShot = Box(Self.oneShot, initial: .connect(hostID: "living-room"))
        _ = oneShot.start(known: Self.trusted(), display: .headlessByRequest)
        oneShot.send(.resolved(job: 1, key: Self.key))
        oneShot.send(.stream(job: 1, .firstPicture))
        #expect(oneShot.send(.user(.escapeChord)) == [.stopStream(job: 1)])
        #expect(oneShot.send(.stream(job: 1, .ended(.finished))) == [.exit(code: 0)])
    }

    @Test func quitFromTheMenuLeaves() {
        var box = Box()
        box.streaming()
        box.send(.user(.openMenu))
        #expect(box.send(.user(.menu(.quit))) == [.stopStream(job: 1)])
        #expect(box.send(.stream(job: 1, .ended(.finished))) == [.exit(code: 0)])
    }

    @Test func aSessionThatEndsWhileTheMenuIsOpenClosesTheMenu() {
        var failed = Box()
        failed.streaming()
        failed.send(.user(.openMenu))
        failed.send(.stream(job: 1, .resuming(attempt: 1)))
        guard case .inStreamMenu(let s, .resume) = failed.phase else { Issue.record("\(failed.phase)"); return }
        #expect(s.resuming == 1)
        failed.send(.stream(job: 1, .established(peerFingerprint: Self.fp, redirected: false)))
        guard case .inStreamMenu(let back, .resume) = failed.phase else { Issue.record("\(failed.phase)"); return }
        #expect(back.resuming == nil)
        #expect(failed.send(.stream(job: 1, .ended(.failed(sentence: "The host ended the session.")))) == [])
        #expect(failed.phase == .error(sentence: "The host ended the session.", retry: "living-room"))
        #expect(failed.send(.user(.back)) == [])
        #expect(failed.phase == .choosingHost(focus: "living-room"))

        var finished = Box()
        finished.streaming()
        finished.send(.user(.openMenu))
        #expect(finished.send(.stream(job: 1, .ended(.finished))) == [])
        #expect(finished.phase == .choosingHost(focus: "living-room"))

        var oneShot = Box(Self.oneShot, initial: .connect(hostID: "living-room"))
        _ = oneShot.start(known: Self.trusted())
        oneShot.send(.resolved(job: 1, key: Self.key))
        oneShot.send(.stream(job: 1, .firstPicture))
        oneShot.send(.user(.openMenu))
        #expect(oneShot.send(.stream(job: 1, .ended(.failed(sentence: "gone")))) == [.exit(code: 1)])
    }

    // MARK: pairing

    @Test func pairingWithAPinStoresTheHostAndGoesBackToTheList() {
        var box = Box()
        _ = box.start()
        #expect(box.send(.user(.pair(hostID: "living-room", pin: "0042"))) == [.resolve(job: 1, host: Self.living)])
        #expect(box.send(.resolved(job: 1, key: Self.key))
                == [.startPairing(job: 1, PairingRequest(host: Self.living, key: Self.key, pin: "0042"))])
        #expect(box.phase == .pairing(PairingProgress(job: 1, host: Self.living, pin: "0042", step: .exchanging(key: Self.key))))
        #expect(box.send(.pairing(job: 9, .paired(fingerprint: Self.fp))) == [])
        #expect(box.send(.pairing(job: 1, .paired(fingerprint: Self.fp))) == [.trustHost(key: Self.key, fingerprint: Self.fp)])
        #expect(box.machine.state.knownHosts.fingerprint(for: Self.key) == Self.fp)
        #expect(box.phase == .choosingHost(focus: "living-room"))
        // The next connect is pinned from the store.
        box.send(.user(.connect(hostID: "living-room")))
        #expect(box.send(.resolved(job: 2, key: Self.key))
                == [.startStream(job: 2, .session(host: Self.living, key: Self.key, trust: .pinned(Self.fp)))])
    }

    @Test func requestingAccessWaitsVisiblyForTheConsole() {
        var box = Box(Self.oneShot, initial: .pair(hostID: "living-room", pin: nil))
        _ = box.start()
        box.send(.resolved(job: 1, key: Self.key))
        let before = box.machine.state
        box.send(.pairing(job: 1, .waitingForApproval(count: 1)))
        #expect(box.phase == .pairing(PairingProgress(job: 1, host: Self.living, pin: nil, step: .waitingForApproval(key: Self.key, count: 1))))
        #expect(KioskConsole.lines(from: before, to: box.machine.state) == ["waiting for approval on the host"])
        box.send(.pairing(job: 1, .waitingForApproval(count: 2)))
        #expect(box.send(.pairing(job: 1, .paired(fingerprint: Self.fp)))
                == [.trustHost(key: Self.key, fingerprint: Self.fp), .exit(code: 0)])
    }

    @Test func aWrongPinIsAnErrorWithoutRetryAndAOneShotPairExits1() {
        let sentence = "Pairing failed: the PIN is wrong (or someone is in the middle). That used the host's one guess; start pairing on the host again and enter the new PIN."
        var box = Box()
        _ = box.start()
        box.send(.user(.pair(hostID: "living-room", pin: "9999")))
        box.send(.resolved(job: 1, key: Self.key))
        #expect(box.send(.pairing(job: 1, .failed(sentence: sentence))) == [])
        #expect(box.phase == .error(sentence: sentence, retry: nil))
        #expect(box.machine.state.knownHosts.entries.isEmpty)
        box.send(.user(.back))
        #expect(box.phase == .choosingHost(focus: "living-room"))

        var oneShot = Box(Self.oneShot, initial: .pair(hostID: "living-room", pin: "9999"))
        _ = oneShot.start()
        oneShot.send(.resolved(job: 1, key: Self.key))
        #expect(oneShot.send(.pairing(job: 1, .failed(sentence: sentence))) == [.exit(code: 1)])
        // An unresolvable host ends a pairing the same way.
        var unresolvable = Box(Self.oneShot, initial: .pair(hostID: "living-room", pin: "0042"))
        _ = unresolvable.start()
        #expect(unresolvable.send(.unresolvable(job: 1, sentence: "Cannot resolve the host.")) == [.exit(code: 1)])
    }

    @Test func aFingerprintThatIsNotOneFailsThePairing() {
        var box = Box()
        _ = box.start()
        box.send(.user(.pair(hostID: "living-room", pin: "0042")))
        box.send(.resolved(job: 1, key: Self.key))
        #expect(box.send(.pairing(job: 1, .paired(fingerprint: "xyz"))) == [])
        #expect(box.phase == .error(sentence: "The host answered with an unusable fingerprint (xyz).", retry: nil))
    }

    @Test func cancellingOrQuittingAPairingForgetsIt() {
        var box = Box()
        _ = box.start()
        box.send(.user(.pair(hostID: "living-room", pin: nil)))
        box.send(.resolved(job: 1, key: Self.key))
        #expect(box.send(.user(.cancel)) == [.cancelPairing(job: 1)])
        #expect(box.phase == .choosingHost(focus: "living-room"))
        #expect(box.send(.pairing(job: 1, .paired(fingerprint: Self.fp))) == [])
        #expect(box.machine.state.knownHosts.entries.isEmpty)

        box.send(.user(.pair(hostID: "living-room", pin: nil)))
        box.send(.resolved(job: 2, key: Self.key))
        #expect(box.send(.signal(.interrupt)) == [.cancelPairing(job: 2), .exit(code: 130)])

        var oneShot = Box(Self.oneShot, initial: .pair(hostID: "living-room", pin: nil))
        _ = oneShot.start()
        oneShot.send(.resolved(job: 1, key: Self.key))
        #expect(oneShot.send(.user(.cancel)) == [.cancelPairing(job: 1), .exit(code: 1)])
    }

    // MARK: notices

    @Test func aTrustStoreThatCannotBeWrittenIsANoticeNotAnEnd() {
        var box = Box()
        box.streaming()
        let phase = box.phase
        let before = box.machine.state
        #expect(box.send(.notice(sentence: "The trust store could not be written: disk full.")) == [])
        #expect(box.phase == phase)
        #expect(KioskConsole.lines(from: before, to: box.machine.state) == ["The trust store could not be written: disk full."])
        box.send(.user(.openMenu))
        #expect(box.machine.state.notice == nil)
    }
}

/// Boot-to-stream: a lost host is retried by itself after the policy's delay, saying when.
@Suite struct KioskMachineRetryTests {
    @Test func aLostStreamIsRetriedAfterTheDelayWithANotice() {
        var policy = KioskPolicy(afterJob: .returnToHosts)
        policy.retryFailedHostAfterNs = 5_000_000_000
        var box = KioskMachineTests.Box(policy)
        box.streaming()
        #expect(box.send(.stream(job: 1, .ended(.failed(sentence: "The host went away.")))) == [])
        #expect(box.phase == .error(sentence: "The host went away.", retry: "living-room"))
        #expect(box.machine.state.notice == "Trying Living room again in 5 s (attempt 2).")
        #expect(box.machine.nextDeadline == box.now + 5_000_000_000)
        // Early timers change nothing; at the deadline the connect starts again as job 2.
        #expect(box.send(.timer, after: 1_000_000_000) == [])
        let effects = box.send(.timer, after: 4_000_000_000)
        #expect(effects.count == 1, "\(effects)")
        guard case .connecting(let c) = box.phase else { Issue.record("\(box.phase)"); return }
        #expect(c.job == 2 && c.target.hostID == "living-room")
        #expect(box.machine.nextDeadline == nil)

        // Without the policy the error screen waits for a person.
        var manual = KioskMachineTests.Box()
        manual.streaming()
        manual.send(.stream(job: 1, .ended(.failed(sentence: "The host went away."))))
        #expect(manual.machine.nextDeadline == nil && manual.machine.state.notice == nil)
    }

    /// A stream the host ended is retried too (the box under the TV comes back streaming); a
    /// person's disconnect goes back to the host list and stays there.
    @Test func aStreamTheHostEndedIsRetriedButADisconnectIsNot() {
        var policy = KioskPolicy(afterJob: .returnToHosts)
        policy.retryFailedHostAfterNs = 5_000_000_000
        var box = KioskMachineTests.Box(policy)
        box.streaming()
        box.send(.stream(job: 1, .ended(.finished)))
        #expect(box.phase == .error(sentence: "The host ended the stream.", retry: "living-room"))
        #expect(box.machine.nextDeadline == box.now + 5_000_000_000)

        var person = KioskMachineTests.Box(policy)
        person.streaming()
        person.send(.user(.escapeChord))
        #expect(person.send(.user(.menu(.disconnect))) == [.stopStream(job: 1)])
        #expect(person.send(.stream(job: 1, .ended(.finished))) == [])
        #expect(person.phase == .choosingHost(focus: "living-room"))
        #expect(person.machine.nextDeadline == nil)
    }

    /// Discovery moves a pinned host to its new address only when the advert claims the pinned
    /// fingerprint; an advert with the same id and another fingerprint is not followed.
    @Test func aPinnedHostFollowsOnlyAnAdvertWithItsFingerprint() {
        let pinned = HostEntry(id: "den", name: "Den", address: "192.168.1.20:9777", givenFingerprint: KioskMachineTests.fp)
        var box = KioskMachineTests.Box(hosts: [pinned])
        _ = box.start()
        box.send(.hostsChanged([HostEntry(id: "den", name: "Den", address: "10.6.6.6:9777", advertisedFingerprint: KioskMachineTests.otherFP),
                                HostEntry(id: "attic", name: "Attic", address: "192.168.1.30:9777", advertisedFingerprint: KioskMachineTests.otherFP)]))
        #expect(box.machine.state.host("den")?.address == "192.168.1.20:9777")
        #expect(box.machine.state.host("attic")?.givenFingerprint == nil)
        box.send(.hostsChanged([HostEntry(id: "den", name: "Den", address: "192.168.1.44:9777", advertisedFingerprint: KioskMachineTests.fp)]))
        #expect(box.machine.state.host("den")?.address == "192.168.1.44:9777")
        #expect(box.machine.state.host("den")?.givenFingerprint == KioskMachineTests.fp)
        #expect(box.machine.state.hosts.map(\.id) == ["den"])
    }
}
