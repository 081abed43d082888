/// The client's rate loop (ABR; control-plane.md §5.1–5.3), sans I/O: what wire rate to ask the
/// host for (SetBitrate 0x24), what to tell it in each Feedback (`link_kbps` tag 8, `shape` tag
/// 16), and how to read its answers (BitrateChanged 0x25, PipelineGap 0x26). All times are
/// CLOCK_MONOTONIC ns passed in and never go backwards; all rates are wire kbps.
///
/// Inputs: `frameArrived` per frame (O(1), no allocation; it runs on the network thread),
/// `windowClosed` at each ~750 ms Feedback window, `acknowledged`, `pipelineGap`, `outageNamed`,
/// `applyRamp`. Outputs: `takeAsk` (poll after every input), `linkKbps`, `shape`, `lastDecision`,
/// `logLine`.
///
/// Verdicts (in order; the first that applies decides):
/// 1. A window after a PipelineGap is discarded whole.
/// 2. Outage: an arrival gap ≥ `outageGapNs` (100 ms), or a stall the Wi-Fi ledger named
///    (`outageNamed`). Until the delay drains (or `outageSettleNs`), nothing is a capacity verdict:
///    the held frames arrive as a burst whose delay falls, the window's delivered rate dips only by
///    the gap, and what the stall dropped is the loss loop's. (The reference reads such a window as
///    a short delivery and cuts.) A gap not followed by a burst — three frames at ≥ 2 frame
///    intervals — is a slow link, not a stall, and ends the grace at once. A named stall also
///    undoes a cut taken within `outageUndoNs` before it.
/// 3. Head signature (`RateWindow.isHeadSignature`): a waking receiver. Answered with `shape` = 1
///    at the first such window, never with the rate.
/// 4. Per frame (the reference judges delay only per window, 0.75–1.5 s after a queue starts; a
///    4:1 capacity drop fills a 100 ms drop-tail queue in 50 ms and then freezes the picture):
///    `bigRiseFrames` (3) frames in a row ≥ 50 ms over the 30 s minimum and not falling (by
///    `notFallingNs`, 10 ms), or `risingFrames` (8) frames in a row ≥ 25 ms whose delay still grew
///    by ≥ `risingByNs` (5 ms) across them. A keyframe's drain or a Wi-Fi retry spike falls within
///    a frame or two, so neither fires. Acts at once: a link cut on `DelayTrack.congestedKbps`.
/// 5. Loss ≥ 6 % (`severeLossPPM`) cuts at once: a link cut when the window delivered under 90 %
///    of the rate (the link did not carry it), else ×0.7.
/// 6. Loss ≥ 2 % cuts ×0.7 only with frames lost for good in two windows in a row. Loss parity
///    repaired is FEC's job (the host raises parity on `loss_ppm`); a random 2 % that FEC absorbs
///    costs nothing a cut would save, while the reference's two-window 2 % rule saws a lossy but
///    fast link down. A queue that overflows shows its delay first (rules 4 and 7).
/// 7. A standing delay: ≥ half of a window's frames ≥ 25 ms over the minimum and not draining
///    (its last frame within 5 ms of its first), two windows in a row → a link cut on the window's
///    delivered rate.
/// 8. Clean (loss < 2 %, no lost frame, ≤ 10 % of frames ≥ 25 ms, delivered ≥ ¾ of the rate,
///    decoder and host encoder under 90 % of the frame interval, no Cadence hold): climb.
///
/// Cuts: a link cut lands on 85 % of what the link delivered (the 15 % held back drains the
/// queue), at most 85 % of the rate; it may go as deep as 20 % of the rate in one step when the
/// delivered rate was measured over a congested stretch (≥ 3 frames, ≥ 30 ms) or a whole window —
/// the reference's 50 % floor turns a 4:1 drop into two cuts 1.5 s apart with the queue full
/// between them. Other cuts are ×0.7. Cuts are ≥ `changeIntervalNs` (1.5 s) apart; a cut may
/// follow a climb at once (the climb is what overshot). A draining queue never re-fires the delay
/// rules (they want a rise that is not falling), so no 6-window drain hold is needed. Every link
/// cut learns the wall: the delivered rate.
///
/// Climbs: without a known wall, ×1.25 (`probeClimbPercent`) after 2 clean windows — the
/// reference doubles, which overshoots a 100 ms queue into loss before a window can see it;
/// 25 % excess takes 400 ms to fill it and the per-frame rules catch it in ~150 ms. Under a wall,
/// one step to 92 % of it (`cruisePercentOfWall`) after 3 clean windows (each change rebuilds the
/// encoder: one step, not +1/16 per 4.5 s). At cruise, the wall is re-tried at +12.5 % after
/// `wallRetryWaitNs` (16 s, doubling with each refused retry to 96 s) since it was learned. A
/// retry clean for 3 windows means the wall moved: it is forgotten and ×1.25 probing resumes (the
/// reference climbs +1/16 per six windows after a retry, minutes from 10 to 25 Mbit/s). A retry
/// the link answers with a delay rise while it still delivers ≥ 90 % of the wall is refused: the
/// rate returns to where the retry left from — the end of a probe, not a cut, counted in
/// `wallRetryFailures` — so a stable wall costs one short excursion per wait, never a cut below
/// cruise. A retry that finds the link short of the wall is an ordinary link cut. No climb passes
/// the ceiling (user ceiling or `automaticMaxKbps`, EncoderLimit, Governor share) or 1.5× the best
/// delivery of the last 10.5 s.
///
/// Host answers (BitrateChanged reason): Granted — the rate now; a short one without a reason
/// twice at the same value latches an encoder ceiling. EncoderLimit — a ceiling for the session.
/// Cadence — the encoder is behind: no climb for `cadenceHoldNs`; a second within it cuts ×0.875.
/// Governor — a shared path: the share is a ceiling until released (0) or `governorHoldNs`.
/// Pinned — the rate cannot move: the loop stops asking. At most `maxUnanswered` (3) asks wait
/// for an answer (a copy goes after `resendNs` while fewer are out); an ask unanswered for
/// `silenceNs` (10 s) makes the loop silent until an answer comes.
///
/// `linkKbps` is the known wall, never below the asked rate (0 without a wall, and in fixed mode).
public struct RateLoop: Sendable {
    // MARK: Constants

