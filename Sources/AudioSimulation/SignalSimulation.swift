import Audio
import Foundation

/// The jitter buffer with real samples (issue 22): a `TestSignal` sent as 5 ms packets over an
/// `AudioTrace`, the adaptive `AudioJitterBuffer` deciding each period, the period's PCM made as
/// the sink makes it (packet → its samples; RED recovery → the lost packet's samples; PLC → an
/// ideal concealment that continues the signal; quiet → zeros; fades), then stretched by one of
/// two `Method`s, and a DAC that takes what was handed out at 48000 × (1 + ppm·10⁻⁶) frames/s.
/// Like `AudioSimulation` a period's poll happens when the previous output has played; frames the
/// stretcher holds back count toward the poll's time (the period plays after them), its debt
/// toward the time the jitter buffer judges (as `AudioOutput` does: the delay once the owed
/// stretch is paid), and a pull that hands out nothing is followed by the next poll at once.
/// Pure numbers, seeded.
///
/// Measured:
/// - added playout delay per played packet (as `AudioSimulation`) and concealed periods;
/// - *pitch during catch-up*: the output is cut into 1 s windows; a window counts when the
///   jitter buffer asked for ≥ 100 frames of drops/repeats while it played and every period in
///   it was a played packet (no PLC, quiet or fade). The fundamental's frequency offset in the
///   window is the slope of its phase: demodulate by the input's fundamental, Hann-weighted
///   blocks (100 ms below 500 Hz so a chord's other notes fall outside, 10 ms below 4 kHz, 2 ms
///   above), unwrap, weighted least squares. Reported as |offset| / fundamental, %;
/// - *seam jump*: the largest sample-to-sample step inside any seam (the crossfade of a pitch
///   seam, the splice region of a plain splice) over the largest step of the input itself (1.0:
///   no step larger than the signal's own); judged only where the input itself ran on without a
///   break (played packets in order, no fade) for all the audio the stretcher held and 25 ms
///   before it — a packet the jitter buffer skipped is a step the stretcher did not make.
public enum SignalSimulation {
    public enum Method: Sendable, Equatable {
        /// Today's `FrameStretch`: each period's 1–2 frames spliced with a 64-frame cross-fade.
        case splice
        /// `TimeStretch`: whole pitch periods, accelerate / preemptive expand.
        case pitch
    }

    public struct Result: Sendable {
        public var delaysNs: [Int64] = []
        public var periodsAfterStart = 0
        public var concealed = 0
        /// Relative pitch offsets (|Δf| / f) of the judged windows.
        public var pitchErrors: [Double] = []
        public var seamSteps: [Float] = []
        public var naturalStep: Float = 0
        public var commandedFrames = 0
        public var stretch = TimeStretch.Counters()
        public var splicedFrames = 0
        /// Time spent in `TimeStretch.pull` / `FrameStretch.apply`, worst single call, ns (bench only).
        public var worstPullNs: UInt64 = 0

        public init() {}

        public var concealedPercent: Double { periodsAfterStart == 0 ? 0 : Double(concealed) / Double(periodsAfterStart) * 100 }
        /// Nearest-rank percentile of the delay, ms.
        public func delayPercentileMs(_ q: Double) -> Double {
            Double(Percentile.nearestRank(delaysNs, q)) / 1e6
        }
        /// Largest / mean pitch offset over the judged windows, %.
        public var pitchErrorMaxPercent: Double { (pitchErrors.max() ?? 0) * 100 }
        public var pitchErrorMeanPercent: Double { pitchErrors.isEmpty ? 0 : pitchErrors.reduce(0, +) / Double(pitchErrors.count) * 100 }
        /// Largest seam step over the input's largest step.
        public var seamJumpRatio: Double { naturalStep > 0 ? Double(seamSteps.max() ?? 0) / Double(naturalStep) : 0 }

        public mutating func merge(_ o: Result) {
            delaysNs += o.delaysNs
            periodsAfterStart += o.periodsAfterStart
            concealed += o.concealed
            pitchErrors += o.pitchErrors
            seamSteps += o.seamSteps
            naturalStep = max(naturalStep, o.naturalStep)
            commandedFrames += o.commandedFrames
            stretch.accelerations += o.stretch.accelerations
            stretch.expansions += o.stretch.expansions
            stretch.removedFrames += o.stretch.removedFrames
            stretch.insertedFrames += o.stretch.insertedFrames
            stretch.silenceSplicedFrames += o.stretch.silenceSplicedFrames
            stretch.fallbackSplicedFrames += o.stretch.fallbackSplicedFrames
            stretch.aperiodicSplicedFrames += o.stretch.aperiodicSplicedFrames
            stretch.slowSplicedFrames += o.stretch.slowSplicedFrames
            stretch.searches += o.stretch.searches
            stretch.lowCorrelation += o.stretch.lowCorrelation
            splicedFrames += o.splicedFrames
            worstPullNs = max(worstPullNs, o.worstPullNs)
        }
    }

    static let frames = 240
    static let windowFrames = 48_000

