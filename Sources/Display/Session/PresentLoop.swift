internal import CPunktfunkLinux
import VideoFrames
import Screen
import SystemClock
#if canImport(Glibc)
import Glibc
#endif

/// The presenting thread's event loop: frames from a source at a fixed rate, through the
/// `FlipPacer`, onto the `Presenter`; flip events, signals and VT switches from one `poll`.
///
/// Frame k of the run becomes displayable no earlier than `start + k·interval` (`--fps`); it is
/// then converted/copied into a free ring slot and handed to the pacer with `readyNs` = the time
/// the buffer was complete. A frame listed in `checkpoint.pictures` (first-pass index) stops
/// production until its flip completed, then the checkpoint holds the loop until its descriptor
/// says so (`GlassCheckpoint`); the schedule restarts from that moment.
///
/// Order per iteration: signals; flip events already pending (non-blocking); the pacer's
/// decision (commit or wait); then production of one frame, skipped when its measured cost would
/// run past the pacer's wait deadline; finally `poll` until an event or the next deadline.
/// A file source decodes on this thread; a live source hands over pictures a decode thread made.
public final class PresentLoop {
    public enum Outcome: Sendable, Equatable {
        /// Every frame was shown (the last one's flip completed).
        case finished
        /// SIGINT / SIGTERM.
        case interrupted(SignalWatch.Event)
    }

    private let presenter: Presenter
    private let signals: SignalWatch
    private let vt: VTSwitch?
    private let intervalNs: UInt64
    private let checkpoint: GlassCheckpoint?
    private let checkpointPictures: Set<Int>
    private let flipLog: FlipLog?
    public private(set) var pacer: FlipPacer
    /// What a source yields on each call.
    public typealias SourceStep = StreamStep
    /// Readable when a live source has a new frame, or the application has news for the source
    /// closure (eventfds; drained here, at most three). Empty = none.
    public var sourceWakeDescriptors: [Int32] = [] {
        didSet { precondition(sourceWakeDescriptors.count <= 3, "at most three wake descriptors") }
    }
    /// A connector watch (`ConnectorWatch.descriptor`, or any fd the callee drains) and what to
    /// do when it is readable, on this thread, between two iterations. When the callee switches
    /// the presenter's mode (`Presenter.switchMode`), the loop lets the flip in flight land and
    /// paces anew at the new refresh; the next picture is laid out at the new size.
    public var displayWatch: (descriptor: Int32, onReadable: () -> Void)?
    /// true: frame k is produced no earlier than start + k·interval (files, `--fps`); false: each
    /// frame is produced as soon as the source has it (a live stream paces itself).
    public var followSchedule = true

    /// Called on this thread once per pass of the loop, before the pacer decides (after every
    /// wake-up: a flip, a signal, a source wake descriptor, a deadline) — whether or not a frame
    /// is produced in that pass. The owner answers what its wake descriptors announced here
    /// (a person's input while a frame waits for a free slot must not wait for it). Keep it to a
    /// flag check when there is no news.
    public var onPass: (() -> Void)?

    /// Called on this thread when a frame's flip completed (once per frame): id, flip and ready
    /// time (CLOCK_MONOTONIC ns). The stats overlay counts it here.
    public var onShown: ((_ frame: UInt64, _ flipNs: UInt64, _ readyNs: UInt64) -> Void)?

    /// A frame's times between ready and its flip (CLOCK_MONOTONIC ns): ready, when its commit was
    /// called and when it returned (0 before), its pts, and the blocking poll the commit followed.
    private struct FrameTimes {
        var ready: UInt64
        var pts: Int64
        var call: UInt64 = 0
        var commit: UInt64 = 0
        var wake: PollWake?
    }
    /// By frame id.
    private var times: [UInt64: FrameTimes] = [:]
    /// The last poll that could block (a timeout above 0) since the last commit, for the flip log.
    private var lastBlockingWake: PollWake?
    /// VT signals that arrived during a checkpoint pause, handled first thing by the next
    /// iteration (the kernel holds the switch until then).
    private var deferredSignals: [SignalWatch.Event] = []
    /// Set while our VT is in front but DRM master could not be retaken: the next attempt, ns.
    private var resumeRetryAtNs: UInt64?
    static let resumeRetryNs: UInt64 = 250_000_000

