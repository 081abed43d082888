import Foundation
import SystemClock
internal import CALSA

/// Records an ALSA capture device (the far end of `snd-aloop`, `hw:Loopback,1`) for the VM's
/// audio check: interleaved S16_LE stereo at 48 kHz into a raw file, with the CLOCK_MONOTONIC
/// time of the first sample so a marker found in the recording can be set against the time the
/// host produced it. Test tooling only; runs on its own thread.
///
/// Timing: each read at time t after n frames, with d frames still waiting in the device, says
/// sample 0 was captured at t − (n + d)/rate; a read that woke late overstates it, so the
/// smallest estimate over the run is kept.
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
    private let done = DispatchSemaphore(value: 0)
    private var result = Result(frames: 0, startMonoNs: 0, overruns: 0, error: nil)

    public init(device: String, seconds: Double, path: String) {
        self.device = device; self.seconds = seconds; self.path = path
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
        var pcm: OpaquePointer?
        var rc = snd_pcm_open(&pcm, device, SND_PCM_STREAM_CAPTURE, 0)
        guard rc >= 0, let pcm else { r.error = "snd_pcm_open(\(device)): \(String(cString: snd_strerror(rc)))"; return r }
        defer { snd_pcm_close(pcm) }
        rc = snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 2, 48_000, 0, 20_000)
        guard rc >= 0 else { r.error = "snd_pcm_set_params: \(String(cString: snd_strerror(rc)))"; return r }
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            r.error = "cannot write \(path)"
            return r
        }
        defer { try? file.close() }
        let chunk = 240
        var buffer = [Int16](repeating: 0, count: chunk * 2)
        let total = Int(seconds * 48_000)
        while r.frames < total {
            let n = buffer.withUnsafeMutableBytes { snd_pcm_readi(pcm, $0.baseAddress!, snd_pcm_uframes_t(chunk)) }
            let now = MonotonicClock.nowNs()
            if n < 0 {
                r.overruns += 1
                if snd_pcm_recover(pcm, Int32(n), 1) < 0 { r.error = "snd_pcm_readi: \(String(cString: snd_strerror(Int32(n))))"; break }
                continue
            }
            if r.overruns > 0 { continue }  // a gap in the recording: its timing no longer holds; stop counting
            r.frames += Int(n)
            var delay: snd_pcm_sframes_t = 0
            if snd_pcm_delay(pcm, &delay) == 0 {
                let estimate = now &- UInt64(r.frames + Int(delay)) * 1_000_000_000 / 48_000
                r.startMonoNs = min(r.startMonoNs, estimate)
            }
            buffer.withUnsafeBytes { file.write(Data($0.prefix(Int(n) * 4))) }
        }
        if r.startMonoNs == UInt64.max { r.startMonoNs = 0 }
        return r
    }
}
