import Foundation
import PunktfunkWire
import Synchronization
import SystemClock
internal import CPunktfunkLinux

/// Plays one session's audio on an ALSA device (issue 13 item 1): the pump thread hands each
/// audio datagram to `submit` (copied into `inbox`, no allocation), the sink's own thread moves
/// them into the jitter buffer, asks it for each period (`pollPlayout` at the time that period
/// will reach the DAC: now + `snd_pcm_delay`), decodes, stretches, fades, routes channels and
/// writes. Audio trouble stays here: an underrun is recovered (`snd_pcm_recover`, a fresh
/// prefill) and counted; a device that fails or vanishes is closed and reopened with backoff,
/// while the jitter buffer keeps its timeline; nothing here ends the stream.
///
/// Threads: `submit`, `setClockOffset`, `setVideoLatency`, `stats`, `stop` from any thread;
/// everything else runs on the sink thread (SCHED_FIFO `realtimePriority` when allowed).
public final class AudioOutput: @unchecked Sendable {
    public struct Settings: Sendable {
        /// `snd_pcm_open` name, and why it was chosen (the start-up line).
        public var device: String
        public var reason: String
        /// SCHED_FIFO priority of the sink thread: below the present thread's 10 (0: SCHED_OTHER).
        public var realtimePriority: Int32 = 5
        /// Frames per period asked of the device: one 5 ms packet at 48 kHz.
        public var periodFrames = 240
        /// Periods in the device buffer to begin with; raised (and the device reopened) after
        /// repeated underruns, up to `maxPeriods`.
        public var periods = 2
        public var maxPeriods = 8
        /// Reopen backoff after a device failure: doubles from `minBackoffNs` to `maxBackoffNs`.
        public var minBackoffNs: UInt64 = 100_000_000
        public var maxBackoffNs: UInt64 = 3_000_000_000
        /// Channels the device plays (`AudioChannelCapability`); nil: as many as the stream has.
        /// Fewer than the stream's: the stream is folded down (`ChannelDownmix`) and the device
        /// opened with 6 or 2.
        public var deviceChannels: Int?

        public init(device: String, reason: String) { self.device = device; self.reason = reason }
    }

    public let settings: Settings
    public let format: AudioStreamFormat
    public let inbox = AudioInbox()
    /// Start-up, device and underrun lines (sink thread); stderr by default.
    public var onLine: @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data("punktfunk-kiosk: \(line)\n".utf8)) }

    private let running = Atomic<Bool>(false)
    private let clockOffsetNs = Atomic<Int64>(0)
    /// Video latency (capture → glass/decode), ns; Int64.min until known.
    private let videoLatencyNs = Atomic<Int64>(Int64.min)
    private let rejected = Atomic<Int>(0)
    private let published = Mutex(AudioOutputStats())
    private let finished = DispatchSemaphore(value: 0)
    private var thread: Thread?

    /// - Throws: `AudioError` when the stream's format cannot be decoded.
    public init(format: AudioStreamFormat, settings: Settings) throws(AudioError) {
        try format.validate()
        self.format = format
        self.settings = settings
    }

    // MARK: any thread

    /// Pump thread: one audio datagram, received at `arrivalNs` (CLOCK_MONOTONIC). Packets of
    /// the wrong kind for the session (PCM on an Opus session, pad audio, mic) are counted and
    /// skipped.
    public func submit(_ packet: AudioPacket, arrivalNs: UInt64) {
        let isOpus: Bool
        if case .opus = format { isOpus = true } else { isOpus = false }
        switch (packet, isOpus) {
        case (.opus(let f), true), (.pcm(let f), false):
            f.payload.withUnsafeBytes { p in
                if !inbox.push(seq: f.seq, ptsNs: f.ptsNs, arrivalNs: arrivalNs, primary: p) { rejected.add(1, ordering: .relaxed) }
            }
        case (.redundant(let f), true):
            f.primary.withUnsafeBytes { p in
                f.previous.withUnsafeBytes { q in
                    if !inbox.push(seq: f.seq, ptsNs: f.ptsNs, arrivalNs: arrivalNs, primary: p, previous: q) { rejected.add(1, ordering: .relaxed) }
                }
            }
        default:
            rejected.add(1, ordering: .relaxed)
        }
    }

    /// Host − client clock offset, ns (the session's, after each re-sync).
    public func setClockOffset(_ ns: Int64) { clockOffsetNs.store(ns, ordering: .relaxed) }
    /// The video's capture → glass (or decode) latency, ns, for A/V sync.
    public func setVideoLatency(_ ns: Int64) { videoLatencyNs.store(ns, ordering: .relaxed) }

    /// The newest snapshot (refreshed every 100 ms by the sink thread).
    public var stats: AudioOutputStats {
        var s = published.withLock { $0 }
        s.rejectedPackets = rejected.load(ordering: .relaxed)
        return s
    }

    public func start() {
        running.store(true, ordering: .relaxed)
        let t = Thread { [self] in
            let sink = Sink(self)
            sink.run()
            finished.signal()
        }
        t.name = "audio"
        t.stackSize = 1 << 20
        thread = t
        t.start()
    }

    /// Ends playback and waits for the sink thread (within ~100 ms: its waits are bounded).
    public func stop() {
        guard thread != nil, running.exchange(false, ordering: .relaxed) else { return }
        finished.wait()
        thread = nil
    }

    fileprivate var isRunning: Bool { running.load(ordering: .relaxed) }
    fileprivate var offset: Int64 { clockOffsetNs.load(ordering: .relaxed) }
    fileprivate var videoLatency: Int64? {
        let v = videoLatencyNs.load(ordering: .relaxed)
        return v == Int64.min ? nil : v
    }
    fileprivate func publish(_ s: AudioOutputStats) { published.withLock { $0 = s } }
}

