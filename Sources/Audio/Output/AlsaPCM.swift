internal import CALSA
#if canImport(Glibc)
import Glibc
#endif

/// One open ALSA playback PCM, configured for the session: interleaved S32 or S16, the stream's
/// rate and channel count, periods near `periodFrames`, the smallest buffer of `periods` periods
/// the device grants, non-blocking writes (the sink waits with `snd_pcm_wait`, bounded, so a hung
/// device never holds the thread). Owned by the sink thread; `close()` (or deinit) frees it.
final class AlsaPCM {
    enum SampleFormat { case s32, s16 }

    let name: String
    let channels: Int
    let rate: Int
    let format: SampleFormat
    /// Granted period and buffer, frames.
    let periodFrames: Int
    let bufferFrames: Int
    let routing: ChannelRouting
    private var pcm: OpaquePointer?

    /// A failed ALSA call: which, and the negative errno.
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(call): \(String(cString: snd_strerror(code)))" }
    }

    /// Opens and configures `name`. - Throws: `Failure` on the first refusing call.
    init(name: String, channels: Int, rate: Int, periodFrames: Int, periods: Int) throws(Failure) {
        self.name = name
        self.channels = channels
        self.rate = rate
        pf_alsa_quiet()
        var handle: OpaquePointer?
        try Self.check("snd_pcm_open(\(name))", snd_pcm_open(&handle, name, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK))
        guard let handle else { throw Failure(call: "snd_pcm_open(\(name))", code: -ENODEV) }
        pcm = handle
        do {
            var hw: OpaquePointer?
            try Self.check("snd_pcm_hw_params_malloc", snd_pcm_hw_params_malloc(&hw))
            defer { snd_pcm_hw_params_free(hw) }
            try Self.check("snd_pcm_hw_params_any", snd_pcm_hw_params_any(handle, hw))
            try Self.check("set_access", snd_pcm_hw_params_set_access(handle, hw, SND_PCM_ACCESS_RW_INTERLEAVED))
            if snd_pcm_hw_params_set_format(handle, hw, SND_PCM_FORMAT_S32_LE) == 0 {
                format = .s32
            } else {
                try Self.check("set_format(S16_LE)", snd_pcm_hw_params_set_format(handle, hw, SND_PCM_FORMAT_S16_LE))
                format = .s16
            }
            try Self.check("set_channels(\(channels))", snd_pcm_hw_params_set_channels(handle, hw, UInt32(channels)))
            try Self.check("set_rate_resample(0)", snd_pcm_hw_params_set_rate_resample(handle, hw, 0))
            try Self.check("set_rate(\(rate))", snd_pcm_hw_params_set_rate(handle, hw, UInt32(rate), 0))
            var period = snd_pcm_uframes_t(periodFrames)
            var dir: Int32 = 0
            try Self.check("set_period_size_near", snd_pcm_hw_params_set_period_size_near(handle, hw, &period, &dir))
            var buffer = snd_pcm_uframes_t(Int(period) * periods)
            try Self.check("set_buffer_size_near", snd_pcm_hw_params_set_buffer_size_near(handle, hw, &buffer))
            try Self.check("snd_pcm_hw_params", snd_pcm_hw_params(handle, hw))
            _ = snd_pcm_hw_params_get_period_size(hw, &period, &dir)
            _ = snd_pcm_hw_params_get_buffer_size(hw, &buffer)
            self.periodFrames = Int(period)
            self.bufferFrames = Int(buffer)

            var sw: OpaquePointer?
            try Self.check("snd_pcm_sw_params_malloc", snd_pcm_sw_params_malloc(&sw))
            defer { snd_pcm_sw_params_free(sw) }
            try Self.check("snd_pcm_sw_params_current", snd_pcm_sw_params_current(handle, sw))
            // Start once a period is queued past the prefill; wake when a period of room is free.
            try Self.check("set_start_threshold",
                           snd_pcm_sw_params_set_start_threshold(handle, sw, snd_pcm_uframes_t(max(Int(period), Int(buffer) - Int(period)))))
            try Self.check("set_avail_min", snd_pcm_sw_params_set_avail_min(handle, sw, period))
            try Self.check("snd_pcm_sw_params", snd_pcm_sw_params(handle, sw))

            routing = Self.applyChannelMap(handle, channels: channels)
        } catch {
            snd_pcm_close(handle)
            pcm = nil
            throw error
        }
    }

    deinit { close() }

    func close() {
        if let pcm { snd_pcm_close(pcm) }
        pcm = nil
    }

    /// Frames from the next written frame to the DAC (queued + hardware latency), or a negative errno.
    func delayFrames() -> Int {
        guard let pcm else { return Int(-EBADFD) }
        var delay: snd_pcm_sframes_t = 0
        let rc = snd_pcm_delay(pcm, &delay)
        return rc < 0 ? Int(rc) : Int(delay)
    }

    /// Waits until a period of room is free, up to `timeoutMs`. - Returns: > 0 ready, 0 timeout, < 0 errno.
    func wait(timeoutMs: Int32) -> Int32 {
        guard let pcm else { return -EBADFD }
        return snd_pcm_wait(pcm, timeoutMs)
    }

    /// Writes interleaved frames (non-blocking). - Returns: frames written, or a negative errno
    /// (-EAGAIN: no room yet; -EPIPE: underrun; -ESTRPIPE: suspended; others: device gone).
    func write(_ samples: UnsafeRawPointer, frames: Int) -> Int {
        guard let pcm else { return Int(-EBADFD) }
        return Int(snd_pcm_writei(pcm, samples, snd_pcm_uframes_t(frames)))
    }

    /// `snd_pcm_recover` for an underrun or suspend: 0 when the PCM is prepared again.
    func recover(_ code: Int32) -> Int32 {
        guard let pcm else { return -EBADFD }
        return snd_pcm_recover(pcm, code, 1)
    }

    /// Bytes per interleaved frame in the device format.
    var frameBytes: Int { channels * (format == .s32 ? 4 : 2) }

    /// Sets the wire's channel map when the device can take it, else plans a reorder into ALSA's
    /// default order. Stereo never needs either.
    private static func applyChannelMap(_ pcm: OpaquePointer, channels: Int) -> ChannelRouting {
        let wire = ChannelRouting.wireOrder(channels: channels).map(\.rawValue)
        let offered = wire.withUnsafeBufferPointer { pf_alsa_chmap_offered(pcm, $0.baseAddress!, UInt32(channels)) }
        let offer: ChannelRouting.Offer = offered == 1 ? .settable : offered == 2 ? .fixedWireOrder : .none
        let plan = ChannelRouting.plan(channels: channels, offer: offer)
        if case .setMap(let map) = plan {
            let rc = map.withUnsafeBufferPointer { pf_alsa_set_chmap(pcm, $0.baseAddress!, UInt32(channels)) }
            if rc < 0 { return ChannelRouting.plan(channels: channels, offer: .none) }
        }
        return plan
    }

    private static func check(_ call: String, _ rc: Int32) throws(Failure) {
        if rc < 0 { throw Failure(call: call, code: rc) }
    }
}