    /// The Feedback report window, ns.
    public static let windowNs: UInt64 = 750_000_000
    public static let floorKbps: UInt32 = 2_000
    /// The ceiling of an automatic rate without a user ceiling, kbps.
    public static let automaticMaxKbps: UInt32 = 150_000
    /// Loss that cuts at once, ppm (6 %); loss that cuts with lost frames in two windows (2 %).
    public static let severeLossPPM: UInt32 = 60_000
    public static let lossPPM: UInt32 = 20_000
    /// ×0.7 (percent) and its clamp for ordinary cuts; link cuts land on 85 % of delivered.
    public static let cutPercent: UInt64 = 70
    public static let linkCutPercent: UInt64 = 85
    public static let cutMaxPercent: UInt64 = 85
    public static let cutMinPercent: UInt64 = 50
    /// The deepest link cut proven by a measured delivery, percent of the rate.
    public static let deepCutMinPercent: UInt64 = 20
    /// A link cut: the window delivered under this share of the rate, percent.
    public static let linkShortPercent: UInt64 = 90
    public static let changeIntervalNs: UInt64 = 1_500_000_000
    /// An arrival gap this long is an outage, ns; its grace lasts at most `outageSettleNs`.
    public static let outageGapNs: UInt64 = 100_000_000
    public static let outageSettleNs: UInt64 = 2_000_000_000
    /// A named outage undoes a cut taken this long before it, ns.
    public static let outageUndoNs: UInt64 = 3_000_000_000
    public static let bigRiseFrames = 3
    public static let notFallingNs: Int64 = 10_000_000
    public static let risingFrames = 8
    public static let risingByNs: Int64 = 5_000_000
    /// Window delay rule: "not draining" tolerance, ns, and windows in a row.
    public static let drainFallNs: Int64 = 5_000_000
    public static let standingWindows = 2
    public static let lossWindows = 2
    public static let cleanWindowsToProbe = 2
    public static let cleanWindowsUnderWall = 3
    public static let probeClimbPercent: UInt64 = 25
    /// Climbs stay within this share of the best delivery over `bestWindows` windows, percent.
    public static let bestDeliveryPercent: UInt64 = 150
    public static let bestWindows = 14
    public static let cruisePercentOfWall: UInt64 = 92
    /// A wall retry asks the wall + 1/8 (12.5 %).
    public static let wallRetryDiv: UInt32 = 8
    public static let wallRetryWaitNs: UInt64 = 16_000_000_000
    public static let maxWallRetryWaitNs: UInt64 = 96_000_000_000
    public static let retryCleanWindows = 3
    /// Two walls within ±20 % are the same wall.
    public static let wallSimilarPercent: UInt64 = 20
    public static let maxUnanswered = 3
    public static let resendNs: UInt64 = 3_000_000_000
    public static let silenceNs: UInt64 = 10_000_000_000
    public static let cadenceHoldNs: UInt64 = 10_000_000_000
    /// A second Cadence answer within the hold cuts to 7/8 of the granted rate.
    public static let governorHoldNs: UInt64 = 60_000_000_000
    /// Decoder / host encoder at this share of the frame interval holds climbs, percent.
    public static let busyPercent: UInt64 = 90

    // MARK: Configuration