/// The sink thread's state: jitter buffer, decoder, packet store and PCM buffers, all allocated
/// before the loop.
private final class Sink {
    let owner: AudioOutput
    let settings: AudioOutput.Settings
    let decoder: AudioDecoder
    var jitter: AudioJitterBuffer<Int>
    let channels: Int
    /// Channels the device is opened with (≤ `channels`), and the fold onto them when fewer.
    let deviceChannels: Int
    let downmix: ChannelDownmix?
    let rate: Int
    let frameSamples: Int
    /// Packet bytes by jitter slot (`seq & (capacity − 1)`), with each slot's primary/previous lengths.
    let store: UnsafeMutableRawPointer
    var primaryLength: [Int]
    var previousLength: [Int]
    let mask: Int
    /// One period's PCM: decoded (wire order); after the time stretch (what plays now); routed,
    /// as Float; the device-format bytes.
    var decoded: [Float]
    var stretched: [Float]
    /// Pitch-preserving drops and repeats (`Playout.stretchFrames`), holding look-ahead frames.
    var stretch: TimeStretch
    /// Frames the last render handed out (fewer than a period: the next one is wanted at once).
    var lastEmitted = Int.max
    var routed: [Float]
    /// One period folded onto `deviceChannels` (wire order), when `downmix` is set.
    var mixed: [Float]
    var outBytes: [UInt8]
    /// Device-format frames of the current period not yet written, from `pendingOffset`.
    var pendingFrames = 0
    var pendingOffset = 0

    var pcm: AlsaPCM?
    var periods: Int
    var backoffNs: UInt64
    var reopenAtNs: UInt64 = 0
    var everOpened = false
    var stats = AudioOutputStats()
    var sync = AVSyncControl()
    var xrunTimes: [UInt64] = []
    var lastPublishNs: UInt64 = 0
    var lastSyncNs: UInt64 = 0
    var realtimeMinusMono: Int64 = MonotonicClock.realtimeMinusMonotonicNs()
    var waitTimeouts = 0
    /// The next period's start while no device is open (the idle timeline), ns.
    var idleNextNs: UInt64 = 0

