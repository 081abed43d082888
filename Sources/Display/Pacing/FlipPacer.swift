/// The stage-2 page-flip pacer: decides, per event, whether the presenter commits the newest
/// decoded frame now or waits. Pure — no I/O, no clock reads (every time is CLOCK_MONOTONIC ns
/// passed in), no allocation per frame.
///
/// Driving it (one presenter thread): after every event — `frameReady`, `committed`,
/// `commitFailed`, `flipCompleted` — and when a `.wait(untilNs:)` deadline passes, call `next`,
/// act on its answer, then `drainReleasable` and recycle those buffers. Time never goes backwards.
///
/// Invariants:
/// - Newest wins: a frame replaced before its commit is dropped and released at once.
/// - At most one commit in flight: after `.commit`, `next` answers `.wait(untilNs: nil)` until the
///   flip for that commit completed (or the commit failed).
/// - No frame is committed twice; with nothing new `next` waits, it never re-commits (immediate-
///   flip devices would otherwise flip thousands of times a second).
/// - The on-screen frame's buffer is released only when the *next* flip completed.
///
/// Policy on a display with a real vblank (sequence advances): the vblank grid is learned from
/// flip timestamps (`VblankClock`). A pending frame targets the first vblank `V` whose latch point
/// `V - latchMarginNs` is still ahead. A newer frame is *due* when the stream's rhythm
/// (`ArrivalRhythm`) expects one before that latch point.
/// - An *on-time* frame (`V` is the first vblank it could latch at since the presenter had it):
///   when a newer frame is due, it is held until the deadline `V - latchMarginNs - guard` (guard =
///   learned wake-up lateness, `WakeLatency`); a newer frame arriving by then replaces it and still
///   makes `V`, else it is committed at the deadline for the same `V`. Otherwise it is committed
///   now.
/// - A *late* frame (it missed its first vblank behind an earlier commit) is not committed while
///   a newer frame is due before `V`'s latch point: that frame may be on time, and the late one
///   would take its vblank and make it late in turn — a chain that lasts as long as arrivals keep
///   landing just before the latch point. It is looked at again at the latch point, and
///   committed once no newer frame is due or the due one is overdue by half an interval (a
///   pause).
/// Until the sequence shows a real vblank it commits on arrival; until the grid is learned it
/// uses `nominalRefreshNs` if given, else commits on arrival.
///
/// On a device whose flips complete immediately (no vblank), commits are paced to the stream:
/// at most one per half stream interval (so arrival jitter passes undelayed but bursts collapse to
/// their newest frame), and none while nothing new exists.
public struct FlipPacer: Sendable {
    public struct Configuration: Sendable {
        /// Nominal time between stream frames, ns (16_666_667 for 60 fps).
        public var streamIntervalNs: UInt64
        /// The mode's refresh period, ns, used (once flips show a real vblank) until the grid is
        /// learned from flips.
        public var nominalRefreshNs: UInt64?
        /// How long before a vblank a commit must be issued to latch at it, ns.
        public var latchMarginNs: UInt64
        /// The largest extra lead before the latch point for a held commit, covering the
        /// presenter's timer wake-up latency, ns. The lead actually used is learned from how late
        /// the presenter's hold wake-ups run (`WakeLatency`), up to this value; a wake-up later
        /// than this is a stall (`PacerStats.wakeStalls`), not learned.
        public var wakeGuardNs: UInt64 = 2_000_000
        /// Delay before retrying after a failed commit (EBUSY), ns; keeps a refusing driver from
        /// being hammered.
        public var retryDelayNs: UInt64 = 1_000_000

        public init(streamIntervalNs: UInt64, nominalRefreshNs: UInt64? = nil, latchMarginNs: UInt64 = 1_000_000) {
            self.streamIntervalNs = streamIntervalNs
            self.nominalRefreshNs = nominalRefreshNs
            self.latchMarginNs = latchMarginNs
        }
    }

    public let configuration: Configuration
    public private(set) var stats = PacerStats()