    public init(presenter: Presenter, signals: SignalWatch, vt: VTSwitch?, fps: Double,
                checkpoint: GlassCheckpoint?, flipLog: FlipLog?) {
        self.presenter = presenter; self.signals = signals; self.vt = vt
        self.intervalNs = UInt64((1e9 / max(fps, 0.001)).rounded())
        self.checkpoint = checkpoint; self.checkpointPictures = checkpoint?.pictures ?? []
        self.flipLog = flipLog
        pacer = Self.makePacer(intervalNs: intervalNs, presenter: presenter)
        pacedGeneration = presenter.modeGeneration
    }

    private static func makePacer(intervalNs: UInt64, presenter: Presenter) -> FlipPacer {
        FlipPacer(.init(streamIntervalNs: intervalNs, nominalRefreshNs: presenter.mode.refreshIntervalNs,
                        latchMarginNs: 1_000_000))
    }

    // Loop state (one run per instance).
    private var lastShown: UInt64?
    /// When the last commit went out (video or overlay alone), CLOCK_MONOTONIC ns.
    private var lastCommitNs: UInt64?
    private var hold: (id: UInt64, n: Int)?
    private var scheduleStart: UInt64?
    private var produced: UInt64 = 0
    /// Moving average (1/8 weight) of one frame's decode + copy/convert time, ns.
    private var productionCostNs: UInt64 = 0
    private var events: [FlipEvent] = []
    private var releasable: [UInt64] = []
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
    /// DRM fd, signalfd, source wake fds, display watch: the descriptors every wait polls.
    private let pollSet = UnsafeMutablePointer<pollfd>.allocate(capacity: 6)
    /// The presenter's `modeGeneration` the pacer was made for.
    private var pacedGeneration: Int

    deinit {
        scratch.deallocate()
        pollSet.deallocate()
    }

    /// Runs until the source is exhausted and its last frame is on screen, or a quit signal.
    /// - Parameter next: the source; nil = end of stream. Its errors propagate.
    public func run(next: () throws -> SourcedFrame?) throws -> Outcome {
        try run(steps: { try next().map { .frame($0) } ?? .end })
    }

