import VideoFrames
import SystemClock
import CPunktfunkLinux
import Audio
import Screen
import Foundation
import Glibc
import HEVC
import Input
import PunktfunkSession
import PunktfunkWire
import Shell
import VideoDecode

/// Runs a `KioskMachine` against the real world, on the calling thread (the presenting thread):
/// the only place where the application's effects become I/O.
///
/// Owns the long-lived parts: the signal watch (SIGINT/SIGTERM → `.signal`, VT requests), the
/// screen (`Screen`, KMS or Wayland: opened once, restored on every way out), the client identity and trust store,
/// the running stream (`ActiveStream`: the session pipeline as the "streaming" state, or a file)
/// and pairing threads. Other threads only post events (`EventQueue`); every event reaches the
/// machine here, in order, with the monotonic time.
///
/// While a stream is on glass this thread runs the screen's present loop; its source closure also
/// drains the event queue, so the machine keeps hearing the session (and the user) while frames
/// flow. Otherwise the thread sleeps in one `poll` over the event queue, the signalfd and the
/// decoder's eventfd and the screen's own descriptors, until the next event or the machine's deadline.
public final class KioskRunner {
    /// As the command gave it; the shell's saved settings change it for the next stream.
    private var configuration: RunnerConfiguration
    private let signals: SignalWatch
    private let events = EventQueue()
    var machine = KioskMachine(policy: KioskPolicy(afterJob: .exitProcess))
    var screen: (any Screen)?
    private var stream: ActiveStream?
    var exitCode: Int32?
    private var configDirectory: URL?
    private var identity: TLSIdentity?
    /// Performs the shell's requests (made in `run` once the profile is loaded).
    private var services: ShellServices?
    /// Addresses resolved for the jobs in flight, by the `ip:port` key the machine names them by.
    private var resolved: [String: SocketAddress] = [:]
    /// Frame ids stay unique across streams (the presenter's buffers are keyed by them).
    var nextFrameID: UInt64 = 0
    var overlay: StatsOverlay?
    /// Keyboards, mice and pads for the process's life (nil with `--input none`, or when input
    /// cannot run): the shell's navigation, or the streaming session's host.
    private(set) var shellInput: ShellInput?
    /// The compositor's keyboard and mouse under Wayland (nil on KMS: evdev reads them).
    private var seat: SeatLink?
    /// The host's pointer as the box draws it (the session's pump, the input thread and the
    /// presenting thread share it), and what the screen was told of it last.
    let hostPointer = HostPointer()
    /// Wi-Fi power save turned off for the stream on the host's route (restored when it ends).
    private var powerSaveHold: WiFiPowerSaveHold?
    private var pointerDrawing = PointerDrawing()
    /// `machine.nextDeadline` as of the last event.
    private var deadlineNs: UInt64?
    /// Hosts written to the trust store during this run (key, fingerprint), in order.
    public private(set) var trusted: [(key: String, fingerprint: String)] = []
    /// The shell's screens on glass and its panels over a stream.
    let shell: ShellScreen
    /// A passing message shown over the stream until `untilNs`.
    var toast: (text: String, untilNs: UInt64)?
    /// The generation of the panel image handed to the presenter (nil: no panel over the stream).
    var panelGeneration: UInt64?
    /// A panel change to trace once the flip showing it completed: the screen name, and the
    /// overlay generation that must be on glass (nil: no panel).
    var panelTrace: (name: String, generation: UInt64?)?
    /// Where the mouse pointer is drawn, panel pixels (nil: hidden — the pad or keyboard was used last).
    var pointerAt: (x: Int, y: Int)?
    /// The screen's own counters (`Screen.statsMember`), copied on this thread while a stream
    /// presents, for the pump thread's per-second stats line.
    let screenStats = ScreenStatsBox()
    /// The host's answers to mode requests, and what is said about them once pictures show
    /// what it streams (`StreamSizeNews`).
    private let modeAnswers = StreamSizeMailbox()
    private var streamSize = StreamSizeNews()
    /// How long a toast stays over the stream, ns.
    static let toastNs: UInt64 = 4_000_000_000

    /// Blocks SIGINT, SIGTERM and the VT signals for the whole process and opens their signalfd.
    /// - Precondition: call before any other thread exists (threads inherit the blocked mask; a
    ///   signal that arrives before it is blocked, in a thread that does not block it, is lost).
    public init(configuration: RunnerConfiguration) throws(ScreenError) {
        self.configuration = configuration
        signals = try SignalWatch()
        shell = ShellScreen(trace: configuration.shellTrace)
    }

    /// Where another thread (discovery) hands the machine the hosts it lists now.
    public var hostListInbox: HostListInbox { HostListInbox(events: events) }
    /// Where another thread hands the machine a person's action.
    public var userInbox: UserInbox { UserInbox(events: events) }

