import Display
import PunktfunkWire

/// A deterministic trace simulator for page-flip pacing policies, shared by the pacer tests and
/// `punktfunk-bench pacer`. Pure: seeded randomness, simulated time, no I/O.
///
/// Model (all times CLOCK_MONOTONIC-like ns from an arbitrary origin):
/// - **Stream.** Frame `n` is produced at `n · streamIntervalNs` and becomes ready after a fixed
///   pipeline delay plus uniform jitter in `0...jitterNs`; a fraction of frames is late by a
///   uniform amount; a stall holds back every frame produced within `stallNs`, which then decode
///   back to back. Decode is in order: a frame is ready no earlier than `backlogDecodeNs` after the
///   previous one.
/// - **Display with a vblank** (vkms, real panels): vblanks at `phase + k · refreshNs`. A commit
///   issued at `c` latches at the first vblank `V` with `V − c ≥ latchMarginNs` (the stated
///   commit-to-latch requirement; the pacer is configured with the same margin), or — with
///   probability `missedVblankFraction` — one refresh later (vkms under load). Its flip event
///   carries timestamp `V` and sequence `k` and is delivered 30 µs after `V`.
/// - **Display without a vblank** (bochs, virtio-gpu): a commit completes 0.2–1.5 ms after it is
///   issued; the event carries that time and sequence 0.
/// - **Presenter.** One thread. Every wake-up (frame ready, flip event, timer) is handled after a
///   scheduling delay drawn from the scenario's `WakeModel` (default: the SCHED_FIFO present
///   thread on a busy machine, as measured by `punktfunk-bench wake`). On waking it delivers
///   every event due by then, calls `next` until it answers `.wait`, issues commits at once, and
///   drains releasable buffers.
///
/// Metrics (displays with a vblank):
/// - **Delivered** time of frame `f`: when the presenter thread was woken with `f` in hand
///   (`readyNs` plus that wake-up's scheduling delay) — the earliest moment any policy can act.
/// - **Oracle** of frame `f`: the first vblank `V` with `V − latchMarginNs ≥ delivered(f)` — where
///   a presenter that commits the instant it has a frame, and is never blocked by an earlier
///   commit, could show it.
/// - **Added latency** of a displayed frame: the vblank it was shown at minus its oracle (≥ 0).
/// - **Avoidable drop**: a frame `f` that was never shown although the refresh `V = oracle(f)`
///   could have shown it without delaying a newer frame: `f` could latch at `V`, no newer frame
///   could (`oracle(f + 1) > V`, or `f` is the last frame), and `V` was still free when `f`
///   was delivered (the commit in flight at `delivered(f)`, if any, latches before `V`).
/// - **Late-wake drop**: as above, except that a timed wake-up due before `V`'s latch point (by
///   at least `lateWakeLeadNs`) ran after it while `f` waited — a held frame's deadline wake-up,
///   later than the policy's guard: the decision was sound, the presenter thread did not run in
///   time. These measure the wake-up model (how often the machine's scheduling exceeds what the
///   policy learned), not the policy, and are reported separately, as *guard exceeded* (up to
///   `stallThresholdNs` late, the largest guard `FlipPacer` may keep) and *stall* (later).
/// - **Preempted drop**: as an avoidable drop, except that `V` had already been given to an older
///   frame by a commit issued before `f` was delivered (commits cannot be withdrawn and one is in
///   flight at a time). These are the cost of committing early — for the pacer, frames landing between its
///   hold deadline and the latch point — and are reported separately.
/// - Every other drop shares its oracle refresh with a newer frame and is unavoidable.
/// - **Repeats**: refreshes between the first and the last flip at which no new frame latched;
///   *oracle repeats* are the refreshes in that span that are nobody's oracle (stream slower than
///   the display, gaps).
/// On displays without a vblank there is no refresh to miss: the added latency is the commit time
/// minus the delivered time, and avoidable drops are not defined (reported as 0).
///
/// Invariant checks (recorded in `violations`): a commit while another is in flight, a frame
/// committed twice or before it was ready, a timed wait that is not in the future, more than one
/// commit per wake-up, a release of a buffer that is on screen, in flight, never delivered or
/// already released, and at the end any frame neither shown last nor released.
public enum PacerSimulation {
    public static let eventDeliveryNs: UInt64 = 30_000
    public static let backlogDecodeNs: UInt64 = 300_000
    /// A late-wake drop's timer was due at least this long before the latch point (a hold
    /// deadline; `FlipPacer`'s guard is at least 100 µs, its other waits end at a latch point).
    public static let lateWakeLeadNs: UInt64 = 50_000
    /// Timed wake-ups later than this are stalls (`FlipPacer.Configuration.wakeGuardNs`).
    public static let stallThresholdNs: UInt64 = 2_000_000

