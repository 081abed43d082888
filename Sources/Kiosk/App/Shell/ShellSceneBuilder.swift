import PunktfunkSession
import Shell

/// What the shell shows for a state: `KioskState` → `ShellScene`, pure. The screen follows the
/// phase (host list pages, connecting, pairing, error, the in-stream menu); black while the box
/// is in standby; nil while a stream has the display to itself or the box is leaving.
public enum ShellSceneBuilder {
    /// At most this many host cards show at once; the row scrolls to keep the focused one in view.
    static let visibleCards = 4
    /// Rows of the host page's list that fit between the heading and the hints.
    static let visibleEntries = 7

    public static func scene(for state: KioskState, glyphs: GlyphSet) -> ShellScene? {
        view(for: state, glyphs: glyphs)?.scene
    }

    /// The scene and, element by element, what a pointer on it stands for.
    public static func view(for state: KioskState, glyphs: GlyphSet) -> ShellView? {
        if state.power == .standby {
            if case .leaving = state.phase { return nil }
            return ShellView(scene: ShellScene(elements: [], ground: .black), targets: [])
        }
        var e = SceneList()
        var hints: [Hint] = [Hint(.confirm, "Select"), Hint(.back, "Back")]
        switch state.phase {
        case .starting:
            e.append(heading("punktfunk"))
            e.append(SceneElement(.text, frame: paragraph(0), title: "Starting…"))
            hints = []
        case .choosingHost(let focus):
            hints = page(state.shell.top, state: state, hostFocus: focus, into: &e)
        case .connecting(let c):
            e.append(heading("Connecting to \(name(of: c.target))"))
            let steps = ["Finding the host", "Dialling", "Waiting for approval on the host", "Starting the picture"]
            let current: Int
            switch c.step {
            case .resolving: current = 0
            case .dialing: current = 1
            case .waitingForApproval: current = 2
            case .awaitingPicture, .resuming: current = 3
            }
            for (i, s) in steps.enumerated() {
                e.append(SceneElement(i == current ? .statement : .text, frame: row(i, height: 70),
                                      title: (i < current ? "✓ " : i == current ? "› " : "  ") + s))
            }
            e.append(SceneElement(.button, frame: buttons(1)[0], title: "Cancel", focused: true), target: .cancel)
            hints = [Hint(.confirm, "Cancel"), Hint(.back, "Cancel")]
        case .pairing(let p):
            e.append(heading("Pairing with \(p.host.name)"))
            let line: String
            switch p.step {
            case .resolving: line = "Finding the host…"
            case .exchanging: line = p.pin == nil ? "Asking the host for access…" : "Checking the PIN with the host…"
            case .waitingForApproval(_, let count):
                line = "Approve this device on the host's screen. Still waiting (\(count))…"
            }
            e.append(SceneElement(.statement, frame: paragraph(0), title: line))
            e.append(SceneElement(.button, frame: buttons(1)[0], title: "Cancel", focused: true), target: .cancel)
            hints = [Hint(.confirm, "Cancel"), Hint(.back, "Cancel")]
        case .error(let sentence, let retry):
            e.append(heading("That did not work"))
            e.append(SceneElement(.statement, frame: paragraph(0, lines: 3), title: sentence))
            let next = retry == nil ? "Go back to the hosts and choose what to do next."
                : "Try again, or go back to the hosts."
            e.append(SceneElement(.text, frame: paragraph(3), title: next))
            let frames = buttons(retry == nil ? 1 : 2)
            if retry != nil {
                e.append(SceneElement(.button, frame: frames[0], title: "Try again", focused: state.shell.errorFocus == .retry), target: .error(.retry))
            }
            e.append(SceneElement(.button, frame: frames[frames.count - 1], title: "Back to hosts",
                                  focused: retry == nil || state.shell.errorFocus == .backToHosts), target: .error(.backToHosts))
        case .streaming, .leaving:
            return nil
        case .inStreamMenu(let s, let selection):
            // A panel over the stream, which keeps playing around it.
            let p = menuPanel
            e.append(SceneElement(.heading, frame: SceneRect(x: p.x + 48, y: p.y + 30, width: p.width - 96, height: 100), title: name(of: s.target)))
            let labels: [(MenuChoice, String)] = [(.resume, "Resume"), (.toggleStats, state.statsOverlay ? "Hide stats" : "Show stats"),
                                                  (.disconnect, "Disconnect"), (.quit, "Quit")]
            let frames = ShellLayout.list(count: labels.count, top: p.y + 150, x: p.x + 60, width: p.width - 120)
            for ((choice, label), f) in zip(labels, frames) {
                e.append(SceneElement(.button, frame: f, title: label, focused: choice == selection), target: .menu(choice))
            }
            let hintFrame = SceneRect(x: p.x + 24, y: p.y + p.height - 120, width: p.width - 48, height: 96)
            e.append(SceneElement(.hints([Hint(.confirm, "Select"), Hint(.back, "Resume")], glyphs), frame: hintFrame))
            return ShellView(scene: ShellScene(elements: e.elements), targets: e.targets, panel: p)
        }
        e.append(SceneElement(.hints(hints, glyphs), frame: ShellLayout.hintFrame))
        return ShellView(scene: ShellScene(elements: e.elements), targets: e.targets)
    }

