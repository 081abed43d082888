/// The box's power (`BoxPower`): standby from the TV or after the shell sat idle, and the wake.
///
/// To standby: whatever runs is ended the way a person's disconnect ends it (the host hears a
/// deliberate quit; input releases what it held), a pairing is forgotten, an automatic retry is
/// dropped; the phase becomes the host list focused where the user was, and `.power(.standby)`
/// tells the runner what the TV hears of it. In standby the box's own keys, pad buttons and
/// clicks only wake it (the press is consumed), as does the bus (`.tvWake`). The wake goes back
/// to the shell where the user was, or — boot-to-stream (`policy.bootHost`) — streams the host
/// again. A one-shot command (`policy.afterJob == .exitProcess`) has nothing to go back to: the
/// TV's standby ends it.
///
/// Idle: with *Sleep after* (`standby-after`) set, the box goes to standby by itself once the
/// shell (the host list, the error screen) has had no input for that long. The clock restarts
/// with every input and whenever the box comes back to the shell from a stream, a connect or a
/// pairing; it does not run while a stream, a connect, a pairing, a wake or a speed test runs.
extension KioskMachine {
    /// Why the box goes to standby.
    enum StandbyCause { case tv, idle }

    /// The bus asked for standby: with *Sleep with the TV* the box goes.
    mutating func tvStandby(now: UInt64) -> [KioskEffect] {
        guard state.shell.settings.cecStandbyEndsStream, state.power == .on else { return [] }
        return enterStandby(.tv, now: now)
    }

    mutating func enterStandby(_ cause: StandbyCause, now: UInt64) -> [KioskEffect] {
        guard state.power == .on else { return [] }
        var effects: [KioskEffect] = []
        var focus: String?
        var ended = false
        switch state.phase {
        case .leaving:
            return []
        case .starting:
            break   // the start finishes in standby; its job waits for the wake
        case .streaming(let s), .inStreamMenu(let s, _):
            focus = s.target.hostID
            ended = true
            effects.append(.stopStream(job: s.job))
        case .connecting(let c):
            focus = c.target.hostID
            ended = true
            if c.step != .resolving { effects.append(.stopStream(job: c.job)) }
        case .pairing(let p):
            focus = p.host.id
            effects.append(.cancelPairing(job: p.job))
        case .error(_, let retry):
            focus = retry
        case .choosingHost(let f):
            focus = f
        }
        let why = ended ? "The TV went to standby, so the stream ended." : "The TV went to standby."
        if policy.afterJob == .exitProcess, state.phase != .starting {
            return leave(code: ExitStatus.finished, reason: cause == .tv ? why : nil, now: now)
        }
        if state.phase != .starting { state.phase = .choosingHost(focus: focus ?? state.hosts.first?.id) }
        retryAtNs = nil
        state.power = .standby
        switch cause {
        case .tv:
            state.notice = why
            return effects + [.power(.standby(tellTV: .nothing))]
        case .idle:
            state.notice = "The box went to standby after \(ShellSettings.durationText(seconds: state.shell.settings.standbyAfterSeconds ?? 0)) without input."
            return effects + [.power(.standby(tellTV: state.shell.settings.cecTVOff ? .standby : .inactiveSource))]
        }
    }

    /// Out of standby: back to the shell where the user was, or boot-to-stream's host (or the
    /// command line's job that waited for the wake).
    mutating func wake(now: UInt64) -> [KioskEffect] {
        guard state.power == .standby else { return [] }
        state.power = .on
        idleSinceNs = now
        guard state.phase != .starting else { return [.power(.on(oneTouchPlay: false))] }   // `started` runs the job
        if let action = initialAction {
            initialAction = nil
            return [.power(.on(oneTouchPlay: false))] + user(action, now: now)
        }
        if let id = policy.bootHost, canStartJob, state.host(id) != nil {
            return [.power(.on(oneTouchPlay: false))] + user(.connect(hostID: id, launch: lastLaunch[id]), now: now)
        }
        return [.power(.on(oneTouchPlay: true))]
    }

    /// The shell sits idle in this state: on, on the host list or the error screen, with no job
    /// of the shell's running.
    static func idles(_ state: KioskState) -> Bool {
        guard state.power == .on else { return false }
        switch state.phase {
        case .choosingHost, .error: break
        default: return false
        }
        switch state.shell.top {
        case .waking, .speedTest: return false
        default: return true
        }
    }

    /// When the idle shell goes to standby (nil: it does not).
    var idleStandbyDeadline: UInt64? {
        guard let seconds = state.shell.settings.standbyAfterSeconds, Self.idles(state) else { return nil }
        return idleSinceNs &+ UInt64(seconds) * 1_000_000_000
    }

    /// Restarts the idle clock on a person's input, and when the shell starts to idle (it came
    /// back from a stream, a connect, a pairing, a shell job, or out of standby).
    mutating func noteActivity(_ event: KioskEvent, before old: KioskState, now: UInt64) {
        switch event {
        case .navigate, .pointer: idleSinceNs = now
        default: if !Self.idles(old) { idleSinceNs = now }
        }
    }
}
