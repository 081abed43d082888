/// The adaptive jitter buffer of one audio stream (issue 13 item 3): orders packets by sequence
/// number and decides, each time the output wants its next period, whether to play a packet,
/// recover a lost one from its successor's RED copy, conceal, or stay quiet — and by how many
/// frames to stretch that period to hold the playout delay at a target measured from arrival
/// jitter. Pure: no I/O, no clock reads (every time is CLOCK_MONOTONIC ns passed in), no
/// threads, no allocation after init.
///
/// Driving it (one owner; time never goes backwards):
/// - `handlePacket` for every received packet of the stream (any order, duplicates allowed).
///   Only `.buffered` keeps the payload.
/// - `pollPlayout` once per output period, when the output needs its next `frameSamples` frames.
///   `nowNs` is when that period will start playing at the DAC, less a constant (e.g. the pull
///   time plus `snd_pcm_delay`); the buffer measures its delay on that clock, so the DAC's rate,
///   not the host's, decides the drift it corrects. Act on the step (decode / PLC / silence),
///   then apply `fade` to the period's PCM (`FrameStretch.fade`) and hand it with `stretchFrames`
///   to a `TimeStretch`, which drops or repeats them in whole pitch periods.
///
/// `Payload` is what the decoder needs to produce a packet's audio: an index into caller-owned
/// packet storage, decoded PCM, … A stored payload is handed back exactly once (in `.play` or,
/// as the successor's RED copy, `.recover` then `.play`) or dropped on overflow/restart. Packets
/// are held for sequence numbers in `[nextSeq, nextSeq + capacity)` only, so storage indexed by
/// `seq % capacity` is never needed twice at once.
///
/// Algorithm (times in ns; one packet = `frameNs`):
/// - Delay. A packet's relative delay `r` is its transit minus the smallest recent transit
///   (`ArrivalJitter`). The *playout delay* of packet N at time t is `e(N) = t − N × frameNs −
///   base`: how long after the fastest packets would have delivered it N starts playing. N is on
///   time iff `e(N) ≥ r(N)`. Target = margin + max(held peak of r, 99th percentile of r).
/// - Per poll, for the next packet N: present → play it. Missing, successor present with a RED
///   copy → recover. Missing, later packets present and `e(N) ≥ target` → N is lost: conceal it.
///   Otherwise (nothing newer, or still under target) → wait one period with concealment that
///   stands for nobody yet (`.conceal(seq: nil)`). When later packets turn up while N is still
///   missing, the waited periods are counted against N, N+1, … (`coveredLost`, no second
///   concealment); when N turns up, they were inserted delay — which is how the delay grows at
///   once to a burst's size without dropping the burst.
/// - Concealment runs at most `maxConcealNs`, then the output fades out and stays quiet until
///   packets return; they resume with a fade-in at the same target (the quiet periods cover the
///   packets lost meanwhile).
/// - Stretch: each real period, `err = e(N) − target` outside a deadband is corrected at
///   `err / controlTimeNs` (proportional), at most `maxStretchFrames` frames per period. That
///   holds the level against ±200 ppm of clock drift (0.048 frames per period) with a standing
///   error of about 0.2 ms, and walks the delay down slowly after the target fell.
/// - A delay more than `overflowNs` over target drops whole packets back to it; a packet
///   later than `maxTargetNs + overflowNs`, or a sequence jump past `resyncDistance`, voids the
///   timing: statistics start over and playout prefills again (`resyncs`).
public struct AudioJitterBuffer<Payload> {
    public typealias Configuration = JitterConfiguration

    public let configuration: Configuration
    /// One packet's duration, ns.
    public let frameNs: Int64