    public struct Configuration: Equatable, Sendable {
        public enum Mode: Equatable, Sendable {
            /// The loop asks.
            case automatic
            /// An explicit rate: never asks, `link_kbps` 0.
            case fixed
        }
        /// The rate the session starts at (the host's granted/default rate), kbps.
        public var startKbps: UInt32
        /// The user's ceiling, kbps; nil = automatic up to `automaticMaxKbps`.
        public var ceilingKbps: UInt32?
        public var floorKbps: UInt32
        public var mode: Mode
        /// The host serves bring-up ramp probes (`HOST_CAP2_RAMP`).
        public var hostServesRamp: Bool
        public var fps: UInt32

        /// The rate a host streams at when asked for 0 (control-plane.md §5.1: "host default"; the
        /// upstream host's is 30 Mbit/s), the start when neither hello names a rate.
        public static let hostDefaultKbps: UInt32 = 30_000

        public init(startKbps: UInt32, ceilingKbps: UInt32? = nil, floorKbps: UInt32 = RateLoop.floorKbps,
                    mode: Mode = .automatic, hostServesRamp: Bool = false, fps: UInt32 = 60) {
            self.startKbps = startKbps
            self.ceilingKbps = ceilingKbps
            self.floorKbps = floorKbps
            self.mode = mode
            self.hostServesRamp = hostServesRamp
            self.fps = fps
        }
    }

    // MARK: State (public)

    public let configuration: Configuration
    /// The rate the loop wants, and the rate the host last said it runs at, kbps.
    public private(set) var askedKbps: UInt32
    public private(set) var grantedKbps: UInt32
    /// The learned wall (what the link delivered when it last pushed back), kbps.
    public private(set) var wallKbps: UInt32?
    /// Feedback tag 16: 0 host default, 1 once a waking receiver was seen.
    public private(set) var shape: UInt8 = 0
    public private(set) var lastDecision: RateDecision?
    public private(set) var pinned = false
    public private(set) var silent = false
    /// Private so no reader shares its storage: a shared copy would make the next per-frame
    /// write copy the rings (an allocation on the network thread).
    private var delay = DelayTrack()

    public private(set) var cuts = 0
    public private(set) var climbs = 0
    public private(set) var asks = 0
    public private(set) var acks = 0
    /// Asks currently without an answer, and rates held back because `maxUnanswered` were out.
    public private(set) var asksUnanswered = 0
    public private(set) var asksHeld = 0
    public private(set) var windows = 0
    public private(set) var windowsDiscarded = 0
    public private(set) var outages = 0
    public private(set) var cutsUndone = 0
    public private(set) var wallRetries = 0
    public private(set) var wallRetryFailures = 0

    // MARK: State (private)

    private var lastSentKbps: UInt32?
    private var lastSentAt: UInt64 = 0
    private var heldKbps: UInt32 = 0
    private var firstUnansweredAt: UInt64?
    /// The last `maxUnanswered` values sent, newest last (0 = empty).
    private var sent: (UInt32, UInt32, UInt32) = (0, 0, 0)
    private var shortAckKbps: UInt32 = 0

    private var encoderCeiling: UInt32?
    private var governorCeiling: UInt32?
    private var governorUntil: UInt64 = 0
    private var cadenceUntil: UInt64 = 0
    private var lastCadenceAt: UInt64?

    private var wallEventAt: UInt64 = 0
    private var wallFailures = 0
    private var retrying = false
    private var preRetryKbps: UInt32 = 0

    private var lastChangeAt: UInt64?
    private var lastCutAt: UInt64?
    private var lastCutUndoable = false
    private var preCutKbps: UInt32 = 0
    private var preCutWall: UInt32?

    private var cleanWindows = 0
    private var standingRun = 0
    private var lossRun = 0
    private var gapPending = false

    private var outageUntil: UInt64 = 0
    private var burstFrames = 0
    private var burstGapSumNs: UInt64 = 0
    private var windowHadOutage = false

    private var best: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
                       UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    private var bestNext = 0

    private var originNs: UInt64?
    private var logDecision: RateDecision?
    private var lastDeliveredKbps: UInt32 = 0
    private var lastRiseNs: Int64 = 0
    private var lastLossPPM: UInt32 = 0

    public init(configuration c: Configuration) {
        configuration = c
        let ceiling = max(c.ceilingKbps ?? Self.automaticMaxKbps, c.floorKbps)
        let start = min(max(c.startKbps, c.floorKbps), ceiling)
        askedKbps = start
        grantedKbps = c.startKbps
        // The host already runs its granted rate: only a start it does not run is asked.
        lastSentKbps = c.startKbps
    }

    // MARK: Derived

    public var frameIntervalNs: UInt64 { 1_000_000_000 / UInt64(max(configuration.fps, 1)) }

