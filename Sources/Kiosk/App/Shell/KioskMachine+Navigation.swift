/// The shell's navigation as part of the machine: one `NavigationInput` moves the focus on the
/// screen showing, or issues the `UserAction` (or `ShellRequest`) its focused entry stands for.
/// Every screen has a way back; Back never discards typed text.
extension KioskMachine {
    mutating func navigate(_ input: NavigationInput, now: UInt64) -> [KioskEffect] {
        if case .point(let target) = input {
            point(at: target)
            return []
        }
        switch state.phase {
        case .starting, .leaving:
            return []
        case .choosingHost:
            return navigatePage(input, now: now)
        case .connecting, .pairing:
            switch input {
            case .activate, .back: return user(.cancel, now: now)
            default: return []
            }
        case .streaming:
            return input == .menu ? user(.openMenu, now: now) : []
        case .inStreamMenu(let s, let selection):
            switch input {
            case .move(let d) where d == .up || d == .down:
                let all = MenuChoice.allCases
                let i = all.firstIndex(of: selection)!
                let j = d == .up ? max(0, i - 1) : min(all.count - 1, i + 1)
                state.phase = .inStreamMenu(s, selection: all[j])
                return []
            case .activate: return user(.menu(selection), now: now)
            case .back, .menu: return user(.back, now: now)
            default: return []
            }
        case .error(_, let retry):
            switch input {
            case .move(let d):
                guard retry != nil else { return [] }
                if d == .left || d == .up { state.shell.errorFocus = .retry }
                if d == .right || d == .down { state.shell.errorFocus = .backToHosts }
                return []
            case .activate:
                if state.shell.errorFocus == .retry, let id = retry { return user(.connect(hostID: id, launch: lastLaunch[id]), now: now) }
                return user(.back, now: now)
            case .back: return user(.back, now: now)
            default: return []
            }
        }
    }

    /// The host list's pages.
    private mutating func navigatePage(_ input: NavigationInput, now: UInt64) -> [KioskEffect] {
        let top = state.shell.top
        switch top {
        case .home(let focus): return navigateHome(focus, input, now: now)
        case .host(let id, let focus): return navigateHost(id, focus, input, now: now)
        case .pin(let id, let position): return navigatePin(id, position, input, now: now)
        case .addHost(let position): return navigateAddHost(position, input, now: now)
        case .settings(let item): return navigateSettings(item, input)
        case .info(.controllers) where !state.controllers.isEmpty:
            let last = state.controllers.count - 1
            let i = min(state.shell.controllerFocus, last)
            switch input {
            case .move(.up): state.shell.controllerFocus = max(0, i - 1)
            case .move(.down): state.shell.controllerFocus = min(last, i + 1)
            case .activate: return [.shell(.identifyController(slot: state.controllers[i].slot))]
            case .back: pop()
            default: break
            }
            return []
        case .info:
            if input == .back || input == .activate { pop() }
            return []
        case .speedTest(var t) where t.result != nil:
            switch input {
            case .move(let d) where d == .left || d == .right:
                t.useFocused = d == .left
                replaceTop(.speedTest(t))
                return []
            case .activate where t.useFocused: return useSuggestedBitrate(t)
            case .activate, .back: return leaveJobPage()
            default: return []
            }
        case .waking, .speedTest:
            return input == .back || input == .activate ? leaveJobPage() : []
        case .confirm(let question, let yes):
            switch input {
            case .move(let d) where d == .left || d == .right:
                replaceTop(.confirm(question, yes: d == .left))
                return []
            case .back:
                pop()
                return []
            case .activate:
                pop()
                guard yes else { return [] }
                switch question {
                case .forget(let id):
                    // The host page of a forgotten host goes too.
                    if case .host(id, _) = state.shell.top { pop() }
                    return forget(id)
                case .powerOff: return [.shell(.powerOff)]
                case .restart: return [.shell(.restart)]
                }
            default:
                return []
            }
        }
    }

    private mutating func navigateHome(_ focus: HomeFocus, _ input: NavigationInput, now: UInt64) -> [KioskEffect] {
        let actions = state.shell.homeActions
        // With no host listed the card row is empty: the focus is on the actions.
        let effective: HomeFocus = (focus == .hosts && state.hosts.isEmpty) ? .action(.addHost) : focus
        switch (effective, input) {
        case (.hosts, .move(let d)):
            guard case .choosingHost(let current) = state.phase else { return [] }
            let i = state.hosts.firstIndex { $0.id == current } ?? 0
            switch d {
            case .left: state.phase = .choosingHost(focus: state.hosts[max(0, i - 1)].id)
            case .right: state.phase = .choosingHost(focus: state.hosts[min(state.hosts.count - 1, i + 1)].id)
            case .down: replaceTop(.home(.action(.addHost)))
            case .up: break
            }
            return []
        case (.hosts, .activate):
            guard case .choosingHost(let current) = state.phase, let id = current ?? state.hosts.first?.id else { return [] }
            push(.host(id: id, focus: .connect))
            return []
        case (.action(let a), .move(let d)):
            let i = actions.firstIndex(of: a) ?? 0
            switch d {
            case .left: replaceTop(.home(.action(actions[max(0, i - 1)])))
            case .right: replaceTop(.home(.action(actions[min(actions.count - 1, i + 1)])))
            case .up: if !state.hosts.isEmpty { replaceTop(.home(.hosts)) }
            case .down: break
            }
            return []
        case (.action(let a), .activate):
            guard actions.contains(a) else { return [] }
            replaceTop(.home(.action(a)))   // the focus to come back to
            switch a {
            case .addHost: push(.addHost(focus: GridPosition(row: 0, column: 0)))
            case .settings: push(.settings(focus: .mode))
            case .powerOff: push(.confirm(.powerOff, yes: false))
            case .restart: push(.confirm(.restart, yes: false))
            }
            return []
        default:
            return []
        }
    }

