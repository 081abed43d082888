/// Pitch-preserving time-scale modification of the playout (issue 22): the PCM side of
/// `Playout.stretchFrames`, replacing a per-period splice of 1–2 frames (`FrameStretch`, which
/// plays the sound 0.83 % fast while it catches up) by WebRTC NetEq's way: remove ("accelerate")
/// or insert ("preemptive expand") *whole periods of the dominant pitch*, found by normalised
/// cross-correlation, with an overlap-add across the seam, so the waveform's period — the pitch —
/// never changes. Pure, in place over preallocated storage, no allocation after init.
///
/// Driving it, once per output period (one owner):
/// 1. `push` the period's PCM (decoded, concealed or silence, faded) with the jitter buffer's
///    `stretchFrames`: they are added to `debt` (frames still to drop, < 0, or repeat, > 0). How
///    much to drop or repeat stays the jitter buffer's decision; this type decides *where* and in
///    what units.
/// 2. `pull` what may be played now. It may hold frames back (`heldFrames`, at most
///    `maxLag + 1 + window`) as look-ahead for a removal, only as far as the caller says more audio
///    is at hand (`lookaheadFrames`: packets already queued in the jitter buffer); a pull that
///    returns 0 frames asks for the next period at once. Held frames are still to play: the
///    caller adds them to the time it passes to `pollPlayout` (the next period starts after them),
///    and `owedFrames` as well (frames still to drop play no later), so the buffer's delay measure
///    is the delay at the DAC once the owed stretch is paid.
///
/// Layout of `store` (frames, interleaved `channels`): `[history | pending | free]` with pending
/// starting at `historyCapacity`; history = the last frames handed out (at most `maxLag + 1 +
/// correlationWindow`), pending = pushed, not yet handed out. Every seam is at the start of pending (right
/// after the last frame played), so the crossfade starts from the sample the listener just heard.
///
/// With `s` = the start of pending, `x` the frames around it, `W` = `window` (the crossfade),
/// `C` = `correlationWindow`, `P` a lag in `[minLag, maxLag]`, and `a = x[s+W−C..<s+W]` (the
/// correlation window ends where the crossfade ends, so it reaches back into the history just
/// played and needs no look-ahead beyond the crossfade):
/// - accelerate (debt ≤ −`minLag`/2): `c(P) = ⟨a, a+P⟩ / √(‖a‖²‖a+P‖²)` summed over all channels
///   (the stereo image is judged as one), for every P that fits in pending; P = the shortest peak
///   of c (better than both neighbours) within `peakTolerance` of the best peak — the pitch period
///   or its smallest good multiple. If that peak is ≥ `correlationThreshold` (NetEq's 0.9), the
///   audio just played repeats at P too (`c` of `a` against `a−P` ≥ the threshold), and
///   P ≤ 2·(|debt| + e), e = how far the delay is above the target after the debt (the jitter
///   buffer's `Playout.delayErrorNs`, passed to `push`; 0 when at or below it): the seam may land
///   the delay up to half a period below the target (once the jitter buffer has stopped asking,
///   e is its deadband, so a debt a deadband short of half a period goes; while the target walks
///   down at start-up, a period goes before the debt has caught up). What the seam removes beyond
///   the debt is kept as `overshoot`, owed back, when the command was at its rate limit, and
///   otherwise as far as it took the delay below the target; the jitter buffer sees the rest
///   (`settle`). Pending becomes
///   `xfade(x[s+j] → x[s+P+j]), j < W ‖ x[s+P+W...]` — P frames shorter;
/// - expand (debt ≥ `minLag`/2): the same with `a−P` (history), P ≤ 2·(debt + e), e = how far the
///   delay is below the target, likewise:
///   pending becomes `xfade(x[s+j] → x[s−P+j]), j < W ‖ x[s−P+W..<s] ‖ x[s...]` — P frames longer;
/// - nearly silent pending (RMS < `silenceRMS`): any debt is spliced at once as `FrameStretch`
///   does (inaudible there);
/// - aperiodic audio (e.g. noise: a backward search over the whole lag range through the history,
///   run at every pull no verdict holds, finds no peak ≥ `aperiodicThreshold` in
///   `aperiodicConfirmPulls` pulls in a row, so a short transient over a tone is not taken for
///   noise; the verdict holds `verdictHoldPulls` pulls):
///   any debt is spliced at once — there is no pitch to keep, and waiting would only add delay;
/// - periodic but no seam fits yet (correlation too low, or the period longer than 2·(|debt| + e) or
///   than the look-ahead): the debt waits, paid meanwhile by one spliced frame every
///   `slowSpliceInterval` pulls (0.05 %), and never grows past `fallbackFrames` (10 ms): beyond
///   that the excess is spliced as before.
/// C = 10 ms and lags up to 20 ms (NetEq correlates 12.5 ms at 4 kHz over 2.5–15 ms): a chord has
/// no common period below ~18 ms (A major 220/277/330 Hz: 18.15 ms), and a 2.5 ms window finds
/// lags that fit one note and move the others' phase.
/// Telling the jitter buffer the delay *after* the debt is paid (step 2) keeps it from asking
/// again for what is already owed while a debt waits for its seam (and from overshooting once
/// the period is cut).
/// More than two channels (5.1, 7.1): the pitch is judged on one channel, the loudest over the
/// correlation window at each search (NetEq judges multichannel audio on one "master" channel
/// too), so a search costs what a mono one does whatever the channel count — the seams still cut
/// every channel at the same frame. Stereo is judged on both channels as one, as above.
/// At most two correlation searches per pull (the periodicity verdict, then the seam's), each
/// `(maxLag − minLag + 2) × C × channels` multiply-adds (the energies slide, `2 × channels` per
/// lag): 1.6 M at 48 kHz stereo for the two, plus one backward check of a removal's lag — docs/PERFORMANCE.md "Catch-up without a pitch shift" states the
/// measured time.
public struct TimeStretch {
    /// What the stretcher did, frames and events since init.
    public struct Counters: Sendable, Equatable {
        /// Whole pitch periods removed / inserted (events, frames).
        public var accelerations = 0
        public var expansions = 0
        public var removedFrames = 0
        public var insertedFrames = 0
        /// Frames dropped / repeated by a plain splice: in near-silence, or past `fallbackFrames`.
        public var silenceSplicedFrames = 0
        public var fallbackSplicedFrames = 0
        /// Frames dropped / repeated by a plain splice at once because the audio has no pitch.
        public var aperiodicSplicedFrames = 0
        /// Single frames spliced while a debt waits (at most one per `slowSpliceInterval` pulls).
        public var slowSplicedFrames = 0
        /// Correlation searches, and those that found no lag above the threshold (left alone).
        public var searches = 0
        public var lowCorrelation = 0
        public init() {}
    }