    /// Runs a source that may have nothing ready yet (`.notYet`), until `.end` and its last frame
    /// is on screen, or a quit signal.
    public func run(steps next: () throws -> SourceStep) throws -> Outcome {
        var pending: SourcedFrame?
        var sourceDone = false
        var lastProduced: UInt64?
        events.reserveCapacity(16); releasable.reserveCapacity(16)
        var consecutiveFailures = 0

        while true {
            var arrived = signals.drain()
            if !deferredSignals.isEmpty {
                arrived = deferredSignals + arrived
                deferredSignals.removeAll()
            }
            for s in arrived {
                switch s {
                case .interrupt, .terminate: return .interrupted(s)
                case .vtRelease:
                    // Let the in-flight flip land (the pacer must see it), then hand the VT over.
                    if presenter.flipPending, let outcome = awaitFlips(timeoutNs: 200_000_000) { return outcome }
                    presenter.suspend()
                    // A flip that never reported (timeout) is treated as landed, or the pacer would
                    // wait for it forever after the switch back.
                    if pacer.inFlightFrame != nil {
                        pacer.flipCompleted(timestampNs: 0, sequence: 0, nowNs: MonotonicClock.nowNs())
                    }
                    vt?.acknowledgeRelease()
                    resumeRetryAtNs = nil
                case .vtAcquire:
                    vt?.acknowledgeAcquire()
                    resumeDisplay()
                }
            }
            if let retry = resumeRetryAtNs, MonotonicClock.nowNs() >= retry { resumeDisplay() }
            onPass?()
            // Flip events that already arrived (non-blocking): production running behind
            // schedule loops without sleeping, and must not starve the pacer of completions.
            if let outcome = awaitFlips(timeoutNs: 0) { return outcome }
            if presenter.modeGeneration != pacedGeneration {
                // A new mode: the frames the pacer holds were laid out for the old one (their
                // buffers retired with it); the flip in flight lands first, then pacing restarts.
                pacedGeneration = presenter.modeGeneration
                if presenter.flipPending, let outcome = awaitFlips(timeoutNs: 200_000_000) { return outcome }
                presenter.waitForPendingFlip(timeoutMs: 0)
                pacer = Self.makePacer(intervalNs: intervalNs, presenter: presenter)
                times.removeAll(keepingCapacity: true)
                lastProduced = lastShown
                if followSchedule, scheduleStart != nil { scheduleStart = MonotonicClock.nowNs() &- produced &* intervalNs }
            }
            var now = MonotonicClock.nowNs()

            // Present first: the pacer decides on what is ready before more work starts.
            var waitUntil: UInt64?
            if presenter.isActive {
                switch pacer.next(nowNs: now) {
                case .commit(let f):
                    do {
                        let call = MonotonicClock.nowNs()
                        try presenter.commit(frame: f.id)
                        let t = MonotonicClock.nowNs()
                        lastCommitNs = t
                        pacer.committed(f, nowNs: t)
                        var entry = times[f.id] ?? FrameTimes(ready: f.readyNs, pts: 0)
                        (entry.call, entry.commit, entry.wake) = (call, t, lastBlockingWake)
                        times[f.id] = entry
                        lastBlockingWake = nil
                        consecutiveFailures = 0
                    } catch {
                        pacer.commitFailed(f, nowNs: MonotonicClock.nowNs())
                        consecutiveFailures += 1
                        if case .commitFailed(let e, _) = error, e == EINVAL || consecutiveFailures > 1000 { throw error }
                    }
                    recycle()
                    continue
                case .wait(let until):
                    waitUntil = until
                }
            }

            // Produce the next frame (decode + copy/convert, on this thread) once it is due and a
            // slot is free — unless a held frame's deadline would pass meanwhile: producing blocks
            // for `productionCostNs`, and a late `next` call would make the held frame miss its
            // vblank. (Other pacer waits may run late; a late frame's wait is for this newer one.)
            var produceAtNs: UInt64?
            let fitsBeforeDeadline = pacer.holdDeadline.map { now &+ productionCostNs < $0 } ?? true
            // While the VT is away a scheduled source pauses (nobody sees its frames); a live one
            // keeps draining into the pacer, which drops all but the newest.
            if hold == nil, !sourceDone, fitsBeforeDeadline, presenter.isActive || !followSchedule {
                let t0 = MonotonicClock.nowNs()
                if pending == nil {
                    switch try next() {
                    case .frame(let f): pending = f
                    case .notYet: break
                    case .end:
                        sourceDone = true
                        pacer.streamEnded = true
                        continue  // a held frame is now the last one: let the pacer commit it at once
                    }
                }
                if let f = pending {
                    let start = scheduleStart ?? now
                    scheduleStart = start
                    let due = followSchedule ? start &+ produced &* intervalNs : 0
                    now = MonotonicClock.nowNs()
                    if now >= due {
                        if try presenter.fill(f.frame, id: f.index) {
                            if let news = presenter.takeFitNews() {
                                _ = "punktfunk-kiosk: \(news)\n".withCString { write(2, $0, strlen($0)) }
                            }
                            let ready = MonotonicClock.nowNs()
                            pacer.frameReady(PacedFrame(id: f.index, readyNs: ready))
                            times[f.index] = FrameTimes(ready: ready, pts: f.frame.pts)
                            produced += 1
                            lastProduced = f.index
                            if f.firstPass, checkpointPictures.contains(f.indexInPass) { hold = (f.index, f.indexInPass) }
                            pending = nil
                            productionCostNs = (productionCostNs * 7 + (ready - t0)) / 8
                            recycle()
                            continue  // the pacer sees the new frame at once
                        }
                    } else {
                        produceAtNs = due
                    }
                }
            }

            // An overlay change (the menu over the stream) rides the next video commit; when no
            // frame went out for two intervals (a host that sends nothing new), it goes out alone.
            var overlayAtNs: UInt64?
            if presenter.overlayChangePending, presenter.isActive, !presenter.flipPending, pacer.inFlightFrame == nil {
                let at = (lastCommitNs ?? 0) &+ 2 &* max(intervalNs, presenter.mode.refreshIntervalNs)
                now = MonotonicClock.nowNs()
                if now < at {
                    overlayAtNs = at
                } else if (try? presenter.commitOverlayChange()) == true {
                    lastCommitNs = now
                    continue
                }
            }

            if sourceDone, pending == nil, hold == nil, !presenter.flipPending,
               lastProduced == nil || lastShown == lastProduced {
                return .finished
            }

            // A moved pointer rides the next video commit; when none went out for a refresh
            // interval (a still picture, a host that sends nothing new) it goes out alone.
            var pointerAtNs: UInt64?
            if presenter.pointerChangePending, presenter.isActive, !presenter.flipPending, pacer.inFlightFrame == nil {
                let at = (lastCommitNs ?? 0) &+ presenter.mode.refreshIntervalNs
                now = MonotonicClock.nowNs()
                if now < at {
                    pointerAtNs = at
                } else if (try? presenter.commitPointerChange()) == true {
                    lastCommitNs = now
                    continue
                }
            }

            // Sleep until a flip event, a signal, or the next deadline.
            let deadline = min(waitUntil ?? .max, produceAtNs ?? .max, resumeRetryAtNs ?? .max, overlayAtNs ?? .max,
                               pointerAtNs ?? .max)
            // ns timeouts (ppoll): a hold deadline must not wake up to 1 ms late, as ms poll would.
            var timeoutNs: UInt64 = 1_000_000_000
            if deadline != .max {
                now = MonotonicClock.nowNs()
                timeoutNs = deadline <= now ? 0 : min(deadline - now, 1_000_000_000)
            } else if presenter.isActive, pending != nil, hold == nil, !presenter.hasFreeSlot, !presenter.flipPending {
                timeoutNs = 1_000_000  // waiting for a release that needs no event
            }
            if let outcome = awaitFlips(timeoutNs: timeoutNs) { return outcome }
        }
    }