    init(_ owner: AudioOutput) {
        self.owner = owner
        settings = owner.settings
        // The format was validated by AudioOutput.init.
        decoder = try! AudioDecoder(format: owner.format)
        channels = decoder.channels
        let outChannels = ChannelDownmix.outputChannels(stream: channels, device: settings.deviceChannels ?? channels)
        downmix = outChannels < channels ? ChannelDownmix(from: channels, to: outChannels) : nil
        deviceChannels = downmix?.outputChannels ?? channels
        rate = decoder.sampleRate
        var c = JitterConfiguration()
        c.sampleRate = rate
        c.frameSamples = rate / 200  // 5 ms packets on both planes
        jitter = AudioJitterBuffer(c)
        frameSamples = c.frameSamples
        mask = c.capacity - 1
        store = .allocate(byteCount: c.capacity * owner.inbox.slotBytes, alignment: 16)
        primaryLength = [Int](repeating: 0, count: c.capacity)
        previousLength = [Int](repeating: 0, count: c.capacity)
        stretch = TimeStretch(channels: channels, sampleRate: rate, maxPushFrames: decoder.maxFramesPerPacket)
        let maxFrames = stretch.maxPullFrames
        decoded = [Float](repeating: 0, count: decoder.maxFramesPerPacket * channels)
        stretched = [Float](repeating: 0, count: maxFrames * channels)
        routed = [Float](repeating: 0, count: maxFrames * channels)
        mixed = [Float](repeating: 0, count: downmix == nil ? 0 : maxFrames * channels)
        outBytes = [UInt8](repeating: 0, count: max(maxFrames, settings.periodFrames * settings.maxPeriods) * channels * 4)
        periods = settings.periods
        backoffNs = settings.minBackoffNs
        stats.device = settings.device
        xrunTimes.reserveCapacity(8)
    }

    deinit { store.deallocate() }

    func run() {
        let scheduling = SinkScheduling.raise(priority: settings.realtimePriority)
        defer { scheduling.restore() }
        let failure = open()
        let how = pcm.map { "\($0.periodFrames)-frame periods, \($0.bufferFrames)-frame buffer, \($0.format == .s32 ? "S32_LE" : "S16_LE"), \(describe($0.routing))" }
            ?? "not open yet (\(failure ?? "?")), retrying"
        owner.onLine("audio on \(settings.device) (\(settings.reason)): \(format()) · \(how) · \(scheduling.description)")
        while owner.isRunning {
            let now = MonotonicClock.nowNs()
            if pcm == nil {
                if now >= reopenAtNs, let failure = open() {
                    stats.openFailures += 1
                    reopenAtNs = now + backoffNs
                    if stats.openFailures <= 3 || stats.openFailures % 20 == 0 {
                        owner.onLine("audio device \(settings.device) cannot be opened (\(failure)); retrying in \(backoffNs / 1_000_000) ms")
                    }
                    backoffNs = min(settings.maxBackoffNs, backoffNs * 2)
                }
                if pcm == nil { idleTick(now) }
                continue
            }
            pump(now)
            publishIfDue()
        }
        pcm?.close()
        pcm = nil
        stats.open = false
        owner.publish(stats)
    }

    // MARK: device

    /// Opens the device and prefills it. - Returns: nil, or why it failed.
    @discardableResult
    func open() -> String? {
        do throws(AlsaPCM.Failure) {
            let device = try AlsaPCM(name: settings.device, channels: deviceChannels, rate: rate,
                                     periodFrames: settings.periodFrames, periods: periods)
            pcm = device
            if everOpened {
                stats.reopens += 1
                owner.onLine("audio device \(settings.device) open again (\(device.periodFrames)-frame periods, \(device.bufferFrames)-frame buffer)")
            }
            everOpened = true
            backoffNs = settings.minBackoffNs
            stats.open = true
            stats.periodFrames = device.periodFrames
            stats.bufferFrames = device.bufferFrames
            stats.sampleFormat = device.format == .s32 ? "S32_LE" : "S16_LE"
            pendingFrames = 0
            prefill(device)
            return nil
        } catch {
            return error.description
        }
    }

    /// Writes silence up to the start threshold (buffer − one period): the device starts playing
    /// and the loop then keeps one period of room being refilled.
    func prefill(_ device: AlsaPCM) {
        let frames = max(device.periodFrames, device.bufferFrames - device.periodFrames)
        let count = min(frames * device.frameBytes, outBytes.count)
        outBytes.withUnsafeMutableBytes { b in
            b.baseAddress!.initializeMemory(as: UInt8.self, repeating: 0, count: count)
            _ = device.write(b.baseAddress!, frames: count / device.frameBytes)
        }
    }