    /// Runs `scenario` once with `seed` against `policy`. The display's first vblank lies
    /// `phaseNs` (default: drawn from the seed) into a refresh period.
    public static func run<P: PacingPolicy>(_ scenario: PacerScenario, seed: UInt64, phaseNs: UInt64? = nil,
                                            policy: inout P) -> PacerSimulationResult {
        var rng = SplitMix64(seed: seed ^ 0x9E37_79B9_7F4A_7C15)
        var phase: UInt64 = 0
        if let refresh = scenario.refreshNs { phase = phaseNs.map { $0 % refresh } ?? rng.uniform(0...(refresh - 1)) }
        let ready = arrivals(scenario, rng: &rng)
        var run = Run(scenario: scenario, ready: ready, phaseNs: phase, rng: rng)
        run.simulate(&policy)
        return run.result(policy.stats)
    }

    /// Runs seeds 0..<`seeds` with a fresh policy from `makePolicy` each and merges them. The
    /// display phases are spread evenly over a refresh (seed `i` at `(i + ½) / seeds` of it), so
    /// arrivals meet every part of the refresh, including the latch point.
    public static func run<P: PacingPolicy>(_ scenario: PacerScenario, seeds: Int, makePolicy: (PacerScenario) -> P) -> PacerSimulationResult {
        var merged = PacerSimulationResult()
        for seed in 0..<seeds {
            var policy = makePolicy(scenario)
            let phase = scenario.refreshNs.map { $0 * UInt64(2 * seed + 1) / UInt64(2 * seeds) }
            merged.merge(run(scenario, seed: UInt64(seed), phaseNs: phase, policy: &policy))
        }
        return merged
    }

    /// Ready times of the scenario's frames, non-decreasing.
    public static func arrivals(_ s: PacerScenario, rng: inout SplitMix64) -> [UInt64] {
        let start: UInt64 = 1_000_000_000
        var ready = [UInt64]()
        ready.reserveCapacity(s.frames)
        var stallUntil: UInt64 = 0
        for n in 0..<s.frames {
            let produced = start + UInt64(n) * s.streamIntervalNs
            var r = produced + s.pipelineDelayNs + (s.jitterNs > 0 ? rng.uniform(0...s.jitterNs) : 0)
            if s.lateFraction > 0, rng.unit() < s.lateFraction { r += rng.uniform(s.lateRangeNs) }
            if s.stallFraction > 0, produced >= stallUntil, rng.unit() < s.stallFraction {
                stallUntil = produced + s.stallNs
            }
            if produced < stallUntil { r = max(r, stallUntil + s.pipelineDelayNs) }
            if let previous = ready.last { r = max(r, previous + backlogDecodeNs) }
            ready.append(r)
        }
        return ready
    }

    /// One simulated run's state.
    private struct Run {
        let s: PacerScenario
        let ready: [UInt64]
        var rng: SplitMix64
        let phaseNs: UInt64
        var now: UInt64 = 0
        var nextArrival = 0
        var timerNs: UInt64?
        /// The commit the display is working on: delivery time, timestamp, sequence, frame.
        var flip: (deliveryNs: UInt64, timestampNs: UInt64, vblank: UInt64, id: Int)?
        var onScreen: Int?
        var committedAt: [UInt64?]
        var deliveredAt: [UInt64]
        /// Every commit in issue order: time and the vblank index it latched at.
        var commitLog: [(ns: UInt64, vblank: UInt64)] = []
        /// Timed wake-ups that ran late, in deadline order: deadline and wake-up time.
        var lateTimers: [(deadlineNs: UInt64, wokeNs: UInt64)] = []
        var shownAt: [UInt64?]
        var released: [Bool]
        var firstVblank: UInt64?
        var lastVblank: UInt64?
        var repeats = 0
        var injectedMisses = 0
        var commits = 0
        var nextCalls = 0
        var violations: [String] = []
        var violationCount = 0
        var scratch: [UInt64] = []

