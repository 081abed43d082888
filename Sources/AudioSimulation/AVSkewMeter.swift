import Audio

/// A/V skew of marker pairs, by the client pipeline's own clocks (issue 22 item 3). Every time is
/// ns of the client's CLOCK_MONOTONIC; capture times are the host's stamps mapped onto it.
///
/// An audio marker is one packet (pf-testhost's `--audio-marker-every` burst) with its capture
/// time and the instant its first sample leaves the device; a video marker is one picture with
/// its capture time and the instant it reaches glass (or what stands in for glass). A pair is an
/// audio marker and the video marker of the nearest capture time, within `toleranceNs`.
/// `skew = (audio out − audio capture) − (video glass − video capture)`: > 0 audio late, the sign
/// `AVSyncControl` uses. Pure.
public struct AVSkewMeter: Sendable {
    public struct Mark: Sendable, Equatable {
        public var captureNs: Int64
        public var outNs: Int64
        public init(captureNs: Int64, outNs: Int64) { self.captureNs = captureNs; self.outNs = outNs }
        public var latencyNs: Int64 { outNs - captureNs }
    }

    /// p50/p95 of the signed skew and the largest |skew|, ns, over `pairs` pairs.
    public struct Summary: Sendable, Equatable {
        public var pairs: Int
        public var unpaired: Int
        public var p50Ns: Int64
        public var p95Ns: Int64
        public var maxAbsNs: Int64
        /// Pairs within ±`aimNs`.
        public var withinAim: Int
    }

    public var toleranceNs: Int64
    public private(set) var audio: [Mark] = []
    public private(set) var video: [Mark] = []

    public init(toleranceNs: Int64 = 2_000_000) { self.toleranceNs = toleranceNs }

    public mutating func noteAudioMarker(captureNs: Int64, outNs: Int64) { audio.append(Mark(captureNs: captureNs, outNs: outNs)) }
    public mutating func noteVideoMarker(captureNs: Int64, glassNs: Int64) { video.append(Mark(captureNs: captureNs, outNs: glassNs)) }

    /// One skew per audio marker that has a video marker within `toleranceNs`, in audio order.
    public func skews() -> [Int64] {
        let v = video.sorted { $0.captureNs < $1.captureNs }
        var out: [Int64] = []
        out.reserveCapacity(audio.count)
        for a in audio {
            // Binary search for the first video capture ≥ the audio's, then the nearer neighbour.
            var lo = 0, hi = v.count
            while lo < hi { let mid = (lo + hi) / 2; if v[mid].captureNs < a.captureNs { lo = mid + 1 } else { hi = mid } }
            var best: Mark?
            for i in [lo - 1, lo] where i >= 0 && i < v.count {
                if best == nil || abs(v[i].captureNs - a.captureNs) < abs(best!.captureNs - a.captureNs) { best = v[i] }
            }
            guard let b = best, abs(b.captureNs - a.captureNs) <= toleranceNs else { continue }
            out.append(a.latencyNs - b.latencyNs)
        }
        return out
    }

    /// nil without a single pair.
    public func summary(aimNs: Int64 = 20_000_000) -> Summary? {
        let s = skews()
        guard !s.isEmpty else { return nil }
        return Summary(pairs: s.count, unpaired: audio.count - s.count,
                       p50Ns: Percentile.roundedIndex(s, 0.5), p95Ns: Percentile.roundedIndex(s, 0.95),
                       maxAbsNs: s.map { abs($0) }.max()!, withinAim: s.filter { abs($0) <= aimNs }.count)
    }

    /// The first vblank at or after `ns` on a grid of `periodNs` through `phaseNs`: the headless
    /// stand-in for a picture's flip (the pacer commits at most one flip per refresh, and a
    /// picture decoded between two vblanks reaches glass at the next one).
    public static func nextVblank(atOrAfter ns: Int64, phaseNs: Int64, periodNs: Int64) -> Int64 {
        let k = (ns - phaseNs + periodNs - 1) / periodNs
        return phaseNs + max(0, k) * periodNs
    }

    /// One received audio packet: sequence number, host pts (only its spacing matters to the
    /// buffer) and arrival, ns of the client's clock.
    public struct Arrival: Sendable, Equatable {
        public var seq: UInt32
        public var ptsNs: UInt64
        public var arrivalNs: Int64
        public init(seq: UInt32, ptsNs: UInt64, arrivalNs: Int64) { self.seq = seq; self.ptsNs = ptsNs; self.arrivalNs = arrivalNs }
    }

    /// The sink's delay model without a device: `AudioJitterBuffer` (the sink's own) is asked for
    /// each period at the instant that period starts leaving the device — what the sink computes
    /// as wake + `snd_pcm_delay` — on a DAC clock of 48 kHz from `dacStartNs`, 240 frames plus the
    /// period's stretch. The sink wakes `deviceDelayNs` before that instant (with its starting
    /// 2 × 5 ms device buffer it refills when one period is left: 5 ms), so only packets that
    /// arrived by the wake take part. With `videoLatencyNs`, once a second `AVSyncControl` sets the buffer's
    /// delay floor from the newest played packet's latency, as `AudioOutput` does.
    /// - Returns: per played (or RED-recovered) sequence number, the instant its period starts
    ///   leaving the device.
    public static func deviceOutTimes(_ arrivals: [Arrival], dacStartNs: Int64, endNs: Int64,
                                      captureNs: (UInt32) -> Int64?, videoLatencyNs: Int64?,
                                      deviceDelayNs: Int64 = 5_000_000, configuration: JitterConfiguration = .init()) -> [UInt32: Int64] {
        let sorted = arrivals.sorted { $0.arrivalNs < $1.arrivalNs }
        var buffer = AudioJitterBuffer<UInt32>(configuration)
        var sync = AVSyncControl()
        var lastSync = Int64.min
        var out: [UInt32: Int64] = [:]
        var emitted = 0.0
        var k = 0
        let rate = Double(configuration.sampleRate)
        while true {
            let now = dacStartNs + Int64((emitted * 1e9 / rate).rounded())
            if now > endNs { break }
            while k < sorted.count && sorted[k].arrivalNs <= now - deviceDelayNs {
                let a = sorted[k]
                _ = buffer.handlePacket(seq: a.seq, ptsNs: a.ptsNs, payload: a.seq, flags: [], nowNs: UInt64(a.arrivalNs))
                k += 1
            }
            let p = buffer.pollPlayout(nowNs: UInt64(now))
            switch p.step {
            case .play(let seq, _, _), .recover(let seq, _, _):
                out[seq] = now
                if let video = videoLatencyNs, let cap = captureNs(seq), now >= lastSync &+ 1_000_000_000 {
                    lastSync = now
                    sync.update(audioLatencyNs: now - cap, videoLatencyNs: video)
                    buffer.delayFloorNs = sync.floorNs
                }
            default: break
            }
            emitted += Double(configuration.frameSamples + p.stretchFrames)
        }
        return out
    }
}