    /// The device failed with `code`: underruns are recovered; anything else closes it for a reopen.
    func deviceError(_ code: Int, during call: String) {
        guard let device = pcm else { return }
        let now = MonotonicClock.nowNs()
        if code == -Int(EPIPE) || code == -Int(ESTRPIPE) {
            stats.xruns += 1
            if device.recover(Int32(code)) == 0 {
                xrunTimes.append(now)
                xrunTimes.removeAll { now - $0 > 10_000_000_000 }
                if xrunTimes.count >= 3 && periods < settings.maxPeriods {
                    // One period more, or enough to cover the latest wake-up seen plus a period.
                    let periodNs = Int64(device.periodFrames) * 1_000_000_000 / Int64(rate)
                    let cover = Int((stats.wakeLateMaxRunNs + periodNs - 1) / periodNs) + 2
                    periods = min(settings.maxPeriods, max(periods + 1, cover))
                    xrunTimes.removeAll()
                    owner.onLine("audio: \(stats.xruns) underruns on \(settings.device); buffer raised to \(periods) periods")
                    close(reopenNow: true)
                    return
                }
                pendingFrames = 0
                prefill(device)
                return
            }
        }
        owner.onLine("audio device \(settings.device) failed (\(call): \(AlsaPCM.Failure(call: call, code: Int32(code)).description)); reopening")
        close(reopenNow: false)
    }

    func close(reopenNow: Bool) {
        pcm?.close()
        pcm = nil
        stats.open = false
        pendingFrames = 0
        stretch.reset()
        reopenAtNs = reopenNow ? 0 : MonotonicClock.nowNs() + backoffNs
        publish(force: true)
    }

    // MARK: the loop

    /// One pass with the device open: wait for a period of room, then finish the pending period
    /// or render and write the next.
    func pump(_ now: UInt64) {
        guard let device = pcm else { return }
        let w = device.wait(timeoutMs: 100)
        if w < 0 { return deviceError(Int(w), during: "snd_pcm_wait") }
        if w == 0 {
            // No room for 100 ms: a stalled device (HDMI sink asleep). Keep the timeline going;
            // after 2 s of it, reopen.
            waitTimeouts += 1
            intake()
            if waitTimeouts >= 20 { waitTimeouts = 0; deviceError(-Int(EIO), during: "snd_pcm_wait (stalled 2 s)") }
            return
        }
        waitTimeouts = 0
        if pendingFrames > 0 {
            guard writePending(device) else { return }
            if pendingFrames > 0 { return }
        }
        let delay = device.delayFrames()
        if delay < 0 { return deviceError(delay, during: "snd_pcm_delay") }
        let wakeNs = MonotonicClock.nowNs()
        // Lateness: how far the queue had drained below "buffer − period" when we got here (not
        // after a short write: the stretcher asked for the next period at once).
        if lastEmitted >= device.periodFrames {
            let late = Int64(max(0, device.bufferFrames - device.periodFrames - delay)) * 1_000_000_000 / Int64(rate)
            stats.wakeLateMaxNs = max(stats.wakeLateMaxNs, late)
            stats.wakeLateMaxRunNs = max(stats.wakeLateMaxRunNs, late)
        }
        stats.deviceDelayNs = Int64(delay) * 1_000_000_000 / Int64(rate)
        intake()
        // The next period plays after the device's queue and the frames the stretcher holds.
        let playAtNs = wakeNs + UInt64(stats.deviceDelayNs) + UInt64(stretch.heldFrames) * 1_000_000_000 / UInt64(rate)
        // The jitter buffer judges the delay as it will be once the stretch still owed is paid
        // (`TimeStretch` pays it in whole pitch periods, later): otherwise it keeps asking for
        // what is already owed and the delay overshoots when the period is finally cut.
        let owedNs = Int64(stretch.owedFrames) * 1_000_000_000 / Int64(rate)
        let judgedNs = UInt64(max(0, Int64(playAtNs) + owedNs))
        let frames = render(jitter.pollPlayout(nowNs: judgedNs), playAtNs: playAtNs)
        stats.concealRunMaxNs = max(stats.concealRunMaxNs, jitter.concealmentRunNs)
        lastEmitted = frames
        encode(frames: frames, device: device)
        stats.periods += 1
        _ = writePending(device)
    }