        init(scenario: PacerScenario, ready: [UInt64], phaseNs: UInt64, rng: SplitMix64) {
            s = scenario
            self.ready = ready
            self.phaseNs = phaseNs
            self.rng = rng
            committedAt = .init(repeating: nil, count: ready.count)
            deliveredAt = ready
            shownAt = .init(repeating: nil, count: ready.count)
            released = .init(repeating: false, count: ready.count)
        }

        mutating func violation(_ message: String) {
            violationCount += 1
            if violations.count < 8 { violations.append(message) }
        }

        mutating func wakeDelay() -> UInt64 { s.wake.delayNs(at: rng.unit()) }

        func vblankIndex(atOrAfter t: UInt64, refresh: UInt64) -> UInt64 {
            t <= phaseNs ? 0 : (t - phaseNs + refresh - 1) / refresh
        }

        mutating func simulate<P: PacingPolicy>(_ policy: inout P) {
            var wakes = 0
            let wakeLimit = ready.count * 40 + 1000
            while wakes < wakeLimit {
                var due: UInt64 = .max
                if nextArrival < ready.count { due = min(due, ready[nextArrival]) }
                if let flip { due = min(due, flip.deliveryNs) }
                if let timerNs { due = min(due, timerNs) }
                if due == .max { break }
                wakes += 1
                let woke = max(now, due + wakeDelay())
                // The armed deadline is served by this wake-up, whichever event woke it.
                if let t = timerNs, t < woke { lateTimers.append((t, woke)) }
                now = woke
                if let f = flip, f.deliveryNs <= now {
                    flip = nil
                    completeFlip(f, &policy)
                }
                while nextArrival < ready.count, ready[nextArrival] <= now {
                    policy.frameReady(PacedFrame(id: UInt64(nextArrival), readyNs: ready[nextArrival]))
                    deliveredAt[nextArrival] = now
                    nextArrival += 1
                }
                if let t = timerNs, t <= now { timerNs = nil }
                decide(&policy)
                drain(&policy)
            }
            if wakes >= wakeLimit { violation("simulation did not settle after \(wakes) wake-ups") }
            for id in 0..<ready.count where id != onScreen && !released[id] {
                violation("frame \(id) neither on screen nor released at the end")
            }
        }

        mutating func decide<P: PacingPolicy>(_ policy: inout P) {
            var commitsThisWake = 0
            while true {
                nextCalls += 1
                switch policy.next(nowNs: now) {
                case .wait(let until):
                    if let until, until <= now {
                        let at = now
                        violation("wait until \(until) ≤ now \(at): would spin")
                    }
                    timerNs = until
                    return
                case .commit(let frame):
                    commitsThisWake += 1
                    let id = Int(frame.id)
                    if commitsThisWake > 1 { violation("two commits in one wake-up (frame \(id))") }
                    if flip != nil { violation("commit of \(id) while another is in flight") }
                    guard id < ready.count, frame.readyNs <= now else {
                        violation("commit of unknown or not yet ready frame \(id)")
                        return
                    }
                    if committedAt[id] != nil { violation("frame \(id) committed twice") }
                    if released[id] { violation("frame \(id) committed after its release") }
                    committedAt[id] = now
                    commits += 1
                    policy.committed(frame, nowNs: now)
                    scheduleFlip(id)
                    if commitsThisWake > 4 { return }
                }
            }
        }

        mutating func scheduleFlip(_ id: Int) {
            if let refresh = s.refreshNs {
                var k = vblankIndex(atOrAfter: now + s.latchMarginNs, refresh: refresh)
                if s.missedVblankFraction > 0, rng.unit() < s.missedVblankFraction {
                    k += 1
                    injectedMisses += 1
                }
                let v = phaseNs + k * refresh
                flip = (v + PacerSimulation.eventDeliveryNs, v, k, id)
                commitLog.append((now, k))
            } else {
                let done = now + rng.uniform(200_000...1_500_000)
                flip = (done, done, 0, id)
            }
        }