    /// The highest rate the loop may ask now, kbps.
    public var ceilingKbps: UInt32 {
        var c = configuration.ceilingKbps ?? Self.automaticMaxKbps
        if let e = encoderCeiling { c = min(c, e) }
        if let g = governorCeiling { c = min(c, g) }
        return max(c, configuration.floorKbps)
    }

    /// Feedback tag 8: the known wall, never below the asked rate; 0 without one or when fixed.
    public var linkKbps: UInt32 {
        guard configuration.mode == .automatic, let w = wallKbps else { return 0 }
        return max(w, askedKbps)
    }

    private var automatic: Bool { configuration.mode == .automatic && !pinned }

    /// The latest frame's delay over the 30 s minimum, ns; the minimum's re-learns so far.
    public var owdRiseNs: Int64 { delay.rise }
    public var delayRebases: Int { delay.rebases }

    /// A bring-up ramp to run before the first frame when the host serves one (`HOST_CAP2_RAMP`)
    /// and the rate is automatic; nil otherwise (the loop starts at the configured rate). Its
    /// verdict goes to `applyRamp`.
    public func makeRamp() -> RampProbe? {
        guard configuration.mode == .automatic, configuration.hostServesRamp else { return nil }
        return RampProbe(maxKbps: ceilingKbps, floorKbps: configuration.floorKbps)
    }

    // MARK: - Inputs

    /// One frame completed (or was given up): its first shard's one-way delay (ns, any clock
    /// offset), the wire bytes that arrived for it, when it completed. O(1), allocation-free.
    public mutating func frameArrived(firstShardOWDNs owd: Int64, wireBytes: UInt32, now: UInt64) {
        if originNs == nil { originNs = now }
        delay.record(owdNs: owd, wireBytes: wireBytes, now: now)
        if delay.lastGapNs >= Self.outageGapNs {
            if outageUntil <= now { outages += 1 }
            outageUntil = now &+ Self.outageSettleNs
            burstFrames = 0
            burstGapSumNs = 0
            windowHadOutage = true
            return
        }
        if outageUntil > now {
            windowHadOutage = true
            burstFrames += 1
            burstGapSumNs &+= delay.lastGapNs
            if delay.rise < DelayTrack.queueRiseNs {
                outageUntil = 0  // drained
            } else if burstFrames == 3, burstGapSumNs >= 3 * 2 * frameIntervalNs {
                outageUntil = 0  // no burst followed the gap: a slow link, not a stall
            } else {
                return
            }
        }
        guard automatic, !silent, cutAllowed(now: now) else { return }
        var frames = 0
        if delay.bigRun >= Self.bigRiseFrames, let first = delay.riseAgo(Self.bigRiseFrames - 1),
           delay.rise + Self.notFallingNs >= first {
            frames = delay.highRun
        } else if delay.highRun >= Self.risingFrames, let early = delay.riseAgo(Self.risingFrames - 1),
                  delay.rise - early >= Self.risingByNs {
            frames = delay.highRun
        }
        guard frames > 0 else { return }
        let m = delay.congestedKbps(now: now)
        let proven = m.frames >= 3 && m.spanNs >= 30_000_000
        linkCut(delivered: m.kbps, proven: proven,
                reason: .delayRose(ms: Int(delay.rise / 1_000_000), frames: frames), now: now)
    }