    public let channels: Int
    /// Shortest / longest lag tried, frames: 2.5 / 20 ms (NetEq: 2.5–15 ms; 20 ms reaches a
    /// chord's near-common period).
    public let minLag: Int
    public let maxLag: Int
    /// Crossfade length, frames: 2.5 ms.
    public let window: Int
    /// Correlation window, frames: 10 ms, ending where the crossfade ends.
    public let correlationWindow: Int
    /// Largest debt left waiting for a good seam, frames (10 ms: half the longest period); the
    /// excess is spliced.
    public var fallbackFrames: Int
    /// Largest period pushed, frames.
    public let maxPushFrames: Int
    /// Normalised correlation a seam needs: 0.9 (NetEq `kCorrelationThreshold`, 14746 in Q14).
    public var correlationThreshold: Float = 0.9
    /// Below this best correlation over the whole lag range the audio has no pitch (noise):
    /// its debt is spliced at once.
    public var aperiodicThreshold: Float = 0.5
    /// While a debt waits for a pitch seam, one frame of it is spliced every this many pulls: 8
    /// (one frame per 40 ms, 0.05 % — a shift well inside ±0.1 %, unlike the old 2 frames per
    /// period, 0.83 %). A slow debt (clock drift: ±200 ppm is a frame every ~100 ms) is paid
    /// this way as it comes, without waiting for half a period; a fast one (catch-up) grows
    /// until a whole period can go. 0 = never.
    public var slowSpliceInterval = 8
    /// How many pulls a periodicity verdict holds: 20 (~100 ms of 5 ms periods).
    public var verdictHoldPulls = 20
    /// How many pulls in a row must find no pitch before the audio is judged aperiodic: 8
    /// (40 ms). A 5 ms transient over a tone (the VM check's 3 kHz marker, a click) lowers the
    /// best peak while it is inside the searched span (32.5 ms: the correlation window and the
    /// longest lag) — 2 pulls in a row for the marker over 997 Hz, at most ~7 for any 5 ms
    /// transient; pitchless for longer is noise. Judged every pull meanwhile.
    public var aperiodicConfirmPulls = 8
    /// Pending audio quieter than this RMS (full scale 1) is spliced like silence: −54 dBFS.
    public var silenceRMS: Float = 0.002