        mutating func completeFlip<P: PacingPolicy>(_ f: (deliveryNs: UInt64, timestampNs: UInt64, vblank: UInt64, id: Int), _ policy: inout P) {
            if s.refreshNs != nil {
                if let last = lastVblank, f.vblank > last + 1 { repeats += Int(f.vblank - last - 1) }
                if firstVblank == nil { firstVblank = f.vblank }
                lastVblank = f.vblank
            }
            shownAt[f.id] = f.timestampNs
            onScreen = f.id
            policy.flipCompleted(timestampNs: f.timestampNs, sequence: UInt32(truncatingIfNeeded: f.vblank), nowNs: now)
        }

        mutating func drain<P: PacingPolicy>(_ policy: inout P) {
            scratch.removeAll(keepingCapacity: true)
            policy.drainReleasable(into: &scratch)
            for raw in scratch {
                let id = Int(raw)
                guard id < nextArrival else { violation("release of undelivered frame \(id)"); continue }
                if released[id] { violation("frame \(id) released twice") }
                if id == onScreen { violation("frame \(id) released while on screen") }
                if let f = flip, f.id == id { violation("frame \(id) released while its commit is in flight") }
                released[id] = true
            }
        }

        /// The late timed wake-up whose deadline was at or before `t` and that ran after it, if any
        /// (the last deadline at or before `t`: one timer is armed at a time).
        func lateTimer(over t: UInt64) -> (deadlineNs: UInt64, wokeNs: UInt64)? {
            var low = 0, high = lateTimers.count
            while low < high {
                let mid = (low + high) / 2
                if lateTimers[mid].deadlineNs <= t { low = mid + 1 } else { high = mid }
            }
            guard low > 0, lateTimers[low - 1].wokeNs > t else { return nil }
            return lateTimers[low - 1]
        }

        func oracle(_ id: Int) -> UInt64? {
            guard let refresh = s.refreshNs else { return nil }
            return phaseNs + vblankIndex(atOrAfter: deliveredAt[id] + s.latchMarginNs, refresh: refresh) * refresh
        }

        func result(_ stats: PacerStats) -> PacerSimulationResult {
            var r = PacerSimulationResult()
            r.frames = ready.count
            r.repeats = repeats
            r.injectedLatchMisses = injectedMisses
            r.commits = commits
            r.nextCalls = nextCalls
            r.violations = violations
            r.violationCount = violationCount
            r.policyStats = stats
            r.durationNs = (ready.last ?? 0) - (ready.first ?? 0)
            r.addedLatencyNs.reserveCapacity(ready.count)
            var oracleVblanks = Set<UInt64>()
            var commitCursor = 0  // commits issued at or before deliveredAt[id]: commitLog[..<commitCursor]
            for id in 0..<ready.count {
                while commitCursor < commitLog.count, commitLog[commitCursor].ns <= deliveredAt[id] { commitCursor += 1 }
                let o = oracle(id)
                if let shown = shownAt[id] {
                    r.displayed += 1
                    if let o { r.addedLatencyNs.append(shown - o) } else if let c = committedAt[id] {
                        r.addedLatencyNs.append(c - deliveredAt[id])
                    }
                } else {
                    r.drops += 1
                    if let o, id + 1 == ready.count || o < oracle(id + 1)! {
                        let k = (o - phaseNs) / s.refreshNs!
                        let latch = o - s.latchMarginNs
                        if commitCursor > 0, commitLog[commitCursor - 1].vblank >= k {
                            r.preemptedDrops += 1
                        } else if let late = lateTimer(over: latch), deliveredAt[id] <= late.deadlineNs,
                                  late.deadlineNs + PacerSimulation.lateWakeLeadNs <= latch {
                            if late.wokeNs - late.deadlineNs > PacerSimulation.stallThresholdNs {
                                r.stallDrops += 1
                            } else {
                                r.guardExceededDrops += 1
                            }
                        } else {
                            r.avoidableDrops += 1
                            if r.avoidableDropIds.count < 16 { r.avoidableDropIds.append(UInt64(id)) }
                        }
                    }
                }
                if let o, let refresh = s.refreshNs, let first = firstVblank, let last = lastVblank {
                    let k = (o - phaseNs) / refresh
                    if k >= first, k <= last { oracleVblanks.insert(k) }
                }
            }
            if let first = firstVblank, let last = lastVblank {
                r.oracleRepeats = Int(last - first + 1) - oracleVblanks.count
            }
            return r
        }
    }
}