    private mutating func navigateHost(_ id: String, _ focus: HostAction, _ input: NavigationInput, now: UInt64) -> [KioskEffect] {
        let all = HostAction.list(titles: state.host(id)?.titles ?? [])
        let i = all.firstIndex(of: focus) ?? 0
        switch input {
        case .move(.up):
            replaceTop(.host(id: id, focus: all[max(0, i - 1)]))
        case .move(.down):
            replaceTop(.host(id: id, focus: all[min(all.count - 1, i + 1)]))
        case .back:
            pop()
        case .activate:
            switch focus {
            case .connect: return user(.connect(hostID: id), now: now)
            case .launch(let title): return user(.connect(hostID: id, launch: title), now: now)
            case .pairWithPIN: push(.pin(hostID: id, focus: GridPosition(row: 0, column: 0)))
            case .requestAccess: return user(.pair(hostID: id, pin: nil), now: now)
            case .wake: return startWake(id)
            case .speedTest: return startSpeedTest(id)
            case .forget: push(.confirm(.forget(hostID: id), yes: false))
            }
        default:
            break
        }
        return []
    }

    /// The PIN is four digits; OK sends it once all four are there.
    static let pinLength = 4

    /// An on-screen keyboard's page: a move goes to another key (`page` makes the page focused on
    /// it), back leaves the page (its draft stays), and a pressed, typed or erased key is returned.
    private mutating func keyboardKey(_ layout: [[KeyCap]], at position: GridPosition, _ input: NavigationInput,
                                      page: (GridPosition) -> ShellPage) -> KeyCap? {
        switch input {
        case .move(let d):
            replaceTop(page(position.moved(d, rowLengths: KeyLayout.rowLengths(layout))))
            return nil
        case .back:
            pop()   // what was typed stays in the draft
            return nil
        case .menu, .point:   // a pointer was handled before the page
            return nil
        case .activate: return layout[position.row][position.column]
        case .character(let c): return c == "\n" || c == "\r" ? .done : .character(c)
        case .erase: return .erase
        }
    }

    private mutating func navigatePin(_ id: String, _ position: GridPosition, _ input: NavigationInput, now: UInt64) -> [KioskEffect] {
        let key = keyboardKey(KeyLayout.digits, at: position, input) { .pin(hostID: id, focus: $0) }
        var draft = state.shell.pinDraft(id)
        switch key {
        case .character(let c)?:
            guard c.isASCII, c.isNumber, draft.count < Self.pinLength else { return [] }
            draft.append(c)
        case .erase?:
            guard !draft.isEmpty else { return [] }
            draft.removeLast()
        case .done?:
            guard draft.count == Self.pinLength else { return [] }
            return user(.pair(hostID: id, pin: draft), now: now)
        case nil:
            return []
        }
        state.shell.pinDrafts[id] = draft
        return []
    }

    private mutating func navigateAddHost(_ position: GridPosition, _ input: NavigationInput, now: UInt64) -> [KioskEffect] {
        let key = keyboardKey(KeyLayout.address, at: position, input) { .addHost(focus: $0) }
        switch key {
        case .character(let c)?:
            guard c.isASCII, !c.isWhitespace, state.shell.addressDraft.count < 255 else { return [] }
            state.shell.addressDraft.append(c)
        case .erase?:
            if !state.shell.addressDraft.isEmpty { state.shell.addressDraft.removeLast() }
        case .done?:
            let address = state.shell.addressDraft
            guard !address.isEmpty else { return [] }
            let host = HostEntry(address: address)
            state.shell.addressDraft = ""
            pop()
            if state.host(host.id) == nil {
                fixedHosts.append(host)   // kept when discovery replaces its part of the list
                state.hosts.append(host)
            }
            state.phase = .choosingHost(focus: host.id)
            replaceTop(.home(.hosts))
            return [.shell(.saveHost(host))]
        case nil:
            break
        }
        return []
    }