    /// Frames still to drop (< 0) or repeat (> 0): commanded by the jitter buffer, not yet done.
    public private(set) var debt = 0
    /// Frames a seam did beyond the debt that are owed back (> 0: a removal went too far, repeat
    /// them; < 0: an insertion did, drop them): paid by single-frame splices, or first by the
    /// next command of the other sign; never by a seam. At most one of `debt` and `overshoot` is
    /// non-zero.
    public private(set) var overshoot = 0
    /// All still owed, `debt + overshoot`: the caller adds it to the time the jitter buffer
    /// judges (the delay once everything owed is paid).
    public var owedFrames: Int { debt + overshoot }
    public private(set) var counters = Counters()
    /// Pushed frames not yet handed out by `pull` (look-ahead held for a seam, or none).
    public var heldFrames: Int { pending }
    /// Where the last pull's seam is in the frames it returned: offset and length (the crossfade
    /// of a pitch seam, or the spliced region); nil when it had none.
    public private(set) var lastSeam: (offset: Int, length: Int)?
    /// The largest `pull` can return: held look-ahead + one period + an inserted period.
    public var maxPullFrames: Int { maxLag + 1 + window + maxPushFrames + maxLag }
    /// The best correlation of the last search (diagnostics).
    public private(set) var lastCorrelation: Float = 0

    let historyCapacity: Int
    var store: [Float]
    /// More than two channels: the loudest channel of the searched span of `store`, one float per
    /// frame at the same frame indices (filled by each `search`; `fitsBackward` and the verdict's
    /// energies read what the search of the same pull filled).
    var analysis: [Float]
    var scratch: [Float]
    /// Correlation per lag of the last search.
    var correlation: [Float]
    var history = 0
    var pending = 0
    /// The last periodicity verdict (a backward search over the whole lag range) and the pulls
    /// it still holds for (0: judge again at the next pull).
    var aperiodic = false
    var verdictPulls = 0
    /// Judgements in a row, one per pull, that found no pitch; reset by a pitch.
    var pitchlessRun = 0
    /// Pulls since the last slow splice.
    var sinceSlowSplice = 0
    /// The last push's delay error (judged delay − target, frames; > 0 above the target).
    var delayError = 0
    /// The last push's command was at the jitter buffer's rate limit.
    var commandAtLimit = false

    /// - Precondition: `channels > 0`, `sampleRate ≥ 8000`, `maxPushFrames > 0`.
    public init(channels: Int, sampleRate: Int = 48_000, maxPushFrames: Int) {
        precondition(channels > 0 && sampleRate >= 8_000 && maxPushFrames > 0)
        self.channels = channels
        minLag = sampleRate / 400
        maxLag = sampleRate / 50
        window = sampleRate / 400
        correlationWindow = sampleRate / 100
        fallbackFrames = sampleRate / 100
        self.maxPushFrames = maxPushFrames
        historyCapacity = maxLag + 1 + correlationWindow
        let pull = maxLag + 1 + window + maxPushFrames + maxLag
        store = [Float](repeating: 0, count: (historyCapacity + pull + maxPushFrames) * channels)
        scratch = [Float](repeating: 0, count: pull * channels)
        analysis = [Float](repeating: 0, count: channels > 2 ? historyCapacity + pull + maxPushFrames : 0)
        correlation = [Float](repeating: 0, count: maxLag + 2)
    }

    /// Forgets held audio, history and debt (a stream restart or a device reopen).
    public mutating func reset() {
        history = 0
        pending = 0
        debt = 0
        overshoot = 0
        commandAtLimit = false
        verdictPulls = 0
        pitchlessRun = 0
        sinceSlowSplice = 0
        delayError = 0
        lastSeam = nil
    }