    /// A Feedback window closed with these signals.
    public mutating func windowClosed(_ w: RateWindow, now: UInt64) {
        if originNs == nil { originNs = now }
        windows += 1
        let d = delay.closeWindow()
        let delivered = w.wireBytes > 0 ? w.deliveredKbps : RateWindow.kbps(bytes: d.wireBytes, overNs: w.durationNs)
        lastDeliveredKbps = delivered
        lastRiseNs = d.meanRiseNs
        lastLossPPM = w.lossPPM
        let seenPerFrame = windowHadOutage || outageUntil > now
        let windowGap = w.longestArrivalGapNs >= Self.outageGapNs || d.longestGapNs >= Self.outageGapNs
        if windowGap, !seenPerFrame { outages += 1 }
        let outage = seenPerFrame || windowGap
        windowHadOutage = outageUntil > now
        if let g = governorCeiling, now >= governorUntil, g > 0 { governorCeiling = nil }

        if gapPending {
            gapPending = false
            windowsDiscarded += 1
            hold(.pipelineGap, delivered: delivered, now: now)
            return
        }
        if outage {
            hold(.outage, delivered: delivered, now: now)
            return
        }
        rememberBest(delivered)
        if w.isHeadSignature {
            cleanWindows = 0
            if shape == 0 {
                shape = 1
                decide(.shape, .headLoss, to: askedKbps, delivered: delivered, now: now)
            } else {
                hold(.headLoss, delivered: delivered, now: now)
            }
            return
        }
        guard automatic, !silent else {
            hold(silent ? .silent : .pinned, delivered: delivered, now: now)
            return
        }

        // Loss.
        if w.lossPPM >= Self.severeLossPPM {
            cleanWindows = 0
            if cutAllowed(now: now) {
                if UInt64(delivered) * 100 < UInt64(askedKbps) * Self.linkShortPercent {
                    linkCut(delivered: delivered, proven: true, reason: .loss(ppm: w.lossPPM), now: now)
                } else {
                    plainCut(.loss(ppm: w.lossPPM), delivered: delivered, now: now)
                }
            } else {
                hold(.draining, delivered: delivered, now: now)
            }
            return
        }
        lossRun = w.lossPPM >= Self.lossPPM && w.unrecoverableFrames > 0 ? lossRun + 1 : 0
        if lossRun >= Self.lossWindows, cutAllowed(now: now) {
            plainCut(.lossWithLostFrames(ppm: w.lossPPM, frames: w.unrecoverableFrames, windows: lossRun),
                     delivered: delivered, now: now)
            return
        }

        // Standing delay.
        let standing = d.frames >= 4 && d.highFrames * 2 >= d.frames
            && d.lastRiseNs + Self.drainFallNs >= d.firstRiseNs
        standingRun = standing ? standingRun + 1 : 0
        if standingRun >= Self.standingWindows, cutAllowed(now: now) {
            linkCut(delivered: delivered, proven: true,
                    reason: .delayStanding(ms: Int(d.meanRiseNs / 1_000_000), windows: standingRun), now: now)
            return
        }

        let clean = w.lossPPM < Self.lossPPM && w.unrecoverableFrames == 0 && !standing
            && d.highFrames * 10 <= d.frames
        guard clean else {
            cleanWindows = 0
            hold(recentlyCut(now: now) ? .draining : .notClean, delivered: delivered, now: now)
            return
        }
        cleanWindows += 1
        climb(delivered: delivered, window: w, now: now)
    }

    /// BitrateChanged: the rate the host runs now and, toward `EXT_ABR_ACK_REASON` clients, why.
    public mutating func acknowledged(kbps: UInt32, reason: BitrateChangeReason?, now: UInt64) {
        acks += 1
        let answered = answeredIndex(kbps)
        if let answered {
            asksUnanswered = max(0, asksUnanswered - answered)
        } else {
            asksUnanswered = 0
        }
        if asksUnanswered == 0 {
            firstUnansweredAt = nil
            sent = (0, 0, 0)
        }
        silent = false
        grantedKbps = kbps
        let before = askedKbps
        switch reason {
        case .pinned?:
            pinned = true
            askedKbps = kbps
            lastSentKbps = kbps
            decide(.adopt, .pinned, from: before, to: kbps, now: now)
        case .encoderLimit?:
            encoderCeiling = max(kbps, configuration.floorKbps)
            adoptDown(kbps, .encoderLimit, before: before, now: now)
        case .cadence?:
            let repeated = lastCadenceAt.map { now &- $0 < Self.cadenceHoldNs } ?? false
            lastCadenceAt = now
            cadenceUntil = now &+ Self.cadenceHoldNs
            if repeated, automatic, cutAllowed(now: now) {
                let target = max(min(kbps, askedKbps) - min(kbps, askedKbps) / 8, configuration.floorKbps)
                applyCut(target, .cadence, delivered: 0, learnWall: nil, undoable: false, now: now)
            } else {
                adoptDown(kbps, .cadence, before: before, now: now)
            }
        case .governor?:
            if kbps == 0 {
                governorCeiling = nil
                grantedKbps = askedKbps
                decide(.adopt, .governorReleased, from: before, to: before, now: now)
            } else {
                governorCeiling = max(kbps, configuration.floorKbps)
                governorUntil = now &+ Self.governorHoldNs
                adoptDown(kbps, .governor, before: before, now: now)
            }
        case .granted?, nil:
            // The answer to an ask we made, or the rate we already run: nothing to adopt.
            if answered != nil || kbps == lastSentKbps { break }
            if let s = lastSentKbps, kbps < s {
                // Short without a reason: the host's own clamp. Twice the same: a ceiling.
                if shortAckKbps == kbps { encoderCeiling = max(kbps, configuration.floorKbps) }
                shortAckKbps = kbps
                adoptDown(kbps, .granted, before: before, now: now)
            } else if kbps != askedKbps {
                // A host retarget (pipeline rebuild): follow it within the ceiling.
                askedKbps = min(max(kbps, configuration.floorKbps), ceilingKbps)
                lastSentKbps = kbps
                decide(.adopt, .granted, from: before, to: askedKbps, now: now)
            }
        }
    }

    /// PipelineGap: the host rebuilt capture/encoder; the window in flight is discarded.
    public mutating func pipelineGap(now: UInt64) {
        gapPending = true
        standingRun = 0
        lossRun = 0
        delay.resetRuns()
    }

