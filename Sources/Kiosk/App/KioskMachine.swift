import PunktfunkSession

/// The life of the box as a pure state machine: `(state, event, now) → (state, effects)`.
///
/// Shape (quinn's `Connection`, Elm's `update`): `handle(_:now:)` takes every input — user
/// actions, stream and pairing progress, discovery updates, signals, timers — and returns the
/// effects for the runner to perform, in order; `nextDeadline` says when to call back with
/// `.timer`. No clock, socket, file or device is touched here; time only comes in as `now`
/// (CLOCK_MONOTONIC ns, never decreasing between calls).
///
/// Jobs: each stream, pairing and address lookup gets a fresh job number; events name the job
/// they belong to, and an event of a job the phase no longer holds (cancelled, replaced) is
/// ignored. So a late result can never revive a screen the user has left.
///
/// Ways out: SIGINT/SIGTERM and "quit" lead to `leaving`, which stops a running stream and
/// issues `.exit` once it ended or `policy.leaveGraceNs` passed; every other phase has a way back
/// (cancel, back, or the stream's end), so no screen is a dead end.
public struct KioskMachine: Sendable {
    public internal(set) var state = KioskState()
    public let policy: KioskPolicy
    /// The command line's job, issued once the runner reported `.started` (and the box is on).
    var initialAction: UserAction?
    /// Hosts named at start and added in the shell (kept when discovery replaces its part of the list).
    var fixedHosts: [HostEntry]
    private var lastJob = 0
    /// When the error screen retries its host by itself (`policy.retryFailedHostAfterNs`), ns.
    var retryAtNs: UInt64?
    /// Automatic retries since the last stream that showed a picture.
    private var retries = 0
    /// Since when the shell has had no input (the idle standby's clock), ns.
    var idleSinceNs: UInt64 = 0
    /// The title each host's latest connect asked for: a retry (the error screen's, boot-to-
    /// stream's own, a wake) asks for it again.
    var lastLaunch: [String: String] = [:]

    /// - Parameters:
    ///   - hosts: hosts known at start (the command line's, saved ones).
    ///   - initialAction: what to do once started (nil: wait in the host list).
    ///   - statsOverlay: the overlay's setting at start (`--stats`).
    public init(policy: KioskPolicy, hosts: [HostEntry] = [], initialAction: UserAction? = nil, statsOverlay: Bool = false) {
        self.policy = policy
        self.fixedHosts = hosts
        self.initialAction = initialAction
        state.hosts = hosts
        state.statsOverlay = statsOverlay
    }

    /// When to call `handle(.timer, now:)` next (nil: no timer is armed).
    public var nextDeadline: UInt64? {
        if case .leaving(let l) = state.phase { return l.deadlineNs != .max ? l.deadlineNs : nil }
        var due: UInt64?
        if case .error(_, .some) = state.phase, let retryAtNs { due = retryAtNs }
        if let idle = idleStandbyDeadline { due = min(due ?? .max, idle) }
        return due
    }

    /// Applies one event. - Returns: the effects to perform, in order.
    public mutating func handle(_ event: KioskEvent, now: UInt64) -> [KioskEffect] {
        let old = state
        let effects = apply(event, now: now)
        reconcileShell(after: old)
        noteActivity(event, before: old, now: now)
        return effects
    }