    /// Appends one period of PCM and adds the jitter buffer's `stretch` to what is owed:
    /// `delayErrorFrames` is that period's `Playout.delayErrorNs` in frames (judged delay −
    /// target; 0 for a concealed or quiet period), which bounds how far a seam may overshoot;
    /// `atLimit` says the command is at the jitter buffer's rate limit (`maxStretchFrames`).
    /// A command of the other sign than `overshoot` pays it first; one of the same sign makes it
    /// debt (owed as firmly as the command).
    /// - Precondition: `frames ≤ maxPushFrames`, `pcm.count ≥ frames × channels`.
    public mutating func push(_ pcm: UnsafeBufferPointer<Float>, frames: Int, stretch: Int, delayErrorFrames: Int = 0,
                              atLimit: Bool = false) {
        precondition(frames >= 0 && frames <= maxPushFrames && pcm.count >= frames * channels, "TimeStretch: period too large")
        let at = (historyCapacity + pending) * channels
        precondition(at + frames * channels <= store.count, "TimeStretch: push past the store (\(pending) pending)")
        store.withUnsafeMutableBufferPointer { s in
            (s.baseAddress! + at).update(from: pcm.baseAddress!, count: frames * channels)
        }
        pending += frames
        var command = stretch
        if command != 0 && overshoot != 0 {
            if (command > 0) == (overshoot > 0) {
                debt += overshoot
                overshoot = 0
            } else {
                let paid = min(abs(command), abs(overshoot))
                command += command > 0 ? -paid : paid
                overshoot += overshoot > 0 ? -paid : paid
            }
        }
        debt += command
        delayError = delayErrorFrames
        commandAtLimit = atLimit
    }

    /// Performs at most one seam on the pending audio and hands out what may play now.
    /// - Parameters:
    ///   - out: receives the frames (interleaved); needs `maxPullFrames × channels`.
    ///   - lookaheadFrames: audio the caller can push right away (queued packets), which allows
    ///     holding frames back for a removal; 0 = hold nothing.
    /// - Returns: frames written to `out` (0: push the next period now, then pull again).
    public mutating func pull(into out: UnsafeMutableBufferPointer<Float>, lookaheadFrames: Int = 0) -> Int {
        lastSeam = nil
        guard pending > 0 else { return 0 }
        var keep = 0
        let back = correlationWindow - window  // history the correlation window reaches into
        if verdictPulls > 0 { verdictPulls -= 1 }
        let pitchless = isAperiodic()  // judged every pull no verdict holds, so its runs are pulls in a row
        if owedFrames != 0 && isSilent() {
            splice(owedFrames, silence: true)
        } else if owedFrames != 0 && pitchless {
            splice(owedFrames, aperiodic: true)
        } else if debt <= -(minLag / 2) {
            let reach = 2 * (max(0, delayError) - debt)  // the longest lag this debt may take
            // Look-ahead for a lag up to the reach + 1 (a peak needs its right neighbour) and its crossfade.
            let want = min(maxLag + 1, reach + 1) + window
            if pending < want && want - pending <= lookaheadFrames { return 0 }  // gather look-ahead first
            let upper = min(maxLag + 1, pending - window)
            if history >= back && upper > minLag {
                if let lag = search(lags: minLag...upper, forward: true), lag <= reach, fitsBackward(lag) { accelerate(lag) }
            }
            if debt <= -(minLag / 2) && lookaheadFrames > 0 { keep = min(pending, want) }
        } else if debt >= minLag / 2 {
            let upper = min(maxLag + 1, history - back)
            if upper > minLag && pending >= window {
                if let lag = search(lags: minLag...upper, forward: false), lag <= 2 * (debt + max(0, -delayError)) { expand(lag) }
            }
        }
        sinceSlowSplice += 1
        if lastSeam == nil && owedFrames != 0 && slowSpliceInterval > 0 && sinceSlowSplice >= slowSpliceInterval
            && pending >= FrameStretch.crossFadeFrames + 2 {
            splice(owedFrames > 0 ? 1 : -1, slow: true)
            sinceSlowSplice = 0
        }
        if abs(debt) > fallbackFrames {
            splice(debt > 0 ? debt - fallbackFrames : debt + fallbackFrames, silence: false)
        }
        let count = pending - min(keep, pending)  // a splice may have shortened pending
        precondition(out.count >= count * channels, "TimeStretch: output buffer too small")
        store.withUnsafeBufferPointer { s in
            out.baseAddress!.update(from: s.baseAddress! + historyCapacity * channels, count: count * channels)
        }
        handOut(count)
        return count
    }