    /// No device: keep the jitter buffer's timeline running at the period rate (packets are
    /// taken and played into nothing), so the stream picks up in step when the device returns.
    func idleTick(_ now: UInt64) {
        let period = UInt64(frameSamples) * 1_000_000_000 / UInt64(rate)
        // Absolute deadlines, one period apart, so the timeline runs at the packet rate.
        idleNextNs = idleNextNs + period < now ? now + period : idleNextNs + period
        var next = timespec(tv_sec: Int(idleNextNs / 1_000_000_000), tv_nsec: Int(idleNextNs % 1_000_000_000))
        _ = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nil)
        intake()
        _ = jitter.pollPlayout(nowNs: idleNextNs)
        publishIfDue()
    }

    /// Moves received packets into the jitter buffer, their bytes into the slot it files them under.
    func intake() {
        owner.inbox.drain { entry, bytes in
            let slot = Int(entry.seq) & mask
            var flags: AudioPacketFlags = []
            if entry.primaryLength == 0 { flags.insert(.silent) }
            if entry.previousLength > 0 { flags.insert(.carriesPrevious) }
            let verdict = jitter.handlePacket(seq: entry.seq, ptsNs: entry.ptsNs, payload: slot, flags: flags, nowNs: entry.arrivalNs)
            guard verdict == .buffered else { return }
            if let base = bytes.baseAddress, bytes.count > 0 {
                (store + slot * owner.inbox.slotBytes).copyMemory(from: base, byteCount: bytes.count)
            }
            primaryLength[slot] = entry.primaryLength
            previousLength[slot] = entry.previousLength
        }
    }

    /// Produces one period's PCM into `decoded` (wire order), passes it through the time stretch
    /// and leaves what plays now in `stretched`. - Returns: that frame count (0: the stretcher
    /// holds look-ahead and wants the next period at once).
    func render(_ playout: Playout<Int>, playAtNs: UInt64) -> Int {
        var frames = 0
        decoded.withUnsafeMutableBufferPointer { out in
            switch playout.step {
            case .play(_, let pts, let slot):
                frames = decodeSlot(slot, previous: false, into: out)
                noteLatency(ptsNs: pts, playAtNs: playAtNs)
            case .recover(_, _, let slot):
                frames = decodeSlot(slot, previous: true, into: out)
            case .conceal:
                frames = conceal(into: out)
                stats.concealedAt.record(Int64(playAtNs))
            case .silence:
                frames = frameSamples
                out.baseAddress!.update(repeating: 0, count: frames * channels)
            }
            FrameStretch.fade(playout.fade, out, frames: frames, channels: channels)
            stretch.push(UnsafeBufferPointer(out), frames: frames, stretch: playout.stretchFrames,
                         delayErrorFrames: Int(playout.delayErrorNs * Int64(rate) / 1_000_000_000),
                         atLimit: abs(playout.stretchFrames) >= jitter.configuration.maxStretchFrames)
        }
        // Look-ahead for a removal may come only from packets already here, without a gap.
        let queuedFrames = Int(jitter.contiguousNs * Int64(rate) / 1_000_000_000)
        return stretched.withUnsafeMutableBufferPointer { stretch.pull(into: $0, lookaheadFrames: queuedFrames) }
    }

    func decodeSlot(_ slot: Int, previous: Bool, into out: UnsafeMutableBufferPointer<Float>) -> Int {
        let base = store + slot * owner.inbox.slotBytes
        let payload = previous
            ? UnsafeRawBufferPointer(start: base + primaryLength[slot], count: previousLength[slot])
            : UnsafeRawBufferPointer(start: base, count: primaryLength[slot])
        do throws(AudioError) {
            let n = try decoder.decode(payload, into: out)
            if n > 0 { return n }
        } catch {
            stats.malformedPackets = Int(decoder.counters.malformedPackets)
        }
        return conceal(into: out)
    }

    func conceal(into out: UnsafeMutableBufferPointer<Float>) -> Int {
        if (try? decoder.conceal(frames: frameSamples, into: out)) == nil {
            out.baseAddress!.update(repeating: 0, count: frameSamples * channels)
        }
        return frameSamples
    }

    /// Latency of a played packet and, once a second, A/V sync against the video's latency.
    func noteLatency(ptsNs: UInt64, playAtNs: UInt64) {
        let clientCapture = Int64(bitPattern: ptsNs) &- owner.offset
        let latency = Int64(bitPattern: playAtNs) &+ realtimeMinusMono &- clientCapture
        stats.latencyNs = latency
        guard playAtNs >= lastSyncNs + 1_000_000_000 else { return }
        lastSyncNs = playAtNs
        realtimeMinusMono = MonotonicClock.realtimeMinusMonotonicNs()
        if let video = owner.videoLatency {
            stats.skewNs = sync.update(audioLatencyNs: latency, videoLatencyNs: video)
            jitter.delayFloorNs = sync.floorNs
            stats.syncFloorNs = sync.floorNs
        }
    }

    /// Folds `frames` of `stretched` onto the device's channels (when it has fewer), routes them
    /// into its channel order and converts them to its sample format.
    func encode(frames: Int, device: AlsaPCM) {
        let routing = device.routing
        let channels = deviceChannels
        if let downmix {
            stretched.withUnsafeBufferPointer { wire in
                mixed.withUnsafeMutableBufferPointer { out in downmix.mix(wire, into: out, frames: frames) }
            }
            mixed.withUnsafeBufferPointer { wire in
                routed.withUnsafeMutableBufferPointer { out in routing.route(wire, into: out, frames: frames, channels: channels) }
            }
        } else {
            stretched.withUnsafeBufferPointer { wire in
                routed.withUnsafeMutableBufferPointer { out in routing.route(wire, into: out, frames: frames, channels: channels) }
            }
        }
        let samples = frames * channels
        routed.withUnsafeBufferPointer { src in
            outBytes.withUnsafeMutableBytes { raw in
                switch device.format {
                case .s32:
                    let dst = raw.bindMemory(to: Int32.self)
                    for i in 0..<samples {
                        let v = min(1, max(-1, src[i]))
                        dst[i] = Int32(clamping: Int64((Double(v) * 2_147_483_647).rounded()))
                    }
                case .s16:
                    let dst = raw.bindMemory(to: Int16.self)
                    for i in 0..<samples {
                        let v = min(1, max(-1, src[i]))
                        dst[i] = Int16((v * 32_767).rounded())
                    }
                }
            }
        }
        pendingFrames = frames
        pendingOffset = 0
    }

    /// Writes what is pending. - Returns: false when the device failed (handled).
    func writePending(_ device: AlsaPCM) -> Bool {
        while pendingFrames > 0 {
            let rc = outBytes.withUnsafeBytes { raw in device.write(raw.baseAddress! + pendingOffset * device.frameBytes, frames: pendingFrames) }
            if rc == -Int(EAGAIN) { return true }
            if rc < 0 { deviceError(rc, during: "snd_pcm_writei"); return false }
            pendingFrames -= rc
            pendingOffset += rc
        }
        return true
    }

    // MARK: stats

    func publishIfDue() {
        let now = MonotonicClock.nowNs()
        if now >= lastPublishNs + 100_000_000 { publish(force: true) }
    }

    func publish(force: Bool) {
        let now = MonotonicClock.nowNs()
        stats.jitter = jitter.stats
        stats.stretch = stretch.counters
        stats.malformedPackets = Int(decoder.counters.malformedPackets)
        owner.publish(stats)
        if now / 1_000_000_000 != lastPublishNs / 1_000_000_000 {
            stats.wakeLateMaxNs = 0
            stats.concealRunMaxNs = 0
        }
        lastPublishNs = now
    }

    func format() -> String {
        switch owner.format {
        case .opus(let layout): return "Opus \(layout.channels) ch, 48 kHz" + folded
        case .pcm(let c, let r, let b): return "PCM \(c) ch, \(r) Hz, \(b)-bit" + folded
        }
    }

    /// " downmixed to 2 ch (…)" when the device has fewer channels than the stream.
    var folded: String {
        guard let downmix else { return "" }
        let how = downmix.outputChannels == 2 ? "ITU-R BS.775: centre and surrounds at −3 dB, LFE left out" : "side pair into the rear pair at −3 dB"
        return " downmixed to \(downmix.outputChannels) ch (\(how); scaled never to clip)"
    }

    /// How the channels reach the device, naming each device channel's position in order
    /// (`channel map FL FR FC LFE RL RR set`): the VM's surround check reads it.
    func describe(_ routing: ChannelRouting) -> String {
        let names: [ChannelRouting.Position: String] = [.frontLeft: "FL", .frontRight: "FR", .frontCenter: "FC", .lowFrequency: "LFE",
                                                        .rearLeft: "RL", .rearRight: "RR", .sideLeft: "SL", .sideRight: "SR"]
        func list(_ p: [ChannelRouting.Position]) -> String { p.map { names[$0] ?? "?" }.joined(separator: " ") }
        let n = deviceChannels
        switch routing {
        case .asIs: return "channel order as sent (\(list(ChannelRouting.wireOrder(channels: n))))"
        case .setMap: return "channel map \(list(ChannelRouting.wireOrder(channels: n))) set"
        case .reorder: return "channels reordered to ALSA's default map \(list(ChannelRouting.alsaDefaultOrder(channels: n)))"
        }
    }
}