    /// Runs `signal` over `trace` with `method`. `clock` (bench only) times each stretch call.
    public static func run(_ trace: AudioTrace, signal: TestSignal, method: Method, phaseSeed: UInt64,
                           clock: (() -> UInt64)? = nil) -> Result {
        let s = trace.scenario
        var rng = TraceRandom(seed: phaseSeed ^ 0x5EED_DAC0)
        var r = Result()
        let rate = 48_000.0 * (1 + s.dacPpm * 1e-6)
        let dacStart = (trace.sendNs.first ?? 0) + rng.uniform(0...(AudioTrace.frameNs - 1))
        let endNs = (trace.sendNs.last ?? 0) + s.baseDelayNs
        var buffer = AudioJitterBuffer<UInt32>()
        var stretcher = TimeStretch(channels: 2, maxPushFrames: frames + 8)
        var period = [Float](repeating: 0, count: (frames + 8) * 2)
        var out = [Float](repeating: 0, count: stretcher.maxPullFrames * 2)
        var emitted = 0.0
        var k = 0
        var cursor: Int64 = 0             // next source sample an ideal concealment continues from
        var started = false
        var sourceEnd: Int64 = -1         // next sample of an unbroken input
        var unbroken = 0                  // frames of unbroken input up to the last period
        var lastOut: (Float, Float) = (0, 0)
        var analysis = WindowAnalysis(fundamentalHz: signal.fundamentalHz)
        // The input's own largest step (first second of the signal, and every speech/noise shape in it).
        for t in Int64(1)..<Int64(96_000) { r.naturalStep = max(r.naturalStep, abs(signal.sample(t) - signal.sample(t - 1))) }

        while true {
            let wall = dacStart + Int64((emitted * 1e9 / rate).rounded())
            if wall > endNs { break }
            while k < trace.arrivals.count && trace.arrivals[k].arrivalNs <= wall {
                let a = trace.arrivals[k]
                let flags: AudioPacketFlags = s.red && a.index > 0 ? [.carriesPrevious] : []
                _ = buffer.handlePacket(seq: trace.seq(a.index), ptsNs: UInt64(trace.sendNs[a.index]), payload: trace.seq(a.index),
                                        flags: flags, nowNs: UInt64(a.arrivalNs))
                k += 1
            }
            let held = method == .pitch ? stretcher.heldFrames : 0
            let playAt = wall + Int64((Double(held) * 1e9 / rate).rounded())
            // The jitter buffer judges the delay the period will have once the owed stretch is paid.
            let owed = method == .pitch ? Int64((Double(stretcher.owedFrames) * 1e9 / rate).rounded()) : 0
            let p = buffer.pollPlayout(nowNs: UInt64(playAt + owed))
            var isPlay = false
            var count = frames
            var renderedFrom: Int64 = -2
            period.withUnsafeMutableBufferPointer { pcm in
                switch p.step {
                case .play(let seq, _, _), .recover(let seq, _, _):
                    let index = Int64(seq &- s.firstSeq)
                    signal.render(from: index * Int64(frames), frames: frames, into: pcm)
                    renderedFrom = index * Int64(frames)
                    cursor = (index + 1) * Int64(frames)
                    isPlay = p.fade == .none
                    started = true
                    if case .play = p.step { r.delaysNs.append(playAt - (trace.sendNs[Int(index)] + s.baseDelayNs)) }
                case .conceal:
                    signal.render(from: cursor, frames: frames, into: pcm)
                    renderedFrom = cursor
                    cursor += Int64(frames)
                    r.concealed += 1
                case .silence:  // the signals have no DTX: quiet after playout started is concealment
                    pcm.baseAddress!.update(repeating: 0, count: frames * 2)
                    if started { r.concealed += 1 }
                }
                if started { r.periodsAfterStart += 1 }
                FrameStretch.fade(p.fade, pcm, frames: frames, channels: 2)
            }
            let pendingBefore = method == .pitch ? stretcher.heldFrames : 0
            unbroken = isPlay && renderedFrom == sourceEnd ? unbroken + frames : (isPlay ? frames : 0)
            sourceEnd = renderedFrom + Int64(frames)
            r.commandedFrames += abs(p.stretchFrames)
            analysis.note(commanded: abs(p.stretchFrames), clean: isPlay || !started)

            var seam: (Int, Int)?
            let t0 = clock?() ?? 0
            switch method {
            case .splice:
                let d = p.stretchFrames
                if d != 0 && count >= 2 * abs(d) + 2 {
                    count = period.withUnsafeMutableBufferPointer { FrameStretch.apply(d, to: $0, frames: frames, channels: 2) }
                    let fade = min(FrameStretch.crossFadeFrames, frames - 2 * abs(d))
                    seam = (max(abs(d), (frames - abs(d) - fade) / 2), fade)
                    r.splicedFrames += abs(d)
                }
                out.withUnsafeMutableBufferPointer { o in period.withUnsafeBufferPointer { o.baseAddress!.update(from: $0.baseAddress!, count: count * 2) } }
            case .pitch:
                period.withUnsafeBufferPointer { stretcher.push($0, frames: frames, stretch: p.stretchFrames,
                                                                    delayErrorFrames: Int(p.delayErrorNs * 48_000 / 1_000_000_000),
                                                                    atLimit: abs(p.stretchFrames) >= buffer.configuration.maxStretchFrames) }
                let queued = Int(buffer.contiguousNs * 48_000 / 1_000_000_000)
                count = out.withUnsafeMutableBufferPointer { stretcher.pull(into: $0, lookaheadFrames: queued) }
                seam = stretcher.lastSeam.map { ($0.offset, $0.length) }
            }
            if let clock { r.worstPullNs = max(r.worstPullNs, clock() &- t0) }

            out.withUnsafeBufferPointer { o in
                if let (offset, length) = seam, unbroken >= pendingBefore + frames + 1_200, max(0, offset - 1) < min(count, offset + length + 1) {
                    var worst: Float = 0
                    for i in max(0, offset - 1)..<min(count, offset + length + 1) {
                        let (pl, pr) = i == 0 ? lastOut : (o[2 * i - 2], o[2 * i - 1])
                        worst = max(worst, abs(o[2 * i] - pl), abs(o[2 * i + 1] - pr) / 0.6)
                    }
                    r.seamSteps.append(worst)
                }
                if count > 0 { lastOut = (o[2 * count - 2], o[2 * count - 1]) }
                analysis.add(o, frames: count, r: &r)
            }
            emitted += Double(count)
        }
        if method == .pitch { r.stretch = stretcher.counters }
        return r
    }
}