    // MARK: internals

    /// The first `count` pending frames were handed out: they become the newest history, and
    /// pending moves back to start at `historyCapacity` (the layout's invariant).
    mutating func handOut(_ count: Int) {
        guard count > 0 else { return }
        precondition(count <= pending, "TimeStretch: handOut")
        let h = historyCapacity, c = channels
        let keepHistory = min(h, history + count)
        store.withUnsafeMutableBufferPointer { s in
            let base = s.baseAddress!
            // The new history is the frames just before index h + count; shift everything left by `count`.
            let from = h + count - keepHistory
            let move = keepHistory + (pending - count)
            (base + (h - keepHistory) * c).update(from: base + from * c, count: move * c)  // memmove
        }
        history = keepHistory
        pending -= count
    }

    func isSilent() -> Bool {
        let n = pending * channels
        let e = store.withUnsafeBufferPointer { s in Self.dot(s.baseAddress! + historyCapacity * channels, s.baseAddress! + historyCapacity * channels, n) }
        return e <= silenceRMS * silenceRMS * Float(n)
    }

    /// Is the audio without a pitch (noise)? A backward search over the whole lag range through
    /// the history (no look-ahead needed) judges it: its best peak below `aperiodicThreshold`.
    /// Judged at every pull no verdict holds, debt or not, so "aperiodic" needs that in
    /// `aperiodicConfirmPulls` pulls in a row; a verdict holds for `verdictHoldPulls` pulls.
    /// Without enough history, with a level that changed more than 4× (6 dB) across the range,
    /// or before the confirmation, it is "periodic" (the debt waits, as for any periodic audio)
    /// and judged again at the next pull.
    mutating func isAperiodic() -> Bool {
        if verdictPulls > 0 { return aperiodic }
        guard history >= correlationWindow - window + maxLag + 1, pending >= window else { return false }
        _ = search(lags: minLag...(maxLag + 1), forward: false)
        // A low correlation against history that is much quieter or louder (a fade, a pause, the
        // first audio after quiet) says nothing about pitch: no verdict yet, the debt waits.
        let c = analysisStride, n = correlationWindow * c
        let (recent, oldest) = withAnalysis { s in
            let a = s + (historyCapacity + window - correlationWindow) * c
            let b = a - (maxLag + 1) * c
            return (Self.dot(a, a, n), Self.dot(b, b, n))
        }
        if lastCorrelation < aperiodicThreshold && (recent < oldest / 4 || oldest < recent / 4) { return false }
        if lastCorrelation >= aperiodicThreshold {
            pitchlessRun = 0
        } else {
            pitchlessRun += 1
            if pitchlessRun < aperiodicConfirmPulls { return false }
        }
        aperiodic = lastCorrelation < aperiodicThreshold
        verdictPulls = verdictHoldPulls
        return aperiodic
    }

    /// Does the audio just played repeat at `lag` as well (the window `a` against `a − lag`, ≥ the
    /// threshold)? A removal's lag must fit both ways: when the look-ahead cuts the forward search
    /// short of the true period (a chord's 18 ms), a shorter lag can pass 0.9 ahead by chance
    /// and would move some note's phase; the true period fits behind too. Without the history
    /// to judge, yes. One dot product and two energies.
    func fitsBackward(_ lag: Int) -> Bool {
        guard history >= correlationWindow - window + lag else { return true }
        let c = analysisStride, n = correlationWindow * c
        let r: Float = withAnalysis { s in
            let a = s + (historyCapacity + window - correlationWindow) * c
            let b = a - lag * c
            let ea = Self.dot(a, a, n), eb = Self.dot(b, b, n)
            return ea > 0 && eb > 0 ? Self.dot(a, b, n) / (ea * eb).squareRoot() : 0
        }
        return r >= correlationThreshold
    }