    /// Runs `machine` until it issues `.exit` (once per runner). - Returns: the process exit status.
    public func run(_ machine: KioskMachine) -> Int32 {
        self.machine = machine
        let display: StartReport.Display
        switch configuration.display {
        case .headless:
            display = .headlessByRequest
        case .screen(let reason, let required, let open):
            do {
                let result = try open()
                let opened = result.screen
                opened.scaling = configuration.scaling
                screen = opened
                display = .glass(name: opened.name)
                say("display: \(opened.backendName), \(result.reason ?? reason)")
                let fonts = Thread { PanelRenderer.warmUp() }
                fonts.name = "fonts"
                fonts.start()
            } catch {
                if required {  // asked for by name: no headless fallback
                    say("\(error)")
                    return ExitStatus.noDisplay
                }
                switch error {
                case .unavailable(let sentence): display = .unavailable(sentence: sentence)
                default: display = .unusable(sentence: "\(error)")
                }
            }
        }
        let (knownHosts, problem) = loadProfile()
        startInput()
        let services = ShellServices(events: events, configDirectory: configDirectory, identity: identity)
        self.services = services
        if machine.policy.afterJob == .returnToHosts { services.checkBox() }
        var modes: [String] = []
        for m in screen?.modes ?? [] where !modes.contains(m.name) { modes.append(m.name) }
        feed(.started(StartReport(display: display, knownHosts: knownHosts, profileProblem: problem, displayModes: modes,
                                  audioDevices: ShellServices.audioDevices(), config: services.savedConfig(),
                                  configPath: services.configPath)))
        while exitCode == nil {
            if let s = stream, !s.presented, s.first != nil, screen != nil, isStreaming(job: s.job) {
                present(s)
            } else {
                idle()
            }
        }
        finish()
        return exitCode ?? ExitStatus.failed
    }

    // MARK: - The machine

    /// Hands one event to the machine, says what changed, performs the effects.
    func feed(_ event: KioskEvent) {
        let before = machine.state
        let now = MonotonicClock.nowNs()
        let effects = machine.handle(event, now: now)
        deadlineNs = machine.nextDeadline
        if let notice = machine.state.notice { toast = (notice, now + Self.toastNs) }
        // Power first: the bus hears the box's status before the phase's own One Touch Play.
        for case .power(let change) in effects { shellInput?.power(change) }
        switch event {
        case .tvStandby, .tvWake: shellInput?.settle(machine.state.power)
        default: break
        }
        shellInput?.follow(phase: machine.state.phase)
        if let seat {
            if case .streaming = machine.state.phase { seat.setCapture(true) } else { seat.setCapture(false) }
        }
        for line in KioskConsole.lines(from: before, to: machine.state) { say(line) }
        for effect in effects { perform(effect) }
    }

    private func feedQueued() {
        for (event, postedNs) in events.drain() {
            // A person's input: the shell's next frame on glass answers it (input→glass latency).
            switch event {
            case .navigate:
                shell.noteInput(atNs: postedNs)
                pointerAt = nil   // a pad or the keyboard: the pointer hides until the mouse moves
                feed(event)
            case .pointer(let p):
                shell.noteInput(atNs: postedNs)
                // The machine hears it too (the idle clock; in standby a click wakes the box and
                // does nothing else).
                let wasOn = machine.state.power == .on
                feed(event)
                if wasOn { pointer(p) }
            default:
                feed(translate(event))
            }
            // Over a stream the panel answers the input, not a shell screen: not counted.
            if case .streaming = machine.state.phase { shell.dropInput() }
            if case .inStreamMenu = machine.state.phase { shell.dropInput() }
        }
        if let deadline = deadlineNs, MonotonicClock.nowNs() >= deadline { feed(.timer) }
    }

    /// The present loop's per-frame check, kept to a flag load and a compare: whether anything
    /// was posted or the machine's deadline passed.
    private var hasNews: Bool {
        events.hasPosted || deadlineNs.map { MonotonicClock.nowNs() >= $0 } ?? false
    }