    /// Where the in-stream menu's panel lies on the design canvas (centred).
    public static let menuPanel = SceneRect(x: 560, y: 170, width: 800, height: 740)

    /// A passing message over the stream (the connection is being resumed, a notice): a panel
    /// near the bottom, the stream around it.
    public static func toast(_ text: String) -> ShellView {
        let p = SceneRect(x: 360, y: 880, width: 1200, height: 130)
        let line = SceneElement(.statement, frame: SceneRect(x: p.x + 40, y: p.y + 20, width: p.width - 80, height: p.height - 40), title: text)
        return ShellView(scene: ShellScene(elements: [line]), targets: [nil], panel: p)
    }

    /// The host list's pages. - Returns: the hints for the page.
    private static func page(_ page: ShellPage, state: KioskState, hostFocus: String?, into e: inout SceneList) -> [Hint] {
        switch page {
        case .home(let focus):
            e.append(heading("Hosts"))
            let onCards = focus == .hosts && !state.hosts.isEmpty
            if state.hosts.isEmpty {
                e.append(SceneElement(.text, frame: paragraph(1), title: "No hosts found yet. Add one by its address."))
            } else {
                let index = state.hosts.firstIndex { $0.id == hostFocus } ?? 0
                let first = min(max(0, index - visibleCards + 1), max(0, state.hosts.count - visibleCards))
                let shown = Array(state.hosts[first..<min(state.hosts.count, first + visibleCards)])
                for (h, f) in zip(shown, ShellLayout.cardRow(count: shown.count, top: ShellLayout.contentTop + 40)) {
                    e.append(SceneElement(.card(status(of: h, state)), frame: f, title: h.name,
                                          focused: onCards && h.id == (hostFocus ?? state.hosts.first?.id)), target: .hostCard(id: h.id))
                }
            }
            let names: [HomeAction: String] = [.addHost: "Add host", .settings: "Settings", .powerOff: "Power off", .restart: "Restart"]
            let actions = state.shell.homeActions
            let actionFocus: HomeAction? = if case .action(let a) = focus { a } else if state.hosts.isEmpty { .addHost } else { nil }
            for (a, f) in zip(actions, ShellLayout.cardRow(count: actions.count, top: 660, width: 380, height: 96)) {
                e.append(SceneElement(.button, frame: f, title: names[a]!, focused: a == actionFocus), target: .homeAction(a))
            }
            if let problem = state.profileProblem ?? state.notice ?? state.shell.box?.power.sentence {
                e.append(SceneElement(.text, frame: SceneRect(x: ShellLayout.margin, y: 800, width: 1728, height: 120), title: problem))
            }
            return [Hint(.confirm, "Select")]
        case .host(let id, let focus):
            guard let h = state.host(id) else { return [] }
            e.append(heading(h.name))
            var about = "\(h.address)\n\(status(of: h, state).label)"
            let noLaunch = !h.titles.isEmpty && state.launchNotGranted.contains(h.id)
            if noLaunch { about += "\n\nThis device has no launch permission on \(h.name): its titles cannot start. Ask the host's owner for it." }
            e.append(SceneElement(.text, frame: SceneRect(x: 1300, y: ShellLayout.contentTop, width: 524, height: noLaunch ? 560 : 200), title: about))
            let entries = HostAction.list(titles: h.titles)
            func label(_ a: HostAction) -> String {
                switch a {
                case .connect: h.titles.isEmpty ? "Connect" : "Desktop"
                case .launch(let id): h.titleName(id)
                case .pairWithPIN: "Pair with PIN"
                case .requestAccess: "Request access"
                case .wake: "Wake"
                case .speedTest: "Speed test"
                case .forget: "Forget"
                }
            }
            // At most `visibleEntries` rows, the window following the focus.
            let index = entries.firstIndex(of: focus) ?? 0
            let first = min(max(0, index - visibleEntries + 1), max(0, entries.count - visibleEntries))
            let shown = entries[first..<min(entries.count, first + visibleEntries)]
            for (a, f) in zip(shown, ShellLayout.list(count: shown.count, top: ShellLayout.contentTop)) {
                e.append(SceneElement(.button, frame: f, title: label(a), focused: a == focus), target: .hostAction(a))
            }
            return [Hint(.confirm, "Select"), Hint(.back, "Back")]
        case .waking(let w):
            let name = state.host(w.hostID)?.name ?? w.hostID
            if let failure = w.failure {
                e.append(heading("\(name) did not wake"))
                e.append(SceneElement(.statement, frame: paragraph(0, lines: 4), title: failure))
                e.append(SceneElement(.button, frame: buttons(1)[0], title: "Back", focused: true), target: .cancel)
                return [Hint(.confirm, "Back"), Hint(.back, "Back")]
            }
            e.append(heading("Waking \(name)… \(w.seconds) s"))
            let sent = w.sent.map { "Magic packets sent (\($0) of \(w.destinations) destinations)." } ?? "Sending magic packets…"
            e.append(SceneElement(.statement, frame: paragraph(0, lines: 2),
                                  title: "\(sent)\nWaiting for \(name) to show on the network (up to \(WakeProgress.limitSeconds) s)."))
            e.append(SceneElement(.button, frame: buttons(1)[0], title: "Cancel", focused: true), target: .cancel)
            return [Hint(.confirm, "Cancel"), Hint(.back, "Cancel")]
        case .speedTest(let t):
            let name = state.host(t.hostID)?.name ?? t.hostID
            e.append(heading("Speed test with \(name)"))
            switch t.stage {
            case .running(let step):
                let line = step == .connecting ? "Connecting to \(name)…" : "Measuring: the host sends a burst for one second…"
                e.append(SceneElement(.statement, frame: paragraph(0), title: line))
                e.append(SceneElement(.button, frame: buttons(1)[0], title: "Cancel", focused: true), target: .cancel)
                return [Hint(.confirm, "Cancel"), Hint(.back, "Cancel")]
            case .done(let r):
                let rtt = r.rttMs.map { String(format: "%.1f ms", $0) } ?? "not measured"
                let lines = [String(format: "Measured: %.0f kbit/s (%.1f Mbit/s)", r.throughputKbps, r.throughputKbps / 1000),
                             String(format: "Loss: %.1f %%", r.lossPercent), "Round trip: \(rtt)",
                             "Suggested bitrate: \(r.suggestedKbps / 1000) Mbit/s"]
                e.append(SceneElement(.statement, frame: paragraph(0, lines: 4), title: lines.joined(separator: "\n")))
                let frames = buttons(2)
                e.append(SceneElement(.button, frame: frames[0], title: "Use \(r.suggestedKbps / 1000) Mbit/s", focused: t.useFocused),
                         target: .confirm(yes: true))
                e.append(SceneElement(.button, frame: frames[1], title: "Back", focused: !t.useFocused), target: .confirm(yes: false))
                return [Hint(.confirm, "Select"), Hint(.back, "Back")]
            case .failed(let sentence):
                e.append(SceneElement(.statement, frame: paragraph(0, lines: 3), title: "The speed test did not work: \(sentence)"))
            }
            e.append(SceneElement(.button, frame: buttons(1)[0], title: "Back", focused: true), target: .cancel)
            return [Hint(.confirm, "Back"), Hint(.back, "Back")]
        case .pin(let id, let focus):
            let name = state.host(id)?.name ?? id
            e.append(heading("Pair with \(name)"))
            e.append(SceneElement(.text, frame: SceneRect(x: ShellLayout.margin, y: ShellLayout.contentTop, width: 900, height: 300),
                                  title: "Type the four-digit PIN that \(name) shows in its console's pairing prompt. A wrong PIN uses up one guess."))
            let digits = state.shell.pinDraft(id)
            let shown = (digits.map(String.init) + Array(repeating: "_", count: max(0, KioskMachine.pinLength - digits.count))).joined(separator: " ")
            e.append(SceneElement(.field, frame: SceneRect(x: ShellLayout.margin, y: 560, width: 600, height: 110), title: shown))
            keys(KeyLayout.digits, focus: focus, centreX: 1440, into: &e)
            return [Hint(.confirm, "Press"), Hint(.erase, "Delete"), Hint(.back, "Back")]
        case .addHost(let focus):
            e.append(heading("Add a host"))
            e.append(SceneElement(.field, frame: SceneRect(x: ShellLayout.margin, y: ShellLayout.contentTop, width: 1728, height: 110),
                                  title: state.shell.addressDraft, detail: "Name or address, e.g. 192.168.1.20 or host.lan:9777"))
            keys(KeyLayout.address, focus: focus, centreX: ShellScene.designWidth / 2, top: 380, into: &e)
            return [Hint(.confirm, "Press"), Hint(.erase, "Delete"), Hint(.back, "Back")]
        case .settings(let focus):
            e.append(heading("Settings"))
            let labels: [(SettingsItem, String)] = [(.mode, "Mode"), (.scaling, "Picture"), (.bitrate, "Bitrate"), (.decoder, "Decoder"),
                                                    (.audioDevice, "Audio device"),
                                                    (.statsOverlay, "Stats overlay"), (.controllers, "Controllers"), (.about, "About")]
            // HDMI-CEC in a second column: the TV's remote and power, then the box's own standby.
            let tv: [(SettingsItem, String)] = [(.cec, "HDMI-CEC"), (.cecTVOn, "TV on with stream"), (.cecTVOff, "TV off with box"),
                                                (.cecStandbyEndsStream, "Sleep with the TV"), (.standbyAfter, "Sleep after"),
                                                (.hdr, "HDR"), (.audioChannels, "Sound channels"), (.audioRedundancy, "Audio repair")]
            let left = ShellLayout.list(count: labels.count, top: ShellLayout.contentTop - 20, width: 1040, rowHeight: 76)
            let right = ShellLayout.list(count: tv.count, top: ShellLayout.contentTop - 20, x: ShellLayout.margin + 1080, width: 648, rowHeight: 76)
            for ((item, label), f) in Array(zip(labels, left)) + Array(zip(tv, right)) {
                let detail: String? = if let (options, i) = state.shell.settings.choice(item) { "‹ \(options[i]) ›" }
                    else if item == .statsOverlay { state.statsOverlay ? "On" : "Off" } else { nil }
                e.append(SceneElement(.button, frame: f, title: label, detail: detail, focused: item == focus), target: .setting(item))
            }
            e.append(SceneElement(.text, frame: SceneRect(x: ShellLayout.margin, y: 900, width: 1728, height: 60),
                                  title: "Changes apply to the next stream; a new mode and HDMI-CEC at the next start."))
            return [Hint(.confirm, "Change"), Hint(.back, "Back")]
        case .info(let topic):
            switch topic {
            case .controllers:
                e.append(heading("Controllers"))
                guard !state.controllers.isEmpty else {
                    e.append(SceneElement(.text, frame: paragraph(0, lines: 3), title: "No controller is connected. Plug one in or pair it over Bluetooth."))
                    return [Hint(.back, "Back")]
                }
                let focus = min(state.shell.controllerFocus, state.controllers.count - 1)
                for (i, (c, f)) in zip(state.controllers, ShellLayout.list(count: state.controllers.count, top: ShellLayout.contentTop, width: 1400)).enumerated() {
                    e.append(SceneElement(.button, frame: f, title: "\(c.slot + 1) · \(c.kind) · \(c.name)", detail: c.batteryLine,
                                          focused: i == focus), target: .controller(slot: c.slot))
                }
                return [Hint(.confirm, "Identify"), Hint(.back, "Back")]
            case .about:
                e.append(heading("About"))
                let display = switch state.display {
                case .glass(let name)?: "Display: \(name)"
                case .headlessByRequest?: "Display: none (headless)"
                case .unavailable(let s)?, .unusable(let s)?: "Display: \(s)"
                case nil: "Display: not opened yet"
                }
                let lines = ["punktfunk-kiosk \(KioskVersion.text)", display,
                             "Decoders: \(state.shell.box?.decoders ?? "not probed yet")",
                             "Settings: \(state.shell.configPath ?? "not saved (no profile)")"]
                e.append(SceneElement(.statement, frame: paragraph(0, lines: 5), title: lines.joined(separator: "\n")))
            }
            return [Hint(.back, "Back")]
        case .confirm(let question, let yes):
            let title = switch question {
            case .forget(let id): "Forget \(state.host(id)?.name ?? id)?"
            case .powerOff: "Power off this box?"
            case .restart: "Restart this box?"
            }
            e.append(heading(title))
            let frames = buttons(2)
            e.append(SceneElement(.button, frame: frames[0], title: "Yes", focused: yes), target: .confirm(yes: true))
            e.append(SceneElement(.button, frame: frames[1], title: "No", focused: !yes), target: .confirm(yes: false))
            return [Hint(.confirm, "Select"), Hint(.back, "No")]
        }
    }