    private mutating func apply(_ event: KioskEvent, now: UInt64) -> [KioskEffect] {
        state.notice = nil
        switch event {
        case .navigate(let input):
            // In standby the box's own key or button wakes it, and does nothing else.
            if state.power == .standby { return wake(now: now) }
            return navigate(input, now: now)
        case .started(let report): return started(report, now: now)
        case .user(let action): return user(action, now: now)
        case .resolved(let job, let key): return resolved(job: job, key: key, now: now)
        case .unresolvable(let job, let sentence):
            switch state.phase {
            case .connecting(let c) where c.job == job && c.step == .resolving:
                return fail(sentence, retry: c.target.hostID, now: now)
            case .pairing(let p) where p.job == job && p.step == .resolving:
                jobEnded(focus: p.host.id)
                return fail(sentence, retry: nil, now: now)
            default: return []
            }
        case .stream(let job, let progress): return stream(job: job, progress, now: now)
        case .pairing(let job, let progress): return pairing(job: job, progress, now: now)
        case .hostsChanged(let discovered):
            // A given host follows its advert to a new address only when the advert claims the
            // fingerprint pinned for it (the connect verifies it again); other adverts are listed.
            for h in discovered {
                if let i = fixedHosts.firstIndex(where: { $0.id == h.id }), let pin = fixedHosts[i].givenFingerprint,
                   pin == h.advertisedFingerprint {
                    fixedHosts[i].address = h.address
                }
            }
            var hosts = fixedHosts
            for h in discovered where !hosts.contains(where: { $0.id == h.id }) { hosts.append(h) }
            state.hosts = hosts
            if case .choosingHost(let focus) = state.phase, focus.flatMap(state.host) == nil {
                state.phase = .choosingHost(focus: hosts.first?.id)
            }
            state.shell.onNetwork = Self.seen(fixed: fixedHosts, discovered: discovered)
            return wokenIfSeen()
        case .shell(let job, let outcome): return shellOutcome(job: job, outcome)
        case .trustStoreChanged(let known):
            state.knownHosts = known
            return []
        case .boxChecked(let facts):
            state.shell.box = facts
            // A focus on a button that is not offered any more moves to the last one that is.
            if case .home(.action(let a)) = state.shell.pages[0], !state.shell.homeActions.contains(a) {
                state.shell.pages[0] = .home(.action(state.shell.homeActions.last!))
            }
            return []
        case .notice(let sentence):
            state.notice = sentence
            return []
        case .launchGrant(let id, let granted):
            if granted { state.launchNotGranted.remove(id) } else { state.launchNotGranted.insert(id) }
            return []
        case .displayChanged(let news):
            if let mode = news.mode { state.display = .glass(name: "\(news.connector) \(mode)") }
            state.notice = news.sentence
            return []
        case .pointer(let p):
            if state.power == .standby, p.action == .clicked { return wake(now: now) }
            return []
        case .controllersChanged(let list):
            state.controllers = list
            state.shell.controllerFocus = min(state.shell.controllerFocus, max(0, list.count - 1))
            return []
        case .signal(let signal): return leave(code: signal.exitCode, reason: nil, now: now)
        case .tvStandby: return tvStandby(now: now)
        case .tvWake: return wake(now: now)
        case .timer:
            if let at = idleStandbyDeadline, now >= at { return enterStandby(.idle, now: now) }
            if case .error(_, .some(let id)) = state.phase, let at = retryAtNs, now >= at {
                retryAtNs = nil
                return user(.connect(hostID: id, launch: lastLaunch[id]), now: now)
            }
            guard case .leaving(var l) = state.phase, l.deadlineNs != .max, now >= l.deadlineNs else { return [] }
            l.deadlineNs = .max
            state.phase = .leaving(l)
            return [.exit(code: l.code)]
        }
    }

    // MARK: - Events

    private mutating func started(_ report: StartReport, now: UInt64) -> [KioskEffect] {
        guard state.phase == .starting else { return [] }
        state.display = report.display
        state.knownHosts = report.knownHosts
        state.profileProblem = report.profileProblem
        state.shell.settings = ShellSettings(config: report.config ?? KioskConfig(), modes: report.displayModes,
                                             audioDevices: report.audioDevices)
        if let seconds = policy.standbyAfterSeconds { state.shell.settings.standbyAfterSeconds = seconds == 0 ? nil : seconds }
        state.shell.configPath = report.configPath
        if policy.requiresDisplay {
            switch report.display {
            case .unavailable(let sentence): return leave(code: ExitStatus.noDisplay, reason: sentence, now: now)
            case .unusable(let sentence): return leave(code: ExitStatus.failed, reason: sentence, now: now)
            case .glass, .headlessByRequest: break
            }
        }
        state.phase = .choosingHost(focus: state.hosts.first?.id)
        // In standby already (the TV's, during the start): the job waits for the wake.
        guard state.power == .on, let action = initialAction else { return [] }
        initialAction = nil
        return user(action, now: now)
    }