    /// Polls the DRM fd, the signalfd and the wake fds for up to `timeoutNs`; feeds flip
    /// completions to the pacer, the flip log and the checkpoint, then recycles released buffers.
    /// - Returns: an outcome when a quit signal arrived during a checkpoint pause.
    private func awaitFlips(timeoutNs: UInt64) -> Outcome? {
        let fds = pollSet
        fds[0] = pollfd(fd: presenter.eventFD, events: Int16(POLLIN), revents: 0)
        fds[1] = pollfd(fd: signals.fd, events: Int16(POLLIN), revents: 0)
        let wakes = sourceWakeDescriptors.count
        for (i, fd) in sourceWakeDescriptors.enumerated() { fds[2 + i] = pollfd(fd: fd, events: Int16(POLLIN), revents: 0) }
        let watched = displayWatch.map { $0.descriptor >= 0 } ?? false
        if let watch = displayWatch, watched { fds[2 + wakes] = pollfd(fd: watch.descriptor, events: Int16(POLLIN), revents: 0) }
        let asleepNs = MonotonicClock.nowNs()
        _ = pf_poll_ns(fds, UInt(2 + wakes + (watched ? 1 : 0)), Int64(timeoutNs))
        let wokeNs = MonotonicClock.nowNs()
        let wake = PollWake(asleepNs: asleepNs, dueNs: asleepNs &+ timeoutNs, wokeNs: wokeNs)
        if timeoutNs > 0 { lastBlockingWake = wake }
        for i in 0..<wakes where fds[2 + i].revents & Int16(POLLIN) != 0 {
            var counter: UInt64 = 0
            _ = read(fds[2 + i].fd, &counter, 8)
        }
        if watched, fds[2 + wakes].revents & Int16(POLLIN) != 0 { displayWatch?.onReadable() }
        guard fds[0].revents & Int16(POLLIN) != 0 else { return nil }
        events.removeAll(keepingCapacity: true)
        let shownBefore = presenter.currentFrame
        presenter.readFlips(into: &events, scratch: scratch)
        var now = MonotonicClock.nowNs()
        if let p = presenter.takePointerFlip() {
            flipLog?.pointer(x: p.x, y: p.y, sequence: p.sequence, flipNs: p.timestampNs == 0 ? now : p.timestampNs)
        }
        for e in events {
            now = MonotonicClock.nowNs()
            pacer.flipCompleted(timestampNs: e.timestampNs, sequence: e.sequence, nowNs: now)
        }
        if let e = events.last, let shown = presenter.currentFrame, shown != shownBefore || lastShown != shown {
            lastShown = shown
            if let t = times.removeValue(forKey: shown) {
                let flipNs = e.timestampNs == 0 ? now : e.timestampNs
                flipLog?.flip(FlipRecord(sequence: e.sequence, flipNs: flipNs, frame: shown, readyNs: t.ready, commitCallNs: t.call,
                                         commitNs: t.commit, ptsNs: t.pts, event: wake, commitWake: t.wake))
                onShown?(shown, flipNs, t.ready)
            }
            if let h = hold, h.id == shown {
                if let outcome = pause(at: h.n) { return outcome }
                hold = nil
                scheduleStart = MonotonicClock.nowNs() &- produced &* intervalNs
            }
        }
        recycle()
        return nil
    }

