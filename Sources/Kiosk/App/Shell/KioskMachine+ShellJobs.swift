/// The shell's jobs as part of the machine: wake and wait, the speed test, forgetting a host.
/// Wake and speed test each get a job number and a page over the host page; an outcome counts
/// only while that page (same job) is on top and still running, so a late result of a page the
/// user left changes nothing.
extension KioskMachine {
    /// Wake `id` and show the wait.
    mutating func startWake(_ id: String) -> [KioskEffect] {
        guard let host = state.host(id) else { return [] }
        let job = newJob()
        push(.waking(WakeProgress(job: job, hostID: id)))
        return [.shell(.wake(job: job, host: host))] + wokenIfSeen()
    }

    /// Run a speed test with `id` and show its progress.
    mutating func startSpeedTest(_ id: String) -> [KioskEffect] {
        guard let host = state.host(id) else { return [] }
        if let problem = state.profileProblem {
            var page = SpeedTestProgress(job: newJob(), hostID: id)
            page.stage = .failed(sentence: problem)
            push(.speedTest(page))
            return []
        }
        let job = newJob()
        push(.speedTest(SpeedTestProgress(job: job, hostID: id)))
        return [.shell(.speedTest(job: job, host: host))]
    }

    /// Forget `id`: its card goes now (discovery may list it again, then as needing pairing);
    /// the runner removes its pins and saved entry.
    mutating func forget(_ id: String) -> [KioskEffect] {
        guard let host = state.host(id) else { return [] }
        fixedHosts.removeAll { $0.id == id }
        state.hosts.removeAll { $0.id == id }
        state.shell.onNetwork.remove(id)
        state.shell.pinDrafts[id] = nil
        if case .choosingHost(let focus) = state.phase, focus == id {
            state.phase = .choosingHost(focus: state.hosts.first?.id)
        }
        return [.shell(.forget(host))]
    }

    /// A wake or speed test page on top, running: the way back (A on its only button, or B)
    /// cancels the job; a finished page just closes.
    mutating func leaveJobPage() -> [KioskEffect] {
        switch state.shell.top {
        case .waking(let w):
            pop()
            return w.failure == nil ? [.shell(.cancel(job: w.job))] : []
        case .speedTest(let t):
            pop()
            return t.isRunning ? [.shell(.cancel(job: t.job))] : []
        default:
            return []
        }
    }

    mutating func shellOutcome(job: Int, _ outcome: ShellOutcome) -> [KioskEffect] {
        switch state.shell.top {
        case .waking(var w) where w.job == job && w.failure == nil:
            switch outcome {
            case .wakeSent(let sent, let destinations):
                w.sent = sent
                w.destinations = destinations
            case .waited(let seconds): w.seconds = seconds
            case .wakeTimedOut:
                let name = state.host(w.hostID)?.name ?? w.hostID
                w.failure = "\(name) did not show on the network within \(WakeProgress.limitSeconds) s. Check that it is plugged in "
                    + "and that Wake-on-LAN is enabled in its firmware and network settings, then try again."
            case .wakeFailed(let sentence): w.failure = sentence
            default: return []
            }
            replaceTop(.waking(w))
            return wokenIfSeen()
        case .speedTest(var t) where t.job == job && t.isRunning:
            switch outcome {
            case .speedTestStep(let step): t.stage = .running(step)
            case .speedTestDone(let result): t.stage = .done(result)
            case .speedTestFailed(let sentence): t.stage = .failed(sentence: sentence)
            default: return []
            }
            replaceTop(.speedTest(t))
            return []
        default:
            return []
        }
    }

    /// The host being woken shows on the network: its host page comes back with Connect focused,
    /// and the wait stops.
    mutating func wokenIfSeen() -> [KioskEffect] {
        guard case .waking(let w) = state.shell.top, w.failure == nil, state.shell.onNetwork.contains(w.hostID) else { return [] }
        pop()
        if case .host(w.hostID, _) = state.shell.top { replaceTop(.host(id: w.hostID, focus: .connect)) }
        state.notice = "\(state.host(w.hostID)?.name ?? w.hostID) is awake."
        return [.shell(.cancel(job: w.job))]
    }

    /// The ids of listed hosts discovery sees now: its own, and a fixed host whose id an advert
    /// has or whose given fingerprint an advert claims.
    static func seen(fixed: [HostEntry], discovered: [HostEntry]) -> Set<String> {
        var ids = Set(discovered.map(\.id))
        let claimed = Set(discovered.compactMap(\.advertisedFingerprint))
        for h in fixed where h.givenFingerprint.map(claimed.contains) == true { ids.insert(h.id) }
        return ids
    }
}