    /// The Wi-Fi ledger named a stall (scan, roam) that just happened: the window holding it is no
    /// capacity verdict, and a cut taken within `outageUndoNs` before it is undone.
    public mutating func outageNamed(now: UInt64) {
        windowHadOutage = true
        outageUntil = max(outageUntil, now &+ Self.outageSettleNs)
        burstFrames = 0
        burstGapSumNs = 0
        standingRun = 0
        lossRun = 0
        delay.resetRuns()
        if lastCutUndoable, let at = lastCutAt, now >= at, now - at <= Self.outageUndoNs, automatic {
            lastCutUndoable = false
            cutsUndone += 1
            let before = askedKbps
            askedKbps = min(max(preCutKbps, askedKbps), ceilingKbps)
            wallKbps = preCutWall
            decide(.climb, .outageNamed, from: before, to: askedKbps, now: now)
        }
    }

    /// The bring-up ramp's verdict: a wall sets the start (70 % of it) and is the known wall.
    public mutating func applyRamp(_ verdict: RampProbe.Verdict, now: UInt64) {
        guard configuration.mode == .automatic else { return }
        let before = askedKbps
        switch verdict {
        case let .wall(wall, start):
            wallKbps = wall
            wallEventAt = now
            askedKbps = min(max(start, configuration.floorKbps), ceilingKbps)
            decide(.ramp, .ramp(wallKbps: wall), from: before, to: askedKbps, now: now)
        case .noWall:
            decide(.ramp, .ramp(wallKbps: nil), from: before, to: askedKbps, now: now)
        }
    }

    // MARK: - Outputs

    /// A SetBitrate to send now (kbps), or nil. Poll after every input and at least every window.
    public mutating func takeAsk(now: UInt64) -> UInt32? {
        guard automatic else { return nil }
        if let first = firstUnansweredAt, now >= first, now - first >= Self.silenceNs, !silent {
            silent = true
            decide(.hold, .silent, to: askedKbps, now: now)
        }
        if silent { return nil }
        if askedKbps != lastSentKbps {
            guard asksUnanswered < Self.maxUnanswered else {
                if heldKbps != askedKbps { asksHeld += 1 }
                heldKbps = askedKbps
                return nil
            }
            return send(now: now)
        }
        if asksUnanswered > 0, asksUnanswered < Self.maxUnanswered, now &- lastSentAt >= Self.resendNs {
            return send(now: now)
        }
        return nil
    }

    /// One JSON object (no newline) for the `--rate-log` file, about the window just closed.
    public mutating func logLine(now: UInt64) -> String {
        let d = logDecision ?? lastDecision
        logDecision = nil
        let t = (now &- (originNs ?? now)) / 1_000_000
        let verdict = d?.kind.rawValue ?? "hold"
        let reason = JSONString.quoted(d?.reason.text ?? "")
        let rise = Double(lastRiseNs / 100_000) / 10
        return "{\"t_ms\":\(t),\"asked\":\(askedKbps),\"granted\":\(grantedKbps),\"delivered_kbps\":\(lastDeliveredKbps),"
            + "\"owd_rise_ms\":\(rise),\"loss_ppm\":\(lastLossPPM),\"verdict\":\"\(verdict)\",\"reason\":\(reason),\"mono_ns\":\(now)}"
    }

    // MARK: - Rules

    private func cutAllowed(now: UInt64) -> Bool {
        guard let at = lastCutAt else { return true }
        return now &- at >= Self.changeIntervalNs
    }

    private func recentlyCut(now: UInt64) -> Bool { !cutAllowed(now: now) }

    /// A cut the link caused: 85 % of what it delivered, within [20 %, 85 %] of the rate when the
    /// delivery was measured over congestion (`proven`), else [50 %, 85 %]. During a wall retry
    /// that still delivered ≥ 90 % of the wall, the retry is refused instead: back to the rate it
    /// left from.
    private mutating func linkCut(delivered: UInt32, proven: Bool, reason: RateDecision.Reason, now: UInt64) {
        if retrying, let wall = wallKbps, delivered == 0 || UInt64(delivered) * 100 >= UInt64(wall) * Self.linkShortPercent {
            refuseRetry(delivered: delivered, now: now)
            return
        }
        let rate = UInt64(askedKbps)
        var target: UInt64
        if delivered == 0 {
            target = rate * Self.cutPercent / 100
        } else {
            target = UInt64(delivered) * Self.linkCutPercent / 100
        }
        let low = rate * (proven && delivered > 0 ? Self.deepCutMinPercent : Self.cutMinPercent) / 100
        target = min(max(target, low), rate * Self.cutMaxPercent / 100)
        applyCut(UInt32(target), reason, delivered: delivered, learnWall: delivered > 0 ? delivered : nil,
                 undoable: true, now: now)
    }