    /// What the runner knows better than the pump: a stream on glass that ended before any
    /// picture could be decoded did not work. A headless stream's end reports its picture count.
    private func translate(_ event: KioskEvent) -> KioskEvent {
        guard case .stream(let job, .ended(let end)) = event, let s = stream, s.job == job else { return event }
        s.stopInput()
        releaseWiFi()
        if screen != nil, !s.started, end == .finished, s.pipeline?.stage != nil {
            return .stream(job: job, .ended(.failed(sentence: "The host sent no picture that could be decoded.")))
        }
        if screen == nil, let p = s.pipeline, let stage = p.stage {
            takePictures()   // the last pictures came before the end was posted
            let c = stage.counts
            let line = "{\"decoded\":\(s.pictures),\"rung\":\"\(stage.rung?.rawValue ?? "none")\",\"input_dropped\":\(c.inputDropped),\"skipped\":\(c.skipped)}\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
        return event
    }

    /// Whether the shell's screens want the display back from the stream `job` (the phase left
    /// the stream for the host list, an error, or a new connect or pairing).
    private func shellTakesOver(from job: Int) -> Bool {
        switch machine.state.phase {
        case .choosingHost, .error, .connecting, .pairing: true
        case .streaming(let s), .inStreamMenu(let s, _): s.job != job
        case .starting, .leaving: false
        }
    }

    private func isStreaming(job: Int) -> Bool {
        switch machine.state.phase {
        case .streaming(let s), .inStreamMenu(let s, _): s.job == job
        default: false
        }
    }

    private func perform(_ effect: KioskEffect) {
        switch effect {
        case .resolve(let job, let host):
            do {
                let address = try HostResolver.resolve(host.address)
                resolved[address.description] = address
                feed(.resolved(job: job, key: address.description))
            } catch {
                feed(.unresolvable(job: job, sentence: error.description))
            }
        case .startStream(let job, .session(let host, let key, let trust, let launch)):
            guard let remote = resolved[key] else {
                feed(.stream(job: job, .ended(.failed(sentence: "The host \(host.address) has no resolved address."))))
                return
            }
            startSession(job: job, host: host, remote: remote, trust: trust, launch: launch)
        case .startStream(let job, .file(let playback)):
            startFile(job: job, playback)
        case .stopStream(let job):
            guard let s = stream, s.job == job else { return }
            s.stop()
            // A file has no thread to report its end: it ends here (a present loop still running
            // it stops at its next frame; the machine takes the first end it hears).
            if case .file = s.source { events.post(.stream(job: job, .ended(.finished))) }
        case .startPairing(let job, let request):
            startPairing(job: job, request)
        case .cancelPairing:
            // The ceremony cannot be interrupted mid-step; its result arrives for a job the
            // machine no longer holds and is dropped there.
            break
        case .trustHost(let key, let fingerprint):
            storeTrust(key: key, fingerprint: fingerprint)
        case .power:
            break   // the bus heard it in `feed`; the screen follows the state (black in standby)
        case .setStatsOverlay(let on):
            if !on, overlay != nil {
                overlay = nil
                screen?.setPanel(nil)
            }
        case .shell(.identifyController(let slot)):
            shellInput?.identify(slot: slot)
        case .shell(let request):
            services?.perform(request, configuration: &configuration)
        case .exit(let code):
            exitCode = code
        }
    }

    // MARK: - Starting things

    /// Starts the process-lived input (`configuration.input`), in the shell route; its pointer
    /// kept inside the panel's mode.
    private func startInput() {
        guard var options = configuration.input else { return }
        // Under a compositor keyboards and mice are its own: they come through its seat.
        if screen?.keyboardsAndMiceAreTheScreens == true { options.evdevKeyboardsAndMice = false }
        let input = ShellInput(options: options, events: events)
        input.service.localPointer = hostPointer
        if let mode = screen?.mode { input.setPanel(width: mode.width, height: mode.height) }
        // Ctrl+Alt+F`n` typed on the grabbed keyboard in the shell: the VT switch the console
        // would have made.
        let switchConsole = screen?.consoleSwitch
        input.onConsoleSwitch = { number in switchConsole?(number) }
        if let problem = input.start() { say(problem); return }
        shellInput = input
        if let screen, screen.keyboardsAndMiceAreTheScreens { seat = configuration.openSeat?(screen, input.service) }
    }

    private func loadProfile() -> (KnownHosts, String?) {
        guard case .configDirectory = configuration.profile else { return (KnownHosts(), nil) }
        guard let directory = ConfigDirectory.resolve(environment: ProcessInfo.processInfo.environment) else {
            return (KnownHosts(), "Neither XDG_CONFIG_HOME nor HOME is set, so there is nowhere to keep the client identity.")
        }
        do {
            identity = try TLSIdentity.loadOrCreate(in: directory)
            let known = try KnownHosts.load(from: directory)
            configDirectory = directory
            return (known, nil)
        } catch {
            return (KnownHosts(), "The client identity or known-hosts store in \(directory.path) is unusable: \(error)")
        }
    }

    /// Wi-Fi power save as it was before the stream (a no-op when no stream turned it off).
    private func releaseWiFi() {
        guard let hold = powerSaveHold else { return }
        powerSaveHold = nil
        if let problem = hold.restore() { say(problem) } else { say("power save on \(hold.interface) back on") }
    }

    /// A new stream replaces the previous one, whose pictures go back at once.
    private func replaceStream(with next: ActiveStream) {
        if let old = stream {
            old.stop()
            old.releasePictures()
            releaseWiFi()
        }
        stream = next
    }

    private func startSession(job: Int, host: HostEntry, remote: SocketAddress, trust: HostTrust, launch: String?) {
        let seconds = configuration.sessionSeconds ?? 315_360_000   // ten years: until the host or the user ends it
        var options = ClientSession.Options(remote: remote, identity: identity, trust: trust, seconds: seconds)
        let events = self.events
        // ClientHello tag 8: the title the host starts as the session opens (checked whole by
        // the machine before dialling).
        options.hello.launch = launch
        if let launch { say("launch: " + LaunchNews.asking(title: host.titleName(launch), id: launch, host: host.name)) }
        options.onPending = { count in events.post(.stream(job: job, .waitingForApproval(count: count))) }
        if let kbps = configuration.bitrateKbps { options.hello.bitrateKbps = kbps }
        // The rate follows the line unless pinned; a chosen bitrate is its start and its ceiling.
        if configuration.bitrateMode == .auto {
            options.rate = RateLoop.Configuration(startKbps: configuration.bitrateKbps ?? RateLoop.Configuration.hostDefaultKbps,
                                                  ceilingKbps: configuration.bitrateKbps)
        }
        if let screen {
            // Ask the host for exactly the screen's mode (the virtual display is created at it).
            let mode = screen.mode
            options.hello.mode = Mode(width: UInt32(mode.width), height: UInt32(mode.height), refreshHz: UInt32(max(1, mode.vrefresh)))
        }
        let decodes = screen != nil || configuration.decodeWhenHeadless
        let audio = makeAudio()
        let plan = helloPlan(base: options.hello, audio: audio, rungs: configuration.decoder, settings: configuration.hello)
        options.hello = plan.hello
        say("hello: " + plan.summary)
        // ClientHello tag 22: the kind of link the host's address is routed through; on Wi-Fi its
        // state (nl80211) and power save off while the stream runs.
        if let link = RouteLink.toward(remote) {
            var facts = link.facts, sentence = link.sentence
            let nl = facts.kind == .wifi ? try? NL80211() : nil
            if let nl, let w = try? nl.link(link.interface) {
                facts.mbps = UInt32(clamping: (w.txKbps ?? 0) / 1000)
                sentence = w.sentence
                FileHandle.standardError.write(Data("{\"wifi\":\(w.json)}\n".utf8))
            }
            options.hello.link = facts
            say("link: \(sentence)")
            if let nl {
                releaseWiFi()
                let taken = WiFiPowerSaveHold.take(interface: link.interface, nl: nl)
                powerSaveHold = taken.hold
                say(taken.sentence)
                // Scans, roams, channel switches and beacon loss, for the stall ledger.
                do throws(GenericNetlink.Failure) {
                    options.wifiEvents = try WiFiEventWatch(interface: link.interface)
                } catch {
                    say("Wi-Fi events of \(link.interface) cannot be watched (\(error)): stalls will be told without their causes.")
                }
            }
        }
        let displayNode = screen?.deviceNode
        var decoding = DecoderLadder.Configuration(rungs: configuration.decoder, openVADisplay: {
            try VADisplayConnection.openFirst(preferringDeviceOf: displayNode)
        })
        decoding.decodeSync = configuration.decodeSync
        let pipeline = StreamPipeline(options: options, decoder: decodes ? decoding : nil)
        if let path = configuration.rateLog {
            do { pipeline.rateLog = try JSONLinesFile(path: path, what: "rate log") } catch {
                feed(.stream(job: job, .ended(.failed(sentence: "\(error)"))))
                return
            }
        }
        if let path = configuration.pictureLog, let stage = pipeline.stage {
            do { stage.pictureLog = try PictureLog(path: path) } catch {
                feed(.stream(job: job, .ended(.failed(sentence: "\(error)"))))
                return
            }
        }
        let live = LiveStats(audio: audio)
        pipeline.stage?.latency = live.latency
        let screenStats = self.screenStats
        screenStats.text = nil
        let printStats = configuration.statsLines == .always || (configuration.statsLines == .whenHeadless && screen == nil)
        let probeKbps = configuration.probeKbps
        let dump = configuration.dumpAccessUnits
        if let dump {
            do { try FileManager.default.createDirectory(atPath: dump, withIntermediateDirectories: true) } catch {
                feed(.stream(job: job, .ended(.failed(sentence: "Cannot create \(dump): \(error.localizedDescription)"))))
                return
            }
        }
        // Without a decoder the first complete access unit is what "the stream runs" means.
        var firstUnitSeen = decodes
        let stage = pipeline.stage
        pipeline.onAccessUnit = { au in
            if let audio {
                let t = stage?.totals
                audio.noteVideo(ptsNs: au.ptsNs, decodeNs: t.map { $0.pictures > 0 ? $0.decodeNs / $0.pictures : 0 } ?? 0)
            }
            if !firstUnitSeen {
                firstUnitSeen = true
                events.post(.stream(job: job, .firstPicture))
            }
            guard let dump else { return }
            let path = "\(dump)/\(au.frame).au"
            if !FileManager.default.createFile(atPath: path, contents: Data(au.data)) {
                events.post(.notice(sentence: "Cannot write \(path)."))
            }
        }
        // Input: the process-lived service takes this session as its host route's; the session's
        // hello decides what it may send.
        let input = shellInput
        let inputSink = input?.attach(pipeline)
        let askedPadKind = options.hello.gamepad
        let hostPointer = self.hostPointer
        pipeline.prepare = { session in
            // Chained after the pipeline's own handlers (installed before `prepare` runs).
            input?.chain(session, askedPadKind: askedPadKind)
            Self.followPointer(session, pointer: hostPointer)
            session.onStats = { stats in
                if printStats {
                    var line = stats.json
                    if let input, line.hasSuffix("}") {
                        line.removeLast()
                        line += ",\"input\":\(input.counters.json)}"
                    }
                    if let a = audio?.stats, line.hasSuffix("}") {
                        line.removeLast()
                        line += ",\"audio\":{\(a.jsonMembers)}}"
                    }
                    if let hold = stage?.pictureHold, line.hasSuffix("}") {
                        line.removeLast()
                        line += ",\(hold.jsonMember)}"
                    }
                    if stage != nil, line.hasSuffix("}") {
                        line.removeLast()
                        line += ",\(live.latency.figures(second: stats.second).jsonMember)}"
                    }
                    if let d = screenStats.text, line.hasSuffix("}") {
                        line.removeLast()
                        line += ",\(d)}"
                    }
                    // When the line's figures were read (CLOCK_MONOTONIC): a check can place them
                    // against other clocks' events (the VM's audio check: a window's concealment).
                    if line.hasSuffix("}") {
                        line.removeLast()
                        line += ",\"mono_ns\":\(MonotonicClock.nowNs())}"
                    }
                    FileHandle.standardOutput.write(Data((line + "\n").utf8))
                }
                if stats.second == 1, let kbps = probeKbps {
                    session.outbox.sendControl(.probeRequest(ProbeRequest(targetKbps: kbps, durationMs: 1_000)))
                }
            }
            let answers = self.modeAnswers
            session.onModeAnswer = { answer in answers.post(answer) }
            Self.followStalls(session, printLines: printStats, events: events, directory: self.configDirectory)
            session.onProbeReport = { report in FileHandle.standardOutput.write(Data((report.json + "\n").utf8)) }
            live.observe(session)
            audio?.attach(session)
            Self.followLaunch(session, host: host, launch: launch, events: events)
        }
        pipeline.onProgress = { [unowned pipeline] progress in
            // A lost connection suspends input; the resumed session first gets the releases.
            if case .resuming = progress { input?.suspendPolicy() }
            if case .ended = progress { audio?.stop() }
            if case .ended(.failed) = progress, case .failure(.handshake(let e))? = pipeline.result,
               e.closeCode == .launchNotPermitted {
                events.post(.launchGrant(hostID: host.id, granted: false))
            }
            events.post(.stream(job: job, progress))
        }
        let active = ActiveStream(job: job, source: .session(pipeline, live))
        if let input, let inputSink { active.input = (input, inputSink) }
        replaceStream(with: active)
        pipeline.start()
    }

    /// The sound of a new live stream, per `configuration.audio` (nil: `--audio none`). The
    /// device is chosen once per stream; the line saying which and why comes when it opens.
    private func makeAudio() -> SessionAudio? {
        let explicit: String?
        switch configuration.audio {
        case .none:
            // The mic uplink alone, or nothing.
            return configuration.micDevice.map {
                SessionAudio(choice: AudioDeviceChoice(device: "none", reason: "--audio none"), realtimePriority: 0,
                             micDevice: $0, plays: false)
            }
        case .automatic: explicit = nil
        case .device(let name): explicit = name
        }
        let choice = SessionAudio.choose(explicit: explicit, drmNode: screen?.deviceNode, connector: screen?.connectorName)
        return SessionAudio(choice: choice, realtimePriority: configuration.audioRealtimePriority, micDevice: configuration.micDevice)
    }

    private func startFile(job: Int, _ playback: FilePlayback) {
        func failed(_ sentence: String) { feed(.stream(job: job, .ended(.failed(sentence: sentence)))) }
        guard let data = FileManager.default.contents(atPath: playback.path) else { return failed("Cannot read \(playback.path).") }
        let accessUnits = AccessUnitSplitter.split([UInt8](data))
        guard !accessUnits.isEmpty else { return failed("\(playback.path) holds no HEVC access units.") }
        let source = FileSource(accessUnits: accessUnits, passes: playback.passes,
                                deadlineNs: playback.seconds.map { MonotonicClock.nowNs() + UInt64($0 * 1e9) },
                                firstIndex: nextFrameID)
        source.onDecodeError = { index, error in
            FileHandle.standardError.write(Data("punktfunk-kiosk: access unit \(index) of \(playback.path): \(error)\n".utf8))
        }
        let s = ActiveStream(job: job, source: .file(source, playback))
        replaceStream(with: s)
        do {
            guard let first = try nextFilePicture(s) else { return failed("No picture could be decoded from \(playback.path).") }
            s.first = first.frame
            s.firstFileFrame = first
            s.started = true
            feed(.stream(job: job, .firstPicture))
        } catch {
            failed("\(error)")
        }
    }

    /// The file's next picture (its held first frame first), through the harness's rewrite when
    /// one is installed.
    private func nextFilePicture(_ s: ActiveStream) throws -> SourcedFrame? {
        if let held = s.firstFileFrame {
            s.firstFileFrame = nil
            return held
        }
        guard case .file(let source, _) = s.source, var next = try source.next() else { return nil }
        if let rewrite = configuration.harness.filePicture { next.frame = try rewrite(next.frame) }
        return next
    }

    private func startPairing(job: Int, _ request: PairingRequest) {
        guard let remote = resolved[request.key], let identity else {
            feed(.pairing(job: job, .failed(sentence: "Pairing needs the client identity, which could not be loaded.")))
            return
        }
        var options = PairingClient.Options(remote: remote, identity: identity,
                                            mode: request.pin.map { .pin($0) } ?? .requestAccess,
                                            name: configuration.deviceName)
        let events = self.events
        options.onPending = { count in events.post(.pairing(job: job, .waitingForApproval(count: count))) }
        // Handed to the pairing thread; nothing else touches it.
        nonisolated(unsafe) let client = PairingClient(options: options)
        let thread = Thread {
            do throws(SessionError) {
                let fingerprint = try client.run()
                events.post(.pairing(job: job, .paired(fingerprint: fingerprint)))
            } catch {
                events.post(.pairing(job: job, .failed(sentence: error.description)))
            }
        }
        thread.name = "pairing"
        thread.stackSize = 1 << 22
        thread.start()
    }

    private func storeTrust(key: String, fingerprint: String) {
        guard let directory = configDirectory else { return }
        do {
            var known = try KnownHosts.load(from: directory)
            try known.trust(host: key, fingerprint: fingerprint)
            try known.store(in: directory)
            trusted.append((key, fingerprint))
        } catch {
            feed(.notice(sentence: "The host \(key) could not be recorded in the trust store: \(error)"))
        }
    }

    // MARK: - Waiting

    /// One wait while no stream is on glass: events, signals, decoded pictures, deadlines.
    private func idle() {
        let screenFDs = screen?.prepareWait() ?? []
        var fds = [pollfd(fd: events.fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: signals.fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: stream?.pictureDescriptor ?? -1, events: Int16(POLLIN), revents: 0)]
        for fd in screenFDs { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        let now = MonotonicClock.nowNs()
        let deadline = min(deadlineNs ?? .max, screen?.nextDeadlineNs ?? .max)
        var timeoutNs: Int64 = 250_000_000
        if deadline != .max { timeoutNs = deadline <= now ? 0 : min(Int64(deadline - now), timeoutNs) }
        _ = pf_poll_ns(&fds, UInt(fds.count), timeoutNs)
        if fds[2].revents & Int16(POLLIN) != 0 {
            var counter: UInt64 = 0
            _ = read(fds[2].fd, &counter, 8)
        }
        if let screen {
            let readable = fds[3...].map { $0.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 }
            for change in screen.finishWait(readable: Array(readable)) { screenChanged(change) }
            shell.canvasShown(screen.takeCanvasShown())
        }
        for signal in signals.drain() {
            switch signal {
            case .interrupt: feed(.signal(.interrupt))
            case .terminate: feed(.signal(.terminate))
            case .vtRelease, .vtAcquire:
                screen?.handle(signal)
                shell.invalidate()
            }
        }
        takePictures()
        feedQueued()
        refreshShell()
    }

    /// Decoded pictures while not presenting: the first is held for the display (and reported);
    /// headless, every picture is counted and given back.
    private func takePictures() {
        guard let s = stream, let output = s.pipeline?.stage?.output else { return }
        if screen != nil {
            guard s.first == nil, !s.presented, let picture = output.pop(timeout: 0) else { return }
            s.first = picture
        } else {
            var any = false
            while let picture = output.pop(timeout: 0) {
                picture.release()
                s.pictures += 1
                any = true
            }
            guard any else { return }
        }
        if !s.started {
            s.started = true
            feed(.stream(job: s.job, .firstPicture))
        }
    }

    // MARK: - Presenting

    /// The stream on glass until its source ends, a quit signal, or the machine ends the process.
    private func present(_ s: ActiveStream) {
        guard let screen, let first = s.first else { return }
        s.first = nil
        s.presented = true
        let pipeline = s.pipeline
        shell.yield(to: screen)
        screen.scaling = configuration.scaling
        streamSize = StreamSizeNews()
        _ = modeAnswers.take()
        panelGeneration = nil
        panelTrace = ("streaming", nil)
        screen.setHDRMetadata(pipeline?.hostHDR.takeNew())

        let fps: Double
        let isFile: Bool
        switch s.source {
        case .session: fps = Double(max(1, screen.mode.vrefresh)); isFile = false
        case .file(_, let playback): fps = playback.fps; isFile = true
        }
        // A live stream's threads post progress while it plays; nothing posts while a file plays
        // (no thread of its own — input will), so a file's step skips the look at the queue.
        var presentation = StreamPresentation(fps: fps, followSchedule: isFile,
                                              wakeDescriptors: isFile ? [] : [s.pictureDescriptor, events.fd, hostPointer.wakeDescriptor].filter { $0 >= 0 },
                                              signals: signals)
        presentation.onChange = { [unowned self] change in self.screenChanged(change) }

        // Host pts (media clock) → local CLOCK_MONOTONIC, with the offset of the newest stats.
        let realtimeMinusMonotonic = MonotonicClock.realtimeMinusMonotonicNs()
        var peeked: DecodedPicture? = isFile ? nil : first
        let firstID = nextFrameID
        // The sound's A/V skew is taken at glass: each picture's capture time by frame id, in a
        // ring made once per stream (ids are consecutive; 64 ≫ the pictures in flight).
        var live: LiveStats?
        if case .session(_, let l) = s.source { live = l }
        let audio = live?.audio
        var captureTimes = [(id: UInt64, ns: UInt64)](repeating: (.max, 0), count: audio == nil ? 0 : 64)
        // Every pass: what other threads posted reaches the machine (a person's input, the
        // session's progress), and the panel over the stream follows the state (a toast expires).
        updatePanel()
        var statsCopiedNs: UInt64 = 0
        presentation.onPass = { [unowned self] in
            let now = MonotonicClock.nowNs()
            if !isFile {
                self.pointerDrawing.update(self.hostPointer, on: screen, now: now)
                self.seat?.setPointerFree(self.hostPointer.isDesktop)
            }
            if now &- statsCopiedNs >= 500_000_000 {
                statsCopiedNs = now
                self.screenStats.text = screen.statsMember
            }
            if !isFile, self.hasNews {
                self.feedQueued()
                self.updatePanel()
            } else if let t = self.toast, MonotonicClock.nowNs() >= t.untilNs {
                self.updatePanel()
            }
        }
        presentation.onShown = { [unowned self] id, flipNs, readyNs in
            if let t = self.panelTrace, t.generation == nil || screen.panelOnGlass?.generation == t.generation {
                self.panelTrace = nil
                self.shell.note(t.name)
            }
            self.overlay?.shown(frame: id, flipNs: flipNs, readyNs: readyNs, nowNs: MonotonicClock.nowNs())
            live?.latency.shown(id: id, glassNs: flipNs)
            guard let audio else { return }
            let t = captureTimes[Int(id % 64)]
            if t.id == id, flipNs >= t.ns { audio.noteVideoOnGlass(latencyNs: flipNs - t.ns) }
        }
        func sourced(_ picture: DecodedPicture) -> StreamStep {
            let id = nextFrameID
            nextFrameID += 1
            if let answer = modeAnswers.take(), let sentence = streamSize.answered(answer) { events.post(.notice(sentence: sentence)) }
            let crop = picture.crop
            if let sentence = streamSize.picture(width: picture.width - crop.left - crop.right,
                                                 height: picture.height - crop.top - crop.bottom) {
                events.post(.notice(sentence: sentence))
            }
            live?.latency.noteFrame(id: id, ptsNs: picture.pts)
            if let live, overlay != nil || audio != nil {
                let clock = live.clockOffsetNs.map { CaptureClock(offsetNs: $0, realtimeMinusMonotonicNs: realtimeMinusMonotonic) }
                let origin = clock?.localMonotonicNs(hostPtsNs: picture.pts)
                overlay?.noteOrigin(frame: id, originNs: origin)
                if audio != nil, let origin { captureTimes[Int(id % 64)] = (id, origin) }
            }
            return .frame(SourcedFrame(frame: picture, index: id, indexInPass: Int(id - firstID), firstPass: true))
        }
        var statsShown = false
        let outcome: StreamOutcome
        do {
            outcome = try screen.present(first: first, presentation, steps: { () throws -> StreamStep in
                if !statsShown {
                    // The stats overlay from the first step on: the screen is laid out for the stream.
                    statsShown = true
                    if self.machine.state.statsOverlay { self.showOverlay(s) }
                }
                // Leaving: stop producing — except for a session's last pictures, which drain
                // once its decoder closed the output (the stream ended by itself).
                if self.exitCode != nil, !(pipeline?.stage?.output.isClosed ?? false) { return .end }
                // The stream left for the shell (a disconnect, an end into the host list or the
                // error screen): the shell takes the display now, the session winds down behind it.
                if !isFile, self.shellTakesOver(from: s.job) { return .end }
                if self.machine.state.statsOverlay, self.overlay == nil, self.panelGeneration == nil { self.showOverlay(s) }
                if isFile {
                    // The file source numbers its frames itself (passes and first-pass indices).
                    if s.stopRequested { return .end }
                    return try self.nextFilePicture(s).map { .frame($0) } ?? .end
                }
                guard let pipeline, let output = pipeline.stage?.output else { return .end }
                // The host's newest HDR metadata applies from the next commit (this thread).
                screen.setHDRMetadata(pipeline.hostHDR.takeNew())
                if let p = peeked { peeked = nil; return sourced(p) }
                let closed = output.isClosed
                if let p = output.pop(timeout: 0) { return sourced(p) }
                return closed ? .end : .notYet
            })
        } catch {
            s.stop()
            overlayOff()
            pointerDrawing.clear(on: screen)
            hostPointer.end()
            seat?.setPointerFree(false)
            if case .file(let source, _) = s.source { nextFrameID = source.nextIndex }
            feed(.stream(job: s.job, .ended(.failed(sentence: "\(error)"))))
            return
        }
        overlayOff()
        pointerDrawing.clear(on: screen)
        hostPointer.end()
        seat?.setPointerFree(false)
        if case .file(let source, _) = s.source { nextFrameID = source.nextIndex }
        if s.pipeline != nil, shellTakesOver(from: s.job) { s.releasePictures() }
        switch outcome {
        case .interrupted(let signal):
            feed(.signal(signal == .terminate ? .terminate : .interrupt))
        case .lost(let sentence):
            screenLost(sentence, job: s.job)
        case .finished:
            // A session reports its own end (the pump posts it); a file's end is known here.
            if case .file = s.source, exitCode == nil { feed(.stream(job: s.job, .ended(.finished))) }
        }
    }

    /// The stats overlay for `s` on the loop's flips (its counters: the decode stage and the
    /// session's loss, or the file decoder's own).
    private func showOverlay(_ s: ActiveStream) {
        guard let screen else { return }
        let isSession = s.pipeline != nil
        let made = StatsOverlay(screen: screen, latencyLabel: isSession ? "capture→glass" : "ready→glass",
                                readyIsOrigin: !isSession, nowNs: MonotonicClock.nowNs(), counters: {
            switch s.source {
            case .session(let p, let live): p.stage.map { live.counters(stage: $0) } ?? StatsCounters()
            case .file(let f, _): f.counters
            }
        })
        overlay = made
        screen.reportPanelRoute()
    }

    private func overlayOff() {
        guard overlay != nil || panelGeneration != nil else { return }
        overlay = nil
        panelGeneration = nil
        screen?.setPanel(nil)
    }

    // MARK: - The display changed

    /// The screen already follows `change`; here the rest hears it: the shell (redrawn whole
    /// with the next refresh), the machine (console line, toast) and, on another mode, the host
    /// of a running session, which is asked for it (Reconfigure; until it answers, and if it
    /// refuses, its pictures are scaled onto the mode). A lost screen ends the process.
    private func screenChanged(_ change: ScreenChange) {
        shell.invalidate()   // the next screen is drawn whole (new mode) and committed
        switch change {
        case .disconnected(let output):
            feed(.displayChanged(DisplayNews(connector: output, mode: nil, modeChanged: false)))
        case .reconnected(let output, let mode):
            feed(.displayChanged(DisplayNews(connector: output, mode: mode.name, width: mode.width, height: mode.height,
                                             modeChanged: false)))
        case .modeChanged(let output, _, let mode):
            shellInput?.setPanel(width: mode.width, height: mode.height)
            seat?.followMode()
            feed(.displayChanged(DisplayNews(connector: output, mode: mode.name, width: mode.width, height: mode.height,
                                             modeChanged: true)))
            if let session = stream?.pipeline?.session {
                session.outbox.requestMode(Mode(width: UInt32(mode.width), height: UInt32(mode.height),
                                                refreshHz: UInt32(max(1, mode.vrefresh))))
            }
        case .lost(let sentence):
            screenLost(sentence, job: stream?.job)
        }
    }

    /// Why the screen is gone for good, once it is: the person's last line.
    private var screenLostSentence: String?

    /// The screen is gone for good (the compositor went away): a running stream ends as the
    /// user's own leave would (the host sees a deliberate close, input releases everything held),
    /// the sentence is said as the last line, and the process ends with a failure status.
    private func screenLost(_ sentence: String, job: Int?) {
        guard exitCode == nil else { return }
        screenLostSentence = sentence   // said last, when everything is stopped (`finish`)
        if let s = stream { s.stopInput(); s.stop() }
        exitCode = ExitStatus.failed
    }

    // MARK: - Leaving

    /// Stops what still runs, gives back every picture and restores the display.
    private func finish() {
        if let s = stream {
            s.stop()
            if let pipeline = s.pipeline, !pipeline.wait(seconds: 2) {
                say("the session did not stop within 2 s; leaving it behind")
            }
            s.releasePictures()
        }
        releaseWiFi()
        stream = nil
        if let screen, let l = shell.inputToGlassSummary {
            let refresh = Double(screen.mode.refreshIntervalNs) / 1e6
            say(String(format: "shell: input→glass p50 %.1f ms, max %.1f ms over %d screens (one refresh: %.1f ms)", l.p50Ms, l.maxMs, l.count, refresh))
        }
        seat?.close()
        seat = nil
        shellInput?.stop()
        shellInput = nil
        screen?.close()
        screen = nil
        if let sentence = screenLostSentence { say("the display is gone: \(sentence)") }
    }

    private func say(_ line: String) {
        FileHandle.standardError.write(Data("punktfunk-kiosk: \(line)\n".utf8))
    }
}

/// Posts a person's action to a runner's machine from any thread (the command line's `--seconds`).
public struct UserInbox: Sendable {
    let events: EventQueue

    public func post(_ action: UserAction) { events.post(.user(action)) }

    /// Posts `action` after `seconds`, from a thread of its own.
    public func post(_ action: UserAction, afterSeconds seconds: Double) {
        let thread = Thread { [self] in
            Thread.sleep(forTimeInterval: seconds)
            post(action)
        }
        thread.name = "timer"
        thread.start()
    }
}

/// Posts `.hostsChanged` to a runner's machine from any thread.
public struct HostListInbox: Sendable {
    let events: EventQueue

    public func post(_ hosts: [HostEntry]) { events.post(.hostsChanged(hosts)) }
}

/// One JSON member handed from the presenting thread to the pump thread's stats line.
final class ScreenStatsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: String?

    var text: String? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