    mutating func user(_ action: UserAction, now: UInt64) -> [KioskEffect] {
        switch action {
        case .connect(let id, let launch):
            guard canStartJob, let host = state.host(id) else { return [] }
            if let problem = state.profileProblem { return fail(problem, retry: nil, now: now) }
            // A launch id the hello cannot carry whole is refused before dialling.
            if let launch, let problem = LaunchTitle.problem(id: launch) { return fail(problem, retry: nil, now: now) }
            lastLaunch[id] = launch
            let job = newJob()
            state.phase = .connecting(ConnectProgress(job: job, target: .host(host, launch: launch), step: .resolving))
            return [.resolve(job: job, host: host)]
        case .play(let file):
            guard canStartJob else { return [] }
            guard case .glass = state.display else {
                return fail("There is no display to show \(file.path) on.", retry: nil, code: ExitStatus.noDisplay, now: now)
            }
            let job = newJob()
            state.phase = .connecting(ConnectProgress(job: job, target: .file(file), step: .awaitingPicture))
            return [.startStream(job: job, .file(file))]
        case .pair(let id, let pin):
            guard canStartJob, let host = state.host(id) else { return [] }
            if let problem = state.profileProblem { return fail(problem, retry: nil, now: now) }
            let job = newJob()
            state.phase = .pairing(PairingProgress(job: job, host: host, pin: pin, step: .resolving))
            return [.resolve(job: job, host: host)]
        case .cancel:
            // The command line has no cancel; a cancelled one-shot job did not complete.
            if policy.afterJob == .exitProcess {
                switch state.phase {
                case .connecting, .pairing: return leave(code: ExitStatus.failed, reason: nil, now: now)
                default: return []
                }
            }
            switch state.phase {
            case .connecting(let c):
                state.phase = .choosingHost(focus: c.target.hostID ?? state.hosts.first?.id)
                return c.step == .resolving ? [] : [.stopStream(job: c.job)]
            case .pairing(let p):
                state.phase = .choosingHost(focus: p.host.id)
                return [.cancelPairing(job: p.job)]
            default:
                return []
            }
        case .back:
            switch state.phase {
            case .error(_, let retry): state.phase = .choosingHost(focus: retry ?? state.hosts.first?.id)
            case .inStreamMenu(let s, _): state.phase = .streaming(s)
            default: break
            }
            return []
        case .openMenu:
            if case .streaming(let s) = state.phase { state.phase = .inStreamMenu(s, selection: .resume) }
            return []
        case .escapeChord:
            // On glass the chord opens the in-stream menu (again: closes it); headless there is
            // no menu to show, so it ends the stream like the menu's "disconnect".
            switch state.phase {
            case .streaming(let s) where state.display?.isGlass == true:
                state.phase = .inStreamMenu(s, selection: .resume)
                return []
            case .inStreamMenu(let s, _) where state.display?.isGlass == true:
                state.phase = .streaming(s)
                return []
            case .streaming(let s), .inStreamMenu(let s, _):
                state.phase = .inStreamMenu(s, selection: .disconnect)
                return user(.menu(.disconnect), now: now)
            default:
                return []
            }
        case .menu(let choice):
            guard case .inStreamMenu(let s, _) = state.phase else { return [] }
            switch choice {
            case .resume:
                state.phase = .streaming(s)
                return []
            case .toggleStats:
                state.statsOverlay.toggle()
                state.phase = .inStreamMenu(s, selection: .toggleStats)
                return [.setStatsOverlay(state.statsOverlay)]
            case .disconnect:
                if policy.afterJob == .exitProcess {
                    return leave(code: ExitStatus.finished, reason: nil, now: now)
                }
                state.phase = .choosingHost(focus: s.target.hostID ?? state.hosts.first?.id)
                return [.stopStream(job: s.job)]
            case .quit:
                return leave(code: ExitStatus.finished, reason: nil, now: now)
            }
        case .quit:
            return leave(code: ExitStatus.finished, reason: nil, now: now)
        }
    }