    /// The pitch lag at the seam: normalised cross-correlation of the window `a` (ending where
    /// the crossfade ends) with the window `lag` frames ahead (`forward`) or back, for every lag
    /// in `lags`; among its peaks (a lag better than both neighbours, so the range's ends never
    /// count) at or above the threshold, the shortest within `peakTolerance` of the best — the
    /// true period or its smallest good multiple, not a lag on the slope of a longer one.
    /// - Returns: that lag, or nil when no peak reaches the threshold (`lastCorrelation` holds
    ///   the best peak, −1 when there was none).
    mutating func search(lags: ClosedRange<Int>, forward: Bool) -> Int? {
        counters.searches += 1
        fillAnalysis()
        let c = analysisStride, n = correlationWindow * c
        let first = lags.lowerBound
        let start = historyCapacity + window - correlationWindow
        // The analysed samples: `store` itself (≤ 2 channels) or the loudest channel's copy.
        func correlate(_ s: UnsafePointer<Float>, _ r: UnsafeMutableBufferPointer<Float>) {
            let a = s + start * c
            let ea = Self.dot(a, a, n)
            var eb: Float = 0
            for lag in lags {
                let b = forward ? a + lag * c : a - lag * c
                if (lag - first) % 64 == 0 {
                    eb = Self.dot(b, b, n)  // exact now and then; slid in between
                } else if forward {  // b moved one frame later
                    let gone = b - c, new = b + n - c
                    eb += Self.dot(new, new, c) - Self.dot(gone, gone, c)
                } else {  // b moved one frame earlier
                    let gone = b + n
                    eb += Self.dot(b, b, c) - Self.dot(gone, gone, c)
                }
                r[lag - first] = ea > 0 && eb > 0 ? Self.dot(a, b, n) / (ea * eb).squareRoot() : 0
            }
        }
        if channels > 2 {
            analysis.withUnsafeBufferPointer { s in correlation.withUnsafeMutableBufferPointer { correlate(s.baseAddress!, $0) } }
        } else {
            store.withUnsafeBufferPointer { s in correlation.withUnsafeMutableBufferPointer { correlate(s.baseAddress!, $0) } }
        }
        var best: Float = -1
        for i in 1..<(lags.count - 1) where correlation[i] > correlation[i - 1] && correlation[i] >= correlation[i + 1] {
            best = max(best, correlation[i])
        }
        lastCorrelation = best
        guard best >= correlationThreshold else {
            counters.lowCorrelation += 1
            return nil
        }
        for i in 1..<(lags.count - 1) where correlation[i] > correlation[i - 1] && correlation[i] >= correlation[i + 1]
            && correlation[i] >= best - Self.peakTolerance {
            return first + i
        }
        return nil
    }

    /// Floats per frame of what the searches analyse: all channels up to stereo, else one.
    var analysisStride: Int { channels > 2 ? 1 : channels }