    /// Takes the display back after a switch to our VT. When DRM master is still held by another
    /// client (a compositor that has not let go yet), the loop stays suspended and tries again
    /// every `resumeRetryNs` until it works or the VT is switched away again; the first refusal
    /// is said on stderr.
    private func resumeDisplay() {
        do {
            try presenter.resume()
            resumeRetryAtNs = nil
            // The schedule goes on from here (as after a checkpoint pause), not from where it
            // would be had the frames been shown while away.
            if scheduleStart != nil { scheduleStart = MonotonicClock.nowNs() &- produced &* intervalNs }
        } catch {
            if resumeRetryAtNs == nil {
                let line = "punktfunk-kiosk: cannot take the display back (\(error)); retrying every \(Self.resumeRetryNs / 1_000_000) ms\n"
                _ = line.withCString { write(2, $0, strlen($0)) }
            }
            resumeRetryAtNs = MonotonicClock.nowNs() + Self.resumeRetryNs
        }
    }

    /// Hands the pacer's releasable ids back to the presenter.
    private func recycle() {
        pacer.drainReleasable(into: &releasable)
        for id in releasable {
            presenter.release(frame: id)
            times.removeValue(forKey: id)
        }
        releasable.removeAll(keepingCapacity: true)
    }

    /// Holds the loop at checkpoint picture `n` until the checkpoint's descriptor ends the pause,
    /// still honouring quit signals. - Returns: an outcome when a quit signal arrived.
    private func pause(at n: Int) -> Outcome? {
        guard let checkpoint else { return nil }
        let descriptor = checkpoint.reached(n)
        while true {
            var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: signals.fd, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, -1)
            if fds[1].revents & Int16(POLLIN) != 0 {
                for s in signals.drain() {
                    if s == .interrupt || s == .terminate { return .interrupted(s) }
                    deferredSignals.append(s)
                }
            }
            if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR | POLLNVAL) != 0, checkpoint.descriptorReadable() { return nil }
        }
    }
}