    private mutating func resolved(job: Int, key: String, now: UInt64) -> [KioskEffect] {
        switch state.phase {
        case .connecting(var c) where c.job == job && c.step == .resolving:
            guard case .host(let host, let launch) = c.target else { return [] }
            let decision = TrustDecision.decide(key: key, host: host, knownHosts: state.knownHosts,
                                                allowFirstUse: policy.allowFirstUse)
            guard let trust = decision.hostTrust else {
                if case .refused(let sentence) = decision { return fail(sentence, retry: host.id, now: now) }
                return []
            }
            c.step = .dialing(key: key, trust: decision)
            state.phase = .connecting(c)
            return [.startStream(job: job, .session(host: host, key: key, trust: trust, launch: launch))]
        case .pairing(var p) where p.job == job && p.step == .resolving:
            p.step = .exchanging(key: key)
            state.phase = .pairing(p)
            return [.startPairing(job: job, PairingRequest(host: p.host, key: key, pin: p.pin))]
        default:
            return []
        }
    }

    private mutating func stream(job: Int, _ progress: StreamEvent, now: UInt64) -> [KioskEffect] {
        switch (state.phase, progress) {
        case (.connecting(var c), .waitingForApproval(let count)) where c.job == job:
            switch c.step {
            case .dialing(let key, let trust), .waitingForApproval(let key, let trust, _):
                c.step = .waitingForApproval(key: key, trust: trust, count: count)
                state.phase = .connecting(c)
            default: break
            }
            return []
        case (.connecting(var c), .established(let fingerprint, let redirected)) where c.job == job:
            var effects: [KioskEffect] = []
            switch c.step {
            case .dialing(let key, .trustOnFirstUse), .waitingForApproval(let key, .trustOnFirstUse, _):
                // First use: pin what TLS showed, unless the session runs on a host we were
                // redirected to (that certificate is not the one of the host the user named).
                if !redirected, let fingerprint, state.knownHosts.fingerprint(for: key) == nil,
                   (try? state.knownHosts.trust(host: key, fingerprint: fingerprint)) != nil {
                    effects.append(.trustHost(key: key, fingerprint: fingerprint))
                }
            default: break
            }
            c.step = .awaitingPicture
            state.phase = .connecting(c)
            return effects
        case (.connecting(var c), .resuming(let attempt)) where c.job == job:
            c.step = .resuming(attempt: attempt)
            state.phase = .connecting(c)
            return []
        case (.connecting(let c), .firstPicture) where c.job == job:
            retries = 0
            state.phase = .streaming(StreamProgress(job: job, target: c.target, sinceNs: now))
            return []
        case (.streaming(var s), .resuming(let attempt)) where s.job == job:
            s.resuming = attempt
            state.phase = .streaming(s)
            return []
        case (.inStreamMenu(var s, let selection), .resuming(let attempt)) where s.job == job:
            s.resuming = attempt
            state.phase = .inStreamMenu(s, selection: selection)
            return []
        case (.streaming(var s), .established) where s.job == job:
            s.resuming = nil   // a resumed session is running again
            state.phase = .streaming(s)
            return []
        case (.inStreamMenu(var s, let selection), .established) where s.job == job:
            s.resuming = nil
            state.phase = .inStreamMenu(s, selection: selection)
            return []
        case (.connecting(let c), .ended(let end)) where c.job == job:
            return ended(end, hostID: c.target.hostID, now: now)
        case (.streaming(let s), .ended(let end)) where s.job == job,
             (.inStreamMenu(let s, _), .ended(let end)) where s.job == job:
            return ended(end, hostID: s.target.hostID, now: now)
        case (.leaving(var l), .ended) where l.job == job && l.deadlineNs != .max:
            l.deadlineNs = .max
            l.job = nil
            state.phase = .leaving(l)
            return [.exit(code: l.code)]
        default:
            return []
        }
    }

    private mutating func ended(_ end: StreamEnd, hostID: String?, now: UInt64) -> [KioskEffect] {
        jobEnded(focus: hostID)
        switch end {
        case .finished:
            // Boot-to-stream: the host ended the stream (a person's disconnect left the phase
            // before this end arrived), so the box comes back streaming once the host does.
            if policy.afterJob == .returnToHosts, policy.retryFailedHostAfterNs != nil, let hostID {
                return fail("The host ended the stream.", retry: hostID, now: now)
            }
            return backToHosts(focus: hostID, code: ExitStatus.finished, now: now)
        case .failed(let sentence): return fail(sentence, retry: hostID, now: now)
        }
    }