/// The 1 s analysis windows of `SignalSimulation` (left channel).
struct WindowAnalysis {
    let f0: Double?
    var samples: [Float]
    var filled = 0
    var commanded = 0
    var clean = true
    /// Absolute index of the window's first output sample.
    var start: Int64 = 0

    init(fundamentalHz: Double?) {
        f0 = fundamentalHz
        samples = [Float](repeating: 0, count: SignalSimulation.windowFrames)
    }

    mutating func note(commanded c: Int, clean ok: Bool) {
        commanded += c
        if !ok { clean = false }
    }

    mutating func add(_ o: UnsafeBufferPointer<Float>, frames: Int, r: inout SignalSimulation.Result) {
        var i = 0
        while i < frames {
            let n = min(frames - i, samples.count - filled)
            for j in 0..<n { samples[filled + j] = o[2 * (i + j)] }
            filled += n
            i += n
            if filled == samples.count {
                if let f0, clean, commanded >= 100, let e = Self.offset(samples, f0: f0) { r.pitchErrors.append(abs(e)) }
                start += Int64(filled)
                filled = 0
                commanded = 0
                clean = true
            }
        }
    }

    /// Relative frequency offset of `f0` in `x` (phase slope of the demodulated blocks); nil when
    /// too little of the window carries it.
    static func offset(_ x: [Float], f0: Double) -> Double? {
        let block = f0 < 500 ? 4_800 : f0 < 4_000 ? 480 : 96
        let rate = TestSignal.sampleRate
        var phases: [(Double, Double)] = []  // (phase, weight)
        var b = 0
        while b + block <= x.count {
            var re = 0.0, im = 0.0
            for i in 0..<block {
                let w = 0.5 - 0.5 * cos(2 * Double.pi * (Double(i) + 0.5) / Double(block))
                let arg = 2 * Double.pi * f0 * Double(b + i) / rate
                re += w * Double(x[b + i]) * cos(arg)
                im -= w * Double(x[b + i]) * sin(arg)
            }
            phases.append((atan2(im, re), (re * re + im * im).squareRoot()))
            b += block
        }
        guard let top = phases.map({ $0.1 }).max(), top > 0 else { return nil }
        // Unwrap, keeping only blocks that carry the fundamental (≥ 10 % of the strongest).
        var xs: [Double] = [], ys: [Double] = [], ws: [Double] = []
        var last: Double?
        var turns = 0.0
        for (k, (ph, w)) in phases.enumerated() where w >= 0.1 * top {
            var v = ph + turns
            if let l = last {
                while v - l > Double.pi { v -= 2 * Double.pi; turns -= 2 * Double.pi }
                while v - l < -Double.pi { v += 2 * Double.pi; turns += 2 * Double.pi }
            }
            last = v
            xs.append(Double(k)); ys.append(v); ws.append(w)
        }
        guard xs.count >= max(4, phases.count / 2) else { return nil }
        let sw = ws.reduce(0, +)
        let mx = zip(xs, ws).map { $0 * $1 }.reduce(0, +) / sw
        let my = zip(ys, ws).map { $0 * $1 }.reduce(0, +) / sw
        var num = 0.0, den = 0.0
        for i in xs.indices {
            num += ws[i] * (xs[i] - mx) * (ys[i] - my)
            den += ws[i] * (xs[i] - mx) * (xs[i] - mx)
        }
        guard den > 0 else { return nil }
        let slope = num / den  // rad per block
        return slope / (2 * Double.pi * Double(block)) * rate / f0
    }
}