    /// The wall answered its retry: the rate goes back to where the retry left from (a probe
    /// ending, not a new operating point), and the next retry waits twice as long.
    private mutating func refuseRetry(delivered: UInt32, now: UInt64) {
        let before = askedKbps
        retrying = false
        wallFailures += 1
        wallRetryFailures += 1
        if let w = wallKbps, delivered > 0 {
            // The same wall, measured again.
            wallKbps = UInt32((UInt64(w) + UInt64(delivered)) / 2)
        }
        wallEventAt = now
        askedKbps = max(min(preRetryKbps, askedKbps), configuration.floorKbps)
        lastCutAt = now
        lastChangeAt = now
        lastCutUndoable = false
        cleanWindows = 0
        standingRun = 0
        delay.resetRuns()
        decide(.probe, .wallRetryRefused, from: before, to: askedKbps, delivered: delivered, now: now)
    }

    /// ×0.7, for damage that is not a measured wall.
    private mutating func plainCut(_ reason: RateDecision.Reason, delivered: UInt32, now: UInt64) {
        let target = UInt32(UInt64(askedKbps) * Self.cutPercent / 100)
        applyCut(target, reason, delivered: delivered, learnWall: nil, undoable: true, now: now)
    }

    private mutating func applyCut(_ kbps: UInt32, _ reason: RateDecision.Reason, delivered: UInt32,
                                   learnWall: UInt32?, undoable: Bool, now: UInt64) {
        let before = askedKbps
        let target = min(max(kbps, configuration.floorKbps), ceilingKbps)
        preCutKbps = before
        preCutWall = wallKbps
        lastCutUndoable = undoable
        if let w = learnWall { learn(wall: w, now: now) }
        lastCutAt = now
        cleanWindows = 0
        standingRun = 0
        lossRun = 0
        delay.resetRuns()
        guard target < before else {
            hold(reason, delivered: delivered, now: now)
            return
        }
        askedKbps = target
        lastChangeAt = now
        cuts += 1
        decide(.cut, reason, from: before, to: target, delivered: delivered, now: now)
    }

    /// A link cut measured `kbps`: the same wall (±20 %) counts a failed retry, a new one starts over.
    private mutating func learn(wall kbps: UInt32, now: UInt64) {
        let similar = wallKbps.map {
            UInt64(kbps) * 100 >= UInt64($0) * (100 - Self.wallSimilarPercent)
                && UInt64(kbps) * 100 <= UInt64($0) * (100 + Self.wallSimilarPercent)
        } ?? false
        if !similar { wallFailures = 0 }
        retrying = false
        wallKbps = kbps
        wallEventAt = now
    }

    /// The wait before the wall is re-tried: 16 s, doubling with each refused retry, at most 96 s.
    public var wallRetryWaitNs: UInt64 {
        min(Self.wallRetryWaitNs << UInt64(min(wallFailures, 8)), Self.maxWallRetryWaitNs)
    }

    private mutating func climb(delivered: UInt32, window w: RateWindow, now: UInt64) {
        let ceiling = ceilingKbps
        if askedKbps > ceiling {
            applyCut(ceiling, .ceiling, delivered: delivered, learnWall: nil, undoable: false, now: now)
            return
        }
        let budget = frameIntervalNs * Self.busyPercent / 100
        let reason: RateDecision.Reason?
        if askedKbps >= ceiling { reason = .ceiling }
        else if now < cadenceUntil { reason = .cadence }
        else if w.decodeNs >= budget { reason = .decoderBusy }
        else if w.encodeNs >= budget { reason = .encoderBusy }
        else if UInt64(delivered) * 4 < UInt64(askedKbps) * 3 { reason = .appLimited }
        else if let at = lastChangeAt, now &- at < Self.changeIntervalNs { reason = .draining }
        else { reason = nil }
        if let reason {
            if reason == .appLimited || reason == .decoderBusy || reason == .encoderBusy { cleanWindows = 0 }
            hold(reason, delivered: delivered, now: now)
            return
        }
        let bestCap = UInt64(bestDelivered) * Self.bestDeliveryPercent / 100
        let cap = UInt32(min(UInt64(ceiling), bestCap == 0 ? UInt64(ceiling) : bestCap))

        if retrying {
            if cleanWindows >= Self.retryCleanWindows {
                retrying = false
                wallKbps = nil
                wallFailures = 0
                probe(cap: cap, reason: .wallGone, delivered: delivered, now: now)
            } else {
                hold(.waitingForWall, delivered: delivered, now: now)
            }
            return
        }
        if let wall = wallKbps {
            let cruise = UInt32(UInt64(wall) * Self.cruisePercentOfWall / 100)
            if askedKbps < cruise {
                guard cleanWindows >= Self.cleanWindowsUnderWall else {
                    hold(.waitingForWall, delivered: delivered, now: now)
                    return
                }
                raise(to: min(cruise, cap), kind: .climb, reason: .cleanUnderWall, delivered: delivered, now: now)
                return
            }
            let retry = wall + wall / Self.wallRetryDiv
            if retry <= askedKbps {
                wallKbps = nil  // the rate already passed it: stale
                probe(cap: cap, reason: .cleanProbe(percent: Int(Self.probeClimbPercent)), delivered: delivered, now: now)
                return
            }
            guard now &- wallEventAt >= wallRetryWaitNs, cleanWindows >= Self.cleanWindowsToProbe else {
                hold(.waitingForWall, delivered: delivered, now: now)
                return
            }
            wallRetries += 1
            retrying = true
            preRetryKbps = askedKbps
            raise(to: min(retry, ceiling), kind: .probe, reason: .wallRetry(percent: 12), delivered: delivered, now: now)
            return
        }
        guard cleanWindows >= Self.cleanWindowsToProbe else {
            hold(.notClean, delivered: delivered, now: now)
            return
        }
        probe(cap: cap, reason: .cleanProbe(percent: Int(Self.probeClimbPercent)), delivered: delivered, now: now)
    }