    private mutating func pairing(job: Int, _ progress: PairingEvent, now: UInt64) -> [KioskEffect] {
        guard case .pairing(var p) = state.phase, p.job == job else { return [] }
        switch (progress, p.step) {
        case (.waitingForApproval(let count), .exchanging(let key)),
             (.waitingForApproval(let count), .waitingForApproval(let key, _)):
            p.step = .waitingForApproval(key: key, count: count)
            state.phase = .pairing(p)
            return []
        case (.paired(let fingerprint), .exchanging(let key)),
             (.paired(let fingerprint), .waitingForApproval(let key, _)):
            jobEnded(focus: p.host.id)
            guard (try? state.knownHosts.trust(host: key, fingerprint: fingerprint)) != nil else {
                return fail("The host answered with an unusable fingerprint (\(fingerprint)).", retry: nil, now: now)
            }
            return [.trustHost(key: key, fingerprint: fingerprint)]
                + backToHosts(focus: p.host.id, code: ExitStatus.finished, now: now)
        case (.failed(let sentence), _):
            jobEnded(focus: p.host.id)
            return fail(sentence, retry: nil, now: now)
        default:
            return []
        }
    }

    // MARK: - Transitions

    /// A job may start from the host list and from an error screen (retry).
    var canStartJob: Bool {
        switch state.phase {
        case .choosingHost, .error: true
        default: false
        }
    }

    mutating func newJob() -> Int {
        lastJob += 1
        return lastJob
    }

    /// The running job is over: nothing is left to stop (the phase that held it is gone).
    private mutating func jobEnded(focus: String?) {
        state.phase = .choosingHost(focus: focus ?? state.hosts.first?.id)
    }

    /// A job ended (or was cancelled): the host list, or the process ends with `code`.
    private mutating func backToHosts(focus: String?, code: Int32, now: UInt64) -> [KioskEffect] {
        if policy.afterJob == .exitProcess { return leave(code: code, reason: nil, now: now) }
        state.phase = .choosingHost(focus: focus ?? state.hosts.first?.id)
        return []
    }

    /// Something failed: the error screen with its way back, or the process ends with `code`
    /// after saying why.
    private mutating func fail(_ sentence: String, retry: String?, code: Int32 = ExitStatus.failed, now: UInt64) -> [KioskEffect] {
        if policy.afterJob == .exitProcess { return leave(code: code, reason: sentence, now: now) }
        state.phase = .error(sentence: sentence, retry: retry)
        if let delay = policy.retryFailedHostAfterNs, let retry {
            retries += 1
            retryAtNs = now + delay
            state.notice = "Trying \(state.host(retry)?.name ?? retry) again in \((delay + 999_999_999) / 1_000_000_000) s (attempt \(retries + 1))."
        }
        return []
    }

    /// Leaves: stops a running stream and waits for its end (at most `leaveGraceNs`), forgets a
    /// pairing, then `.exit`. A second way out while leaving changes nothing (the first code stands).
    mutating func leave(code: Int32, reason: String?, now: UInt64) -> [KioskEffect] {
        let running: Int?
        var effects: [KioskEffect] = []
        switch state.phase {
        case .leaving:
            return []
        case .connecting(let c) where c.step != .resolving:
            running = c.job
        case .streaming(let s), .inStreamMenu(let s, _):
            running = s.job
        case .pairing(let p):
            running = nil
            effects.append(.cancelPairing(job: p.job))
        default:
            running = nil
        }
        if let job = running {
            state.phase = .leaving(Leaving(code: code, reason: reason, job: job, deadlineNs: now &+ policy.leaveGraceNs))
            return effects + [.stopStream(job: job)]
        }
        state.phase = .leaving(Leaving(code: code, reason: reason, job: nil, deadlineNs: .max))
        return effects + [.exit(code: code)]
    }
}