    /// The analysed samples from frame 0 (`analysisStride` floats per frame).
    func withAnalysis<R>(_ body: (UnsafePointer<Float>) -> R) -> R {
        channels > 2 ? analysis.withUnsafeBufferPointer { body($0.baseAddress!) } : store.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// More than two channels: copies the channel with the most energy over the correlation
    /// window into `analysis`, over every frame a search, its sliding energies, the backward check
    /// and the verdict's energies read (the window ± `maxLag + 2`).
    mutating func fillAnalysis() {
        guard channels > 2 else { return }
        let c = channels, start = historyCapacity + window - correlationWindow
        let lo = max(0, start - maxLag - 2), hi = min(store.count / c, start + correlationWindow + maxLag + 2)
        store.withUnsafeBufferPointer { s in
            analysis.withUnsafeMutableBufferPointer { m in
                var loudest = 0, most: Float = -1
                for ch in 0..<c {
                    var e: Float = 0
                    for f in start..<(start + correlationWindow) { let v = s[f * c + ch]; e += v * v }
                    if e > most { most = e; loudest = ch }
                }
                for f in lo..<hi { m[f] = s[f * c + loudest] }
            }
        }
    }

    /// How far below the best peak a shorter lag's peak may be and still be taken.
    static let peakTolerance: Float = 0.005

    /// Removes `lag` frames at the seam: `xfade(x[s+j] → x[s+lag+j]) ‖ x[s+lag+W...]`.
    mutating func accelerate(_ lag: Int) {
        precondition(lag + window < pending, "TimeStretch: accelerate \(lag) of \(pending)")
        let c = channels, w = window, h = historyCapacity
        store.withUnsafeMutableBufferPointer { s in
            let x = s.baseAddress! + h * c
            for j in 0..<w {
                let t = Float(j + 1) / Float(w + 1)
                for k in 0..<c { x[j * c + k] = x[j * c + k] * (1 - t) + x[(lag + j) * c + k] * t }
            }
            (x + w * c).update(from: x + (lag + w) * c, count: (pending - lag - w) * c)  // memmove
        }
        pending -= lag
        settle(lag)
        counters.accelerations += 1
        counters.removedFrames += lag
        lastSeam = (0, w)
    }

    /// Inserts `lag` frames at the seam: `xfade(x[s+j] → x[s−lag+j]) ‖ x[s−lag+W..<s] ‖ x[s...]`.
    mutating func expand(_ lag: Int) {
        precondition(lag <= history && pending + lag <= scratch.count / channels
                     && (historyCapacity + pending + lag) * channels <= store.count, "TimeStretch: expand \(lag) of \(pending)")
        let c = channels, w = window, h = historyCapacity, p = pending
        store.withUnsafeMutableBufferPointer { s in
            scratch.withUnsafeMutableBufferPointer { t in
                let x = s.baseAddress! + h * c, y = t.baseAddress!
                for j in 0..<w {
                    let g = Float(j + 1) / Float(w + 1)
                    for k in 0..<c { y[j * c + k] = x[j * c + k] * (1 - g) + x[(j - lag) * c + k] * g }
                }
                // x[s−lag+W ..< s+p]: the repeated stretch, then everything pending (may overlap the crossfade's source)
                (y + w * c).update(from: x + (w - lag) * c, count: (lag - w + p) * c)
                x.update(from: y, count: (p + lag) * c)
            }
        }
        pending += lag
        settle(-lag)
        counters.expansions += 1
        counters.insertedFrames += lag
        lastSeam = (0, w)
    }

    /// A seam changed the length by `frames` (> 0 removed, < 0 inserted) against the debt. What
    /// it did beyond the debt is kept as `overshoot` when the command was at its rate limit (the
    /// jitter buffer cannot ask for less there, so a forgotten overshoot would let the delay fall
    /// faster than the limit allows and leave less of it for the next stall); otherwise only the
    /// part that took the delay past the target is kept, and the jitter buffer, judging the
    /// delay after what is owed, sees the rest and asks for less.
    mutating func settle(_ frames: Int) {
        let left = debt + frames
        guard (debt <= 0 && left > 0) || (debt >= 0 && left < 0) else {
            debt = left
            return
        }
        debt = 0
        if commandAtLimit {
            overshoot += left
        } else if left > 0 {
            overshoot += max(0, left - max(0, delayError))
        } else {
            overshoot += min(0, left - min(0, delayError))
        }
    }

    /// A plain splice of `frames` (< 0 drop, > 0 repeat) over the pending audio (`FrameStretch`),
    /// as much as fits; counted as near-silence, no pitch (`aperiodic`) or past the bound.
    mutating func splice(_ frames: Int, silence: Bool = false, aperiodic: Bool = false, slow: Bool = false) {
        let limit = (pending - FrameStretch.crossFadeFrames) / 2  // the whole 64-frame fade fits
        guard limit > 0 else { return }
        let d = max(-limit, min(limit, frames))
        guard d != 0 else { return }
        precondition((historyCapacity + pending + max(0, d)) * channels <= store.count, "TimeStretch: splice \(d) of \(pending)")
        let c = channels, h = historyCapacity, p = pending
        let n = store.withUnsafeMutableBufferPointer { s in
            FrameStretch.apply(d, to: UnsafeMutableBufferPointer(rebasing: s[(h * c)...]), frames: p, channels: c)
        }
        let fade = min(FrameStretch.crossFadeFrames, p - 2 * abs(d))
        lastSeam = (max(abs(d), (p - abs(d) - fade) / 2), fade)
        pending = n
        if debt != 0 { debt -= d } else { overshoot -= d }  // at most one of them is owed
        if silence {
            counters.silenceSplicedFrames += abs(d)
        } else if aperiodic {
            counters.aperiodicSplicedFrames += abs(d)
        } else if slow {
            counters.slowSplicedFrames += abs(d)
        } else {
            counters.fallbackSplicedFrames += abs(d)
        }
    }

    /// Σ a[i]·b[i] over `n` floats, eight at a time.
    @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
        var acc = SIMD8<Float>()
        var i = 0
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        while i + 8 <= n {
            acc += ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self) * rb.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        var sum = acc.sum()
        while i < n {
            sum += a[i] * b[i]
            i += 1
        }
        return sum
    }
}

extension TimeStretch: Sendable {}