    private mutating func probe(cap: UInt32, reason: RateDecision.Reason, delivered: UInt32, now: UInt64) {
        let up = UInt64(askedKbps) * (100 + Self.probeClimbPercent) / 100
        raise(to: UInt32(min(up, UInt64(cap))), kind: .climb, reason: reason, delivered: delivered, now: now)
    }

    private mutating func raise(to kbps: UInt32, kind: RateDecision.Kind, reason: RateDecision.Reason,
                                delivered: UInt32, now: UInt64) {
        let target = min(kbps, ceilingKbps)
        guard target > askedKbps else {
            if kind == .probe { retrying = false }
            hold(target >= ceilingKbps ? .ceiling : reason, delivered: delivered, now: now)
            return
        }
        let before = askedKbps
        askedKbps = target
        lastChangeAt = now
        cleanWindows = 0
        climbs += 1
        lastCutUndoable = false
        decide(kind, reason, from: before, to: target, delivered: delivered, now: now)
    }

    /// The host runs less than asked: that is the rate now (no ask).
    private mutating func adoptDown(_ kbps: UInt32, _ reason: RateDecision.Reason, before: UInt32, now: UInt64) {
        if kbps < askedKbps {
            askedKbps = max(kbps, configuration.floorKbps)
            lastSentKbps = askedKbps
        }
        decide(.adopt, reason, from: before, to: askedKbps, now: now)
    }

    private mutating func send(now: UInt64) -> UInt32 {
        let k = askedKbps
        asks += 1
        asksUnanswered += 1
        if firstUnansweredAt == nil { firstUnansweredAt = now }
        lastSentKbps = k
        lastSentAt = now
        sent = (sent.1, sent.2, k)
        return k
    }

    /// How many of the unanswered asks an answer of `kbps` retires (1 = the newest), or nil when
    /// it matches none of them.
    private func answeredIndex(_ kbps: UInt32) -> Int? {
        guard asksUnanswered > 0 else { return nil }
        if sent.2 == kbps { return asksUnanswered }
        if sent.1 == kbps, asksUnanswered >= 2 { return asksUnanswered - 1 }
        if sent.0 == kbps, asksUnanswered >= 3 { return asksUnanswered - 2 }
        return nil
    }

    private mutating func rememberBest(_ kbps: UInt32) {
        withUnsafeMutableBytes(of: &best) { raw in
            raw.storeBytes(of: kbps, toByteOffset: bestNext * 4, as: UInt32.self)
        }
        bestNext = (bestNext + 1) % Self.bestWindows
    }

    /// The best delivered rate of the last `bestWindows` judged windows, kbps.
    public var bestDelivered: UInt32 {
        withUnsafeBytes(of: best) { raw in
            var m: UInt32 = 0
            for i in 0..<Self.bestWindows { m = max(m, raw.load(fromByteOffset: i * 4, as: UInt32.self)) }
            return m
        }
    }

    private mutating func hold(_ reason: RateDecision.Reason, delivered: UInt32 = 0, now: UInt64) {
        lastDecision = RateDecision(kind: .hold, reason: reason, fromKbps: askedKbps, toKbps: askedKbps,
                                    deliveredKbps: delivered, atNs: now)
    }

    private mutating func decide(_ kind: RateDecision.Kind, _ reason: RateDecision.Reason, from: UInt32? = nil,
                                 to: UInt32, delivered: UInt32 = 0, now: UInt64) {
        let d = RateDecision(kind: kind, reason: reason, fromKbps: from ?? to, toKbps: to,
                             deliveredKbps: delivered, atNs: now)
        lastDecision = d
        logDecision = d
    }
}