    /// A card's status: not pinned (no given fingerprint, none in the trust store for its
    /// address) needs pairing; pinned and listed by discovery now is online; pinned, not seen and
    /// with a MAC to wake is asleep; otherwise paired (reachability unknown).
    public static func status(of host: HostEntry, _ state: KioskState) -> HostStatus {
        guard isPinned(host, state) else { return .needsPairing }
        if state.shell.onNetwork.contains(host.id) { return .online }
        return host.macs.isEmpty ? .paired : .asleep
    }

    private static func isPinned(_ host: HostEntry, _ state: KioskState) -> Bool {
        if host.givenFingerprint != nil { return true }
        guard let (name, port) = try? HostResolver.split(host.address) else { return false }
        let key = name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)"
        return state.knownHosts.fingerprint(for: key) != nil
    }

    private static func name(of target: StreamTarget) -> String {
        switch target {
        case .host(let h, nil): h.name
        case .host(let h, let launch?): "\(h.titleName(launch)) on \(h.name)"
        case .file(let f): f.path
        }
    }

    private static func keys(_ layout: [[KeyCap]], focus: GridPosition, centreX: Double, top: Double = ShellLayout.contentTop + 40,
                             into e: inout SceneList) {
        let frames = ShellLayout.keys(rowLengths: KeyLayout.rowLengths(layout), top: top, centreX: centreX)
        for (r, row) in layout.enumerated() {
            for (c, key) in row.enumerated() {
                e.append(SceneElement(.key, frame: frames[r][c], title: key.label, focused: focus == GridPosition(row: r, column: c)),
                         target: .key(GridPosition(row: r, column: c)))
            }
        }
    }

    private static func heading(_ title: String) -> SceneElement {
        SceneElement(.heading, frame: ShellLayout.headingFrame, title: title)
    }

    /// A paragraph `lines` body lines tall starting at line `line` under the heading.
    private static func paragraph(_ line: Int, lines: Int = 1) -> SceneRect {
        let lh = ShellScene.bodySize * 1.4
        return SceneRect(x: ShellLayout.margin, y: ShellLayout.contentTop + Double(line) * lh, width: 1728, height: Double(lines) * lh)
    }

    private static func row(_ i: Int, height: Double) -> SceneRect {
        SceneRect(x: ShellLayout.margin, y: ShellLayout.contentTop + Double(i) * height, width: 1200, height: height)
    }

    /// `count` buttons side by side near the bottom.
    private static func buttons(_ count: Int) -> [SceneRect] {
        ShellLayout.cardRow(count: count, top: 700, width: 420, height: 100)
    }
}

/// A screen as drawn plus what each element stands for under a pointer (nil: nothing to point at).
public struct ShellView: Sendable, Equatable {
    public var scene: ShellScene
    /// One per element of `scene`, in order.
    public var targets: [PointerTarget?]
    /// nil: the scene fills the screen. Else the scene is a panel floating over the stream
    /// (`PanelRenderer`), inside this rectangle of the design canvas.
    public var panel: SceneRect?

    public init(scene: ShellScene, targets: [PointerTarget?], panel: SceneRect? = nil) {
        self.scene = scene; self.targets = targets; self.panel = panel
    }
}

/// Elements being laid out, with their pointer targets alongside.
struct SceneList {
    var elements: [SceneElement] = []
    var targets: [PointerTarget?] = []

    mutating func append(_ element: SceneElement, target: PointerTarget? = nil) {
        elements.append(element)
        targets.append(target)
    }
}
