import Foundation
import SystemClock
internal import CALSA

/// Records an ALSA capture device (the far end of `snd-aloop`, `plughw:Loopback,1`) for the VM's
/// audio check: interleaved S16_LE stereo at 48 kHz into a raw file, with the CLOCK_MONOTONIC
/// time of the first sample so a marker found in the recording can be set against the time the
/// host produced it. Test tooling only; runs on its own thread.
///
/// Timing: each read at time t after n frames, with d frames still waiting in the device, says
/// sample 0 was captured at t − (n + d)/rate; a read that woke late overstates it, so the
/// smallest estimate over the run is kept. The recording starts at the first sound; an error
/// (overrun, the player reopening) restarts it, so the file is `seconds` recorded without a break.
public final class LoopbackCapture: @unchecked Sendable {
    public struct Result: Sendable {
        public var frames: Int
        public var startMonoNs: UInt64
        public var overruns: Int
        public var error: String?
        public var json: String {
            "{\"capture\":{\"frames\":\(frames),\"rate\":48000,\"channels\":2,\"start_mono_ns\":\(startMonoNs),"
                + "\"overruns\":\(overruns),\"error\":\(error.map { "\"\($0)\"" } ?? "null")}}"
        }
    }

    public let device: String
    public let seconds: Double
    public let path: String
    /// Seconds of sound let pass before the recording starts (the player settling).
    public let skipSeconds: Double
    private let done = DispatchSemaphore(value: 0)
    private var result = Result(frames: 0, startMonoNs: 0, overruns: 0, error: nil)

    public init(device: String, seconds: Double, path: String, skipSeconds: Double = 0) {
        self.device = device; self.seconds = seconds; self.path = path; self.skipSeconds = skipSeconds
    }

    public func start() {
        let t = Thread { [self] in
            result = record()
            done.signal()
        }
        t.name = "capture"
        t.start()
    }

    /// Waits for the recording to end.
    public func wait() -> Result {
        done.wait()
        done.signal()
        return result
    }

    private func record() -> Result {
        var r = Result(frames: 0, startMonoNs: UInt64.max, overruns: 0, error: nil)
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            r.error = "cannot write \(path)"
            return r
        }
        defer { try? file.close() }
        let giveUp = MonotonicClock.nowNs() + 60_000_000_000
        var lastError = "nothing played"
        // Each pass opens the device and records from the first sound for `seconds`; an error
        // (overrun, the player reopening its end of the cable) breaks the timing, so the
        // recording starts over while time is left.
        while MonotonicClock.nowNs() < giveUp {
            switch pass(file, &r) {
            case nil: return r
            case let failure?:
                lastError = failure
                r.overruns += r.frames > 0 ? 1 : 0
                r.frames = 0
                r.startMonoNs = UInt64.max
                file.truncateFile(atOffset: 0)
                usleep(10_000)
            }
        }
        r.error = "no unbroken \(seconds) s recording within 60 s (\(lastError))"
        return r
    }

    /// One attempt. - Returns: nil when `seconds` were recorded, else why not.
    private func pass(_ file: FileHandle, _ r: inout Result) -> String? {
        func text(_ code: Int32) -> String { String(cString: snd_strerror(code)) }
        var pcm: OpaquePointer?
        var rc = snd_pcm_open(&pcm, device, SND_PCM_STREAM_CAPTURE, 0)
        guard rc >= 0, let pcm else { return "snd_pcm_open(\(device)): \(text(rc))" }
        defer { snd_pcm_close(pcm) }
        // 500 ms of buffer: the recording thread is SCHED_OTHER on a loaded (emulated) machine.
        rc = snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 2, 48_000, 0, 500_000)
        guard rc >= 0 else { return "snd_pcm_set_params: \(text(rc))" }
        // snd_pcm_set_params sets the start threshold to the whole buffer, which a capture read in
        // smaller chunks never reaches: start explicitly.
        rc = snd_pcm_start(pcm)
        guard rc >= 0 else { return "snd_pcm_start: \(text(rc))" }
        let chunk = 240
        var buffer = [Int16](repeating: 0, count: chunk * 2)
        let total = Int(seconds * 48_000)
        var heard = false
        var skip = Int(skipSeconds * 48_000)
        while r.frames < total {
            let n = buffer.withUnsafeMutableBytes { snd_pcm_readi(pcm, $0.baseAddress!, snd_pcm_uframes_t(chunk)) }
            let now = MonotonicClock.nowNs()
            if n < 0 { return "snd_pcm_readi: \(text(Int32(n)))" }
            if !heard {
                guard buffer.prefix(Int(n) * 2).contains(where: { $0 != 0 }) else { continue }
                heard = true
            }
            if skip > 0 {
                skip -= Int(n)
                continue
            }
            r.frames += Int(n)
            var delay: snd_pcm_sframes_t = 0
            if snd_pcm_delay(pcm, &delay) == 0 {
                let estimate = now &- UInt64(r.frames + Int(delay)) * 1_000_000_000 / 48_000
                r.startMonoNs = min(r.startMonoNs, estimate)
            }
            buffer.withUnsafeBytes { file.write(Data($0.prefix(Int(n) * 4))) }
        }
        return nil
    }
}
