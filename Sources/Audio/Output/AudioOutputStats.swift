/// What the sink reports (issue 13 item 6), a snapshot the sink thread publishes every 100 ms.
/// Times in ns.
public struct AudioOutputStats: Sendable, Equatable {
    /// The device playing (or being reopened).
    public var device = ""
    /// The device is open and playing.
    public var open = false
    /// Granted period and buffer, frames; the sample format (`S32_LE`/`S16_LE`).
    public var periodFrames = 0
    public var bufferFrames = 0
    public var sampleFormat = ""
    /// The jitter buffer's figures (queued, delay, target, concealment, loss).
    public var jitter = JitterStats()
    /// Frames queued in the device at the last wake, as ns.
    public var deviceDelayNs: Int64 = 0
    /// Underruns recovered (`snd_pcm_recover` + prefill).
    public var xruns = 0
    /// Times the device was lost (vanished, error) and opened again; failed attempts.
    public var reopens = 0
    public var openFailures = 0
    /// Host capture → DAC of the newest packet played, on the client clock (nil before one played).
    public var latencyNs: Int64?
    /// Audio latency − video latency (nil until the video side reported one).
    public var skewNs: Int64?
    /// The delay floor A/V sync holds the jitter buffer at.
    public var syncFloorNs: Int64 = 0
    /// The sink thread's wake-up lateness, ns: how much of the period's room had drained before it
    /// woke to refill (max of the last second, and of the whole run).
    public var wakeLateMaxNs: Int64 = 0
    public var wakeLateMaxRunNs: Int64 = 0
    /// The longest concealment run (PLC periods in a row) of the last second, ns. Opus' PLC fades
    /// a run of more than a few periods towards quiet, so a gap in the sound without an underrun
    /// or a mute belongs to a run this long.
    public var concealRunMaxNs: Int64 = 0
    /// Datagrams refused before decoding (wrong kind for the session, oversize, inbox full) and
    /// payloads the decoder rejected (bad TOC, wrong channel count …), each skipped and concealed.
    public var rejectedPackets = 0
    public var malformedPackets = 0
    /// Output periods written.
    public var periods = 0
    /// What the drift/target control did to the PCM since the sink started (`TimeStretch`):
    /// whole pitch periods removed/inserted, and frames spliced (slowly while a debt waits, past
    /// the 10 ms bound, in near-silence, in audio without a pitch). Only a splice moves the pitch.
    public var stretch = TimeStretch.Counters()
    /// When the last 64 concealed periods (Opus' PLC) started playing at the DAC: where the sound
    /// is an estimate, not the stream (a check measuring the sound leaves those stretches out).
    public var concealedAt = RecentTimes()

    public init() {}

    /// The JSON members for the per-second stats line (`"audio":{…}`), no braces around the whole.
    /// `concealed` counts lost packets played as PLC or quiet (the same count as `lost`: every
    /// packet never played is concealed once); `recovered` those rebuilt from a 0xD2 copy, which
    /// are not lost.
    public var jsonMembers: String {
        func ms(_ ns: Int64) -> String { String(format: ns, digits: 3) }
        let latency = latencyNs.map(ms) ?? "null"
        let skew = skewNs.map(ms) ?? "null"
        return "\"open\":\(open),\"buffer_ms\":\(ms(jitter.queuedNs)),\"delay_ms\":\(ms(jitter.delayNs)),"
            + "\"target_ms\":\(ms(jitter.targetNs)),\"device_ms\":\(ms(deviceDelayNs)),\"concealed_ms\":\(ms(jitter.concealedNs)),"
            + "\"muted_ms\":\(ms(jitter.mutedNs)),\"lost\":\(jitter.lostPackets),\"concealed\":\(jitter.lostPackets),"
            + "\"recovered\":\(jitter.recoveredPackets),"
            + "\"late\":\(jitter.latePackets),\"xruns\":\(xruns),\"reopens\":\(reopens),\"latency_ms\":\(latency),"
            + "\"skew_ms\":\(skew),\"sync_floor_ms\":\(ms(syncFloorNs)),\"wake_late_max_ms\":\(ms(wakeLateMaxNs)),"
            + "\"conceal_run_max_ms\":\(ms(concealRunMaxNs)),"
            + "\"rejected\":\(rejectedPackets + malformedPackets),\"played\":\(jitter.playedPackets),"
            + "\"stretch\":{\"removed\":\(stretch.removedFrames),\"inserted\":\(stretch.insertedFrames),"
            + "\"slow_spliced\":\(stretch.slowSplicedFrames),\"fallback_spliced\":\(stretch.fallbackSplicedFrames),"
            + "\"quiet_spliced\":\(stretch.silenceSplicedFrames),\"aperiodic_spliced\":\(stretch.aperiodicSplicedFrames)},"
            + "\"concealed_at_ms\":[\(concealedAt.values.map { ms($0) }.joined(separator: ","))]"
    }

    /// The overlay's line: `audio 12.0/10.0 ms · concealed 5 ms · xruns 0 · skew +3 ms`.
    public var overlayLine: String {
        func ms(_ ns: Int64) -> String { String(format: ns, digits: 1) }
        let skew = skewNs.map { ($0 >= 0 ? "+" : "") + ms($0) + " ms" } ?? "n/a"
        guard open else { return "audio \(device): closed, reopens \(reopens)" }
        return "audio \(ms(jitter.queuedNs))/\(ms(jitter.targetNs)) ms · concealed \(ms(jitter.concealedNs)) ms · xruns \(xruns) · skew \(skew)"
    }
}

extension String {
    /// `ns` as milliseconds with `digits` decimals (no Foundation formatting).
    init(format ns: Int64, digits: Int) {
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        let tenths = (abs(ns) * scale + 500_000) / 1_000_000
        let whole = tenths / scale, frac = tenths % scale
        var fracText = String(frac)
        while fracText.count < digits { fracText = "0" + fracText }
        self = (ns < 0 ? "-" : "") + String(whole) + (digits > 0 ? "." + fracText : "")
    }
}