    private mutating func navigateSettings(_ item: SettingsItem, _ input: NavigationInput) -> [KioskEffect] {
        let all = SettingsItem.allCases
        let i = all.firstIndex(of: item)!
        switch input {
        case .move(.up): replaceTop(.settings(focus: all[max(0, i - 1)]))
        case .move(.down): replaceTop(.settings(focus: all[min(all.count - 1, i + 1)]))
        case .move(let d):
            if state.shell.settings.step(item, by: d == .left ? -1 : 1) { return saveSettings() }
        case .back: pop()
        case .activate:
            switch item {
            case .statsOverlay:
                state.statsOverlay.toggle()
                return [.setStatsOverlay(state.statsOverlay)] + saveSettings()
            case .controllers: push(.info(.controllers))
            case .about: push(.info(.about))
            case .mode, .scaling, .bitrate, .decoder, .audioDevice, .cec, .cecTVOn, .cecTVOff, .cecStandbyEndsStream, .standbyAfter,
                 .hdr, .audioChannels, .audioRedundancy:
                if state.shell.settings.cycle(item) { return saveSettings() }
            }
        default: break
        }
        return []
    }

    /// The speed test's suggestion becomes the bitrate of the next stream; back to the host page.
    private mutating func useSuggestedBitrate(_ t: SpeedTestProgress) -> [KioskEffect] {
        guard let result = t.result else { return [] }
        pop()
        state.shell.settings.bitrateKbps = result.suggestedKbps
        state.notice = "The next stream asks for \(result.suggestedKbps / 1000) Mbit/s."
        return saveSettings()
    }

    private func saveSettings() -> [KioskEffect] {
        [.shell(.saveSettings(state.shell.settings, statsOverlay: state.statsOverlay))]
    }

    /// Focuses what a pointer is on, when it is an entry of the screen showing (a target of
    /// another screen — a stale pointer event — changes nothing).
    private mutating func point(at target: PointerTarget) {
        switch (state.phase, target) {
        case (.inStreamMenu(let s, _), .menu(let choice)):
            state.phase = .inStreamMenu(s, selection: choice)
        case (.error(_, let retry), .error(let choice)) where choice == .backToHosts || retry != nil:
            state.shell.errorFocus = choice
        case (.choosingHost, _):
            switch (state.shell.top, target) {
            case (.home, .hostCard(let id)) where state.host(id) != nil:
                state.phase = .choosingHost(focus: id)
                replaceTop(.home(.hosts))
            case (.home, .homeAction(let a)) where state.shell.homeActions.contains(a):
                replaceTop(.home(.action(a)))
            case (.host(let id, _), .hostAction(let a)):
                replaceTop(.host(id: id, focus: a))
            case (.pin(let id, _), .key(let p)) where Self.isKey(p, of: KeyLayout.digits):
                replaceTop(.pin(hostID: id, focus: p))
            case (.addHost, .key(let p)) where Self.isKey(p, of: KeyLayout.address):
                replaceTop(.addHost(focus: p))
            case (.settings, .setting(let item)):
                replaceTop(.settings(focus: item))
            case (.info(.controllers), .controller(let slot)):
                if let i = state.controllers.firstIndex(where: { $0.slot == slot }) { state.shell.controllerFocus = i }
            case (.confirm(let question, _), .confirm(let yes)):
                replaceTop(.confirm(question, yes: yes))
            case (.speedTest(var t), .confirm(let use)) where t.result != nil:
                t.useFocused = use
                replaceTop(.speedTest(t))
            default:
                break
            }
        default:
            break
        }
    }

    private static func isKey(_ p: GridPosition, of layout: [[KeyCap]]) -> Bool {
        p.row >= 0 && p.row < layout.count && p.column >= 0 && p.column < layout[p.row].count
    }

    // MARK: - The page stack

    mutating func push(_ page: ShellPage) { state.shell.pages.append(page) }

    /// Leaves the top page; the page under it shows with the focus it had.
    mutating func pop() {
        if state.shell.pages.count > 1 { state.shell.pages.removeLast() }
    }

    mutating func replaceTop(_ page: ShellPage) { state.shell.pages[state.shell.pages.count - 1] = page }

    /// Keeps the shell consistent with what the last event did: pages of hosts no longer listed go;
    /// a pairing that succeeded leaves its PIN page (and forgets the PIN; a cancelled or failed one
    /// keeps both); a new error screen focuses its first choice.
    mutating func reconcileShell(after old: KioskState) {
        let hosts = state.hosts
        state.shell.pages.removeAll { page in
            switch page {
            case .host(let id, _), .pin(let id, _), .confirm(.forget(let id), _): !hosts.contains { $0.id == id }
            case .waking(let w): !hosts.contains { $0.id == w.hostID }
            case .speedTest(let t): !hosts.contains { $0.id == t.hostID }
            default: false
            }
        }
        switch (old.phase, state.phase) {
        case (.pairing(let p), .choosingHost) where old.knownHosts != state.knownHosts:
            state.shell.pinDrafts[p.host.id] = nil
            if case .pin(p.host.id, _) = state.shell.top { pop() }
        case (.error, .error):
            break
        case (_, .error(_, let retry)):
            state.shell.errorFocus = retry == nil ? .backToHosts : .retry
        default:
            break
        }
    }
}