    var slots: [Slot]
    let mask: Int64
    var jitter: ArrivalJitter
    /// A packet was received since init or restart.
    var hasStream = false
    /// Playout started (the first packet waited out the initial target).
    var started = false
    /// Extended (unwrapped) sequence number of the next packet to play.
    var nextExt: Int64 = 0
    /// Newest packet received (extended); `< nextExt` when nothing is held.
    var newestExt: Int64 = -1
    /// Concealment/quiet periods emitted while waiting for `nextExt`, not yet attributed.
    var waited = 0
    /// Length of the current run of concealed or quiet output, ns.
    var concealRunNs: Int64 = 0
    /// The output went quiet after a long concealment; the next real frame fades in.
    var muted = false
    /// Lost packets the waiting concealment stood for, found when a packet far ahead pushed the
    /// window on; reported by the next poll.
    var pendingCovered = 0
    /// Last arrival of a packet carrying its predecessor (RED), and last lost/recovered packet.
    var redSeenNs: Int64?
    var lossSeenNs: Int64?
    /// Fractional stretch frames carried between periods (negative = drop).
    var stretchCarry = 0.0
    var counters = JitterStats()
    var lastNowNs: Int64 = 0
    /// The lowest target, ns, whatever the jitter: A/V sync holds audio back to the video with it
    /// (`AVSyncControl`); capped at `maxTargetNs`. 0: the jitter alone decides.
    public var delayFloorNs: Int64 = 0

    public init(_ configuration: Configuration = .init()) {
        precondition(configuration.capacity >= 8 && configuration.capacity & (configuration.capacity - 1) == 0,
                     "capacity must be a power of two ≥ 8")
        precondition(configuration.frameSamples > 0 && configuration.sampleRate > 0)
        self.configuration = configuration
        frameNs = configuration.frameNs
        mask = Int64(configuration.capacity - 1)
        slots = [Slot](repeating: Slot(), count: configuration.capacity)
        jitter = ArrivalJitter(frameNs: configuration.frameNs, configuration: configuration)
    }

    // MARK: getters

    /// Counters and levels as of the last call.
    public var stats: JitterStats {
        var s = counters
        s.jitterPeakNs = jitter.heldPeakNs
        s.queuedNs = max(0, newestExt - nextExt + 1) * frameNs
        return s
    }
    /// The next sequence number the output will consume.
    public var nextSeq: UInt32 { UInt32(truncatingIfNeeded: nextExt) }
    /// Periods of concealment or quiet already output while waiting for `nextSeq`, not yet
    /// counted as a lost packet's or as inserted delay.
    public var waitingPeriods: Int { waited }
    /// Playout has started.
    public var isPlaying: Bool { started }
    /// The concealment run in progress (PLC periods in a row, up to `maxConcealNs`), ns; 0 after
    /// a real period.
    public var concealmentRunNs: Int64 { concealRunNs }
    /// Audio held without a gap from the next packet to play, ns: what the output may take at
    /// once (the look-ahead of `TimeStretch`) without waiting for anything.
    public var contiguousNs: Int64 {
        var n: Int64 = 0
        while n < Int64(configuration.capacity) && isBuffered(nextExt + n) { n += 1 }
        return n * frameNs
    }

    // MARK: events

