import Foundation
import PunktfunkSession
import PunktfunkWire

/// A speed test, on its own thread: a short session with the host (trusted as a connect would
/// trust it, never on first use), nothing decoded; one second in, a ProbeRequest of
/// `targetKbps` for `durationMs`; the host's ProbeResult with what arrived is the result, the
/// session's RTT beside it. Then the session quits.
struct SpeedTestJob: @unchecked Sendable {
    var job: Int
    var host: HostEntry
    var identity: TLSIdentity?
    var knownHosts: KnownHosts
    var targetKbps: UInt32 = 200_000
    var durationMs: UInt32 = 1_000
    /// The session's length at most, seconds (the result normally ends it sooner).
    var seconds = 8.0

    func start(events: EventQueue, cancellation: JobCancellation) {
        let thread = Thread { run(events: events, cancellation: cancellation) }
        thread.name = "speed-test"
        thread.stackSize = 1 << 22
        thread.start()
    }

    func run(events: EventQueue, cancellation: JobCancellation) {
        let job = self.job
        func post(_ outcome: ShellOutcome) { events.post(.shell(job: job, outcome)) }
        defer { cancellation.finished(job) }
        let remote: SocketAddress
        do { remote = try HostResolver.resolve(host.address) } catch {
            return post(.speedTestFailed(sentence: error.description))
        }
        let decision = TrustDecision.decide(key: remote.description, host: host, knownHosts: knownHosts, allowFirstUse: false)
        guard let trust = decision.hostTrust else {
            return post(.speedTestFailed(sentence: "\(host.name) is not paired yet: pair with it first, then test its speed."))
        }
        let session = ClientSession(options: ClientSession.Options(remote: remote, identity: identity, trust: trust, seconds: seconds))
        cancellation.register(session.outbox, for: job)
        let target = targetKbps, duration = durationMs
        // The session's callbacks run on this thread (the pump's).
        var rttMs: Double?
        var result: SpeedTestResult?
        session.onEstablished = { _ in post(.speedTestStep(.measuring)) }
        session.onStats = { stats in
            if let rtt = stats.rttMs { rttMs = rtt }
            if stats.second == 1 {
                _ = session.outbox.sendControl(.probeRequest(ProbeRequest(targetKbps: target, durationMs: duration)))
            }
        }
        session.onProbeReport = { report in
            result = SpeedTestResult(throughputKbps: report.throughputKbps, lossPercent: report.linkLossPercent,
                                     rttMs: rttMs, targetKbps: target)
            session.outbox.requestQuit()
        }
        var failure: String?
        do throws(SessionError) { try session.run() } catch { failure = error.description }
        if cancellation.isCancelled(job) { return }
        if let result { return post(.speedTestDone(result)) }
        post(.speedTestFailed(sentence: failure ?? "The session ended before the host answered the probe."))
    }
}