    private(set) var clock = VblankClock()
    private(set) var rhythm: ArrivalRhythm
    private var wakeLatency: WakeLatency
    /// Newest frame not yet handed out.
    private var pending: PacedFrame?
    /// When `next` first saw `pending`: the moment the presenter had it in hand, ns (its
    /// `readyNs` plus the presenter's wake-up delay).
    private var pendingSeenNs: UInt64?
    /// Returned by `next` as `.commit`, not yet confirmed by `committed`/`commitFailed`.
    private var handedOut: PacedFrame?
    /// Committed; its flip has not completed.
    private var inFlight: PacedFrame?
    /// The vblank the grid predicted for the in-flight commit (real-vblank displays).
    private var inFlightTargetNs: UInt64?
    private var onScreenFrame: PacedFrame?
    private var lastCommitNs: UInt64?
    /// Set while a frame is held for the vblank `holdTargetNs`; at or after `holdDeadlineNs`
    /// (and before the target) the newest frame is committed whatever the rhythm says.
    private var holdDeadlineNs: UInt64?
    private var holdTargetNs: UInt64?
    private var retryNotBeforeNs: UInt64?
    private var highestId: UInt64?
    /// Ids whose buffers the presenter may reuse; drained by `drainReleasable`.
    private var releasable: [UInt64]

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        rhythm = ArrivalRhythm(intervalNs: configuration.streamIntervalNs)
        wakeLatency = WakeLatency(maximumNs: configuration.wakeGuardNs)
        releasable = []
        releasable.reserveCapacity(32)
    }

    // MARK: getters

    /// The learned refresh period (median of recent per-vblank flip spacings), ns; nil until
    /// enough flips with an advancing sequence were seen, and on immediate-flip devices.
    public var refreshIntervalNs: UInt64? { clock.hasRealVblank ? clock.periodNs : nil }
    /// False until two consecutive flips advanced the vblank sequence; false on bochs/virtio-gpu.
    public var hasRealVblank: Bool { clock.hasRealVblank }
    /// The frame whose flip completed last.
    public var onScreen: UInt64? { onScreenFrame?.id }
    /// The frame committed (or handed out for commit) whose flip has not completed.
    public var inFlightFrame: UInt64? { (inFlight ?? handedOut)?.id }
    /// The newest frame waiting for a commit.
    public var pendingFrame: UInt64? { pending?.id }
    /// The lead before the latch point at which a held frame is committed, ns (learned).
    public var holdGuardNs: UInt64 { wakeLatency.guardNs }
    /// While an on-time frame is held: the time its commit is due, ns. The presenter must call
    /// `next` by then (other waits — a late frame's, a retry's — are not missed by running late).
    public var holdDeadline: UInt64? { holdDeadlineNs }
    /// Set when the source has delivered its last frame: no newer frame can replace a pending
    /// one, so the pacer never holds (a hold would only delay the final frame).
    public var streamEnded = false

    // MARK: events

    /// A decoded frame is ready. Newest wins: a waiting older frame is dropped and released. A
    /// frame older than one already seen is dropped and released at once; a repeated id of a frame
    /// the pacer holds is ignored.
    public mutating func frameReady(_ frame: PacedFrame) {
        if let highest = highestId, frame.id <= highest {
            if frame.id == pending?.id || frame.id == handedOut?.id || frame.id == inFlight?.id
                || frame.id == onScreenFrame?.id { return }
            release(frame.id)
            stats.dropped += 1
            return
        }
        highestId = frame.id
        rhythm.observe(readyNs: frame.readyNs)
        if let old = pending {
            release(old.id)
            stats.dropped += 1
        }
        pending = frame
        pendingSeenNs = nil
    }

    /// What to do now. Call after every event and when a wait deadline passes.
    public mutating func next(nowNs: UInt64) -> PacerAction {
        if pending != nil, pendingSeenNs == nil { pendingSeenNs = nowNs }
        if handedOut != nil || inFlight != nil { return .wait(untilNs: nil) }
        guard let frame = pending else { return .wait(untilNs: nil) }
        if let retry = retryNotBeforeNs {
            if nowNs < retry { return .wait(untilNs: retry) }
            retryNotBeforeNs = nil
        }
        if clock.hasRealVblank, let period = clock.periodNs ?? configuration.nominalRefreshNs {
            if let action = holdOnGrid(nowNs: nowNs, periodNs: period) { return action }
        } else if clock.isImmediateFlipDevice, let last = lastCommitNs {
            let earliest = last + configuration.streamIntervalNs / 2
            if nowNs < earliest { return .wait(untilNs: earliest) }
        }
        pending = nil
        handedOut = frame
        holdDeadlineNs = nil
        holdTargetNs = nil
        return .commit(frame)
    }

    /// The presenter issued the atomic commit for `frame` at `nowNs`.
    public mutating func committed(_ frame: PacedFrame, nowNs: UInt64) {
        if handedOut?.id == frame.id { handedOut = nil }
        if pending?.id == frame.id { pending = nil }
        highestId = max(highestId ?? frame.id, frame.id)
        inFlight = frame
        lastCommitNs = nowNs
        stats.committed += 1
        inFlightTargetNs = nil
        if clock.hasRealVblank, let period = clock.periodNs ?? configuration.nominalRefreshNs {
            inFlightTargetNs = clock.firstVblank(atOrAfter: nowNs + configuration.latchMarginNs, periodNs: period)
        }
    }

    /// The commit for `frame` was refused (EBUSY etc.). The frame goes back to pending unless a
    /// newer one waits (then it is dropped and released); the next attempt waits `retryDelayNs`.
    public mutating func commitFailed(_ frame: PacedFrame, nowNs: UInt64) {
        if handedOut?.id == frame.id { handedOut = nil }
        if inFlight?.id == frame.id {
            inFlight = nil
            inFlightTargetNs = nil
        }
        if pending == nil {
            pending = frame
        } else if pending?.id != frame.id {
            release(frame.id)
            stats.dropped += 1
        }
        retryNotBeforeNs = nowNs + configuration.retryDelayNs
    }

    /// A page-flip event: the vblank `timestampNs` (0 = unknown, `nowNs` is used) with its
    /// `sequence`. Completes the in-flight commit, releases the frame it replaced on screen, learns
    /// the grid and counts repeats and latch misses.
    public mutating func flipCompleted(timestampNs: UInt64, sequence: UInt32, nowNs: UInt64) {
        stats.flips += 1
        let timestamp = timestampNs == 0 ? nowNs : timestampNs
        let previousNs = clock.anchorNs
        let step = clock.observe(timestampNs: timestamp, sequence: sequence)
        if clock.hasRealVblank, onScreenFrame != nil, let step, let previousNs {
            stats.repeats += rhythm.activePoints(startNs: previousNs, stepNs: (timestamp - previousNs) / UInt64(step),
                                                 steps: step)
            if inFlight == nil, let last = rhythm.lastArrivalNs, timestamp <= last + rhythm.activeWindowNs {
                stats.repeats += 1  // a flip for a commit not ours: the same frame again
            }
        }
        guard let shown = inFlight else { return }
        if let target = inFlightTargetNs, let period = clock.periodNs ?? configuration.nominalRefreshNs,
           timestamp >= target + period / 2 {
            stats.latchMisses += 1
        }
        if let old = onScreenFrame { release(old.id) }
        onScreenFrame = shown
        inFlight = nil
        inFlightTargetNs = nil
    }

    /// Appends the ids whose buffers may be reused now and forgets them.
    public mutating func drainReleasable(into ids: inout [UInt64]) {
        guard !releasable.isEmpty else { return }
        ids.append(contentsOf: releasable)
        releasable.removeAll(keepingCapacity: true)
    }

    // MARK: policy

    /// Real-vblank hold decision; nil = commit now.
    private mutating func holdOnGrid(nowNs: UInt64, periodNs: UInt64) -> PacerAction? {
        let margin = configuration.latchMarginNs
        if streamEnded { holdDeadlineNs = nil; holdTargetNs = nil; return nil }
        if let deadline = holdDeadlineNs, let target = holdTargetNs, nowNs >= deadline {
            wakeLatency.observe(latenessNs: nowNs - deadline)
            stats.wakeStalls = wakeLatency.stalls
            holdDeadlineNs = nil
            holdTargetNs = nil
            if nowNs < target { return nil }  // woken for the held vblank: commit, even if late
        }
        // Decided afresh on every call (the same inputs give the same deadline).
        holdDeadlineNs = nil
        holdTargetNs = nil
        guard let frame = pending,
              let target = clock.firstVblank(atOrAfter: nowNs + margin, periodNs: periodNs) else { return nil }
        let latchPoint = target - min(margin, target)
        // A newer frame may arrive before the latch point (the grid's leading edge creeps, so
        // allow the jitter spread).
        let allowance = min(rhythm.spreadNs, configuration.streamIntervalNs / 4)
        guard let expected = rhythm.earliestNextNs else { return nil }
        let newerDue = expected <= latchPoint + allowance
        // A frame that missed the first vblank it could have latched at (behind an earlier
        // commit, or held past a late wake-up) is late already. While a newer frame is due
        // before this vblank's latch point, it gets no commit: committing it would take the
        // vblank from the newer frame, which may still be on time, and make that one late in
        // turn. It is looked at again at the latch point (or when the newer frame arrives), and
        // committed once the newer frame is overdue by half an interval (a pause).
        let inHandNs = max(frame.readyNs, pendingSeenNs ?? nowNs)
        let firstChance = clock.firstVblank(atOrAfter: inHandNs + margin, periodNs: periodNs) ?? target
        if target >= firstChance + periodNs / 2 {
            let overdue = nowNs > expected + configuration.streamIntervalNs / 2
            return newerDue && !overdue ? .wait(untilNs: max(latchPoint, nowNs + 1)) : nil
        }
        // An on-time frame is held until the deadline when a newer one is due: at worst it is
        // committed at `deadline` for the same vblank.
        let lead = margin + wakeLatency.guardNs
        guard target > lead, nowNs < target - lead, newerDue else { return nil }
        let deadline = target - lead
        holdDeadlineNs = deadline
        holdTargetNs = target
        return .wait(untilNs: deadline)
    }

    private mutating func release(_ id: UInt64) {
        releasable.append(id)
    }
}