    /// A packet of the stream arrived at `nowNs`.
    /// - Returns: `.buffered` when stored; `.late` when its playout time has passed (it was
    ///   concealed) or it is outside the window; `.duplicate` when that sequence number is held
    ///   or was played. Late packets still feed the jitter statistics.
    public mutating func handlePacket(seq: UInt32, ptsNs: UInt64, payload: Payload,
                                      flags: AudioPacketFlags = [], nowNs: UInt64) -> PacketVerdict {
        let now = Int64(nowNs)
        lastNowNs = max(lastNowNs, now)
        if !hasStream {
            hasStream = true
            nextExt = Int64(seq)
            newestExt = nextExt - 1
        }
        var ext = nextExt + Int64(Int32(bitPattern: seq &- UInt32(truncatingIfNeeded: nextExt)))
        if abs(ext - nextExt) > configuration.resyncDistance {
            restart(at: seq)
            ext = nextExt
        }
        if ext >= nextExt, jitter.relativeDelayNs(extSeq: ext, nowNs: now) > configuration.maxTargetNs + configuration.overflowNs {
            rebase()
        }
        if ext < nextExt && !started && newestExt - ext < Int64(configuration.capacity) {
            nextExt = ext  // reordered ahead of the first packet, before playout: start earlier
        }
        if ext < nextExt {
            let slot = slots[index(ext)]
            if slot.ext == ext && slot.state == .played {
                counters.duplicatePackets += 1
                return .duplicate
            }
            counters.latePackets += 1
            jitter.observe(extSeq: ext, nowNs: now)
            return .late
        }
        if ext - nextExt >= Int64(configuration.capacity) {
            // More than the window ahead: push the oldest out.
            let newNext = ext - Int64(configuration.capacity) + 1
            while nextExt < newNext {
                if !isBuffered(nextExt) && waited > 0 {  // an outage's lost packet, already concealed
                    counters.lostPackets += 1
                    waited -= 1
                    pendingCovered += 1
                } else {
                    counters.overflowDrops += 1
                }
                release(nextExt, as: .lost)
                nextExt += 1
            }
        }
        let i = index(ext)
        if slots[i].ext == ext && slots[i].state == .buffered {
            counters.duplicatePackets += 1
            return .duplicate
        }
        slots[i] = Slot(ext: ext, state: .buffered, flags: flags, ptsNs: ptsNs, payload: payload)
        if flags.contains(.carriesPrevious) { redSeenNs = now }
        newestExt = max(newestExt, ext)
        jitter.observe(extSeq: ext, nowNs: now)
        return .buffered
    }

    // MARK: internals

    func index(_ ext: Int64) -> Int { Int(ext & mask) }

    func isBuffered(_ ext: Int64) -> Bool {
        let s = slots[index(ext)]
        return s.ext == ext && s.state == .buffered
    }

    /// Marks `ext` consumed and forgets its payload.
    mutating func release(_ ext: Int64, as state: Slot.State) {
        let i = index(ext)
        slots[i].ext = ext
        slots[i].state = state
        slots[i].payload = nil
    }

    mutating func attributeWaitAsInserted() {
        counters.insertedNs += Int64(waited) * frameNs
        waited = 0
    }

    /// A sequence number far from the expected one: the host restarted the stream. Drop what is
    /// held and start over from `seq`, with a fresh prefill.
    mutating func restart(at seq: UInt32) {
        while nextExt <= newestExt {
            if isBuffered(nextExt) { counters.overflowDrops += 1 }
            release(nextExt, as: .lost)
            nextExt += 1
        }
        if waited > 0 { attributeWaitAsInserted() }
        for i in slots.indices { slots[i] = Slot() }
        nextExt = Int64(seq)
        newestExt = nextExt - 1
        if started { muted = true }  // the new stream fades in
        started = false
        concealRunNs = 0
        stretchCarry = 0
        jitter.reset(initialTargetNs: configuration.initialTargetNs)
        counters.resyncs += 1
    }

    /// A packet later than any target could cover (the host paused without advancing the
    /// sequence number, or delivered an outage's packets long after): the old timing is void.
    /// Measure afresh and prefill again; what is held stays and plays after the prefill.
    mutating func rebase() {
        if waited > 0 { attributeWaitAsInserted() }
        jitter.reset(initialTargetNs: configuration.initialTargetNs)
        started = false
        if concealRunNs > 0 { muted = true }
        concealRunNs = 0
        stretchCarry = 0
        counters.resyncs += 1
    }

    struct Slot {
        enum State: UInt8 {
            case empty, buffered, played
            /// Concealed, recovered from RED or dropped: the original arriving now is late.
            case lost
        }
        var ext: Int64 = -1
        var state: State = .empty
        var flags: AudioPacketFlags = []
        var ptsNs: UInt64 = 0
        var payload: Payload?
    }
}

extension AudioJitterBuffer: Sendable where Payload: Sendable {}
extension AudioJitterBuffer.Slot: Sendable where Payload: Sendable {}
