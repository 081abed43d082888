import Foundation
import Synchronization
import SystemClock
internal import CALSA

/// The microphone uplink (issue 13 item 5): its own thread records an ALSA capture device in
/// 10 ms frames (mono S16_LE 48 kHz; a device that only does stereo is averaged down), encodes
/// each with `MicEncoder` and hands the packet to `send` (seq, pts = CLOCK_REALTIME at encode,
/// bytes valid during the call). Muted frames are not sent and do not advance seq (§5.5). A
/// device that fails is reopened with backoff; nothing here ends the stream.
///
/// Threads: `start`, `stop`, `setMuted` and `stats` from any thread; `send` runs on the mic thread.
public final class MicUplink: @unchecked Sendable {
    public let device: String
    public var send: (UInt32, UInt64, UnsafeRawBufferPointer) -> Void = { _, _, _ in }
    public var onLine: @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data("punktfunk-kiosk: \(line)\n".utf8)) }
    private let running = Atomic<Bool>(false)
    private let muted = Atomic<Bool>(false)
    private let sentPackets = Atomic<Int>(0)
    private let failures = Atomic<Int>(0)
    /// Reads recovered, short reads (the thread's own counts).
    private var recovered = 0, shortReads = 0
    private var lastRecovered: Int32 = 0
    private let finished = DispatchSemaphore(value: 0)
    private var thread: Thread?

    public init(device: String) { self.device = device }

    /// Packets sent, and device failures (open or read) so far.
    public var stats: (sent: Int, failures: Int) { (sentPackets.load(ordering: .relaxed), failures.load(ordering: .relaxed)) }
    public func setMuted(_ on: Bool) { muted.store(on, ordering: .relaxed) }

    public func start() {
        running.store(true, ordering: .relaxed)
        let t = Thread { [self] in
            run()
            finished.signal()
        }
        t.name = "mic"
        thread = t
        t.start()
    }

    /// Stops and waits for the thread: within a 10 ms frame while the device delivers (a device
    /// that stopped delivering ends its read with EIO after the kernel's 10 s).
    public func stop() {
        guard thread != nil, running.exchange(false, ordering: .relaxed) else { return }
        finished.wait()
        thread = nil
    }

    private func run() {
        guard let encoder = try? MicEncoder() else { return onLine("mic: the Opus encoder cannot be made; no mic uplink") }
        var samples = [Int16](repeating: 0, count: MicEncoder.frameSamples * 2)
        var mono = [Int16](repeating: 0, count: MicEncoder.frameSamples)
        var packet = [UInt8](repeating: 0, count: MicEncoder.maxPacketBytes)
        var seq: UInt32 = 0
        var backoffMs: UInt32 = 100
        var announced = false
        while running.load(ordering: .relaxed) {
            pf_alsa_quiet()
            var pcm: OpaquePointer?
            var channels: UInt32 = 1
            var rc = snd_pcm_open(&pcm, device, SND_PCM_STREAM_CAPTURE, 0)
            if rc >= 0, let p = pcm {
                rc = snd_pcm_set_params(p, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, 48_000, 0, 40_000)
                if rc < 0 {
                    channels = 2
                    rc = snd_pcm_set_params(p, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 2, 48_000, 0, 40_000)
                }
                if rc >= 0 { rc = snd_pcm_start(p) }
            }
            guard rc >= 0, let p = pcm else {
                if let pcm { snd_pcm_close(pcm) }
                failures.add(1, ordering: .relaxed)
                onLine("mic \(device) cannot be opened (\(String(cString: snd_strerror(rc)))); retrying in \(backoffMs) ms")
                var left = backoffMs
                while left > 0 && running.load(ordering: .relaxed) { usleep(min(left, 100) * 1000); left -= min(left, 100) }
                backoffMs = min(3_000, backoffMs * 2)
                continue
            }
            if !announced {
                onLine("mic uplink from \(device): Opus 10 ms mono VOIP 48 kbit/s, in-band FEC\(channels == 2 ? " (stereo device, averaged)" : "")")
                announced = true
            }
            backoffMs = 100
            while running.load(ordering: .relaxed) {
                // A blocking read returns each 10 ms frame as it completes (a device that stops
                // delivering fails it with EIO after the kernel's 10 s, and the device is reopened).
                let n = samples.withUnsafeMutableBytes { snd_pcm_readi(p, $0.baseAddress!, snd_pcm_uframes_t(MicEncoder.frameSamples)) }
                if n < 0 {
                    if snd_pcm_recover(p, Int32(n), 1) == 0 {
                        recovered += 1
                        lastRecovered = Int32(n)
                        _ = snd_pcm_start(p)
                        continue
                    }
                    failures.add(1, ordering: .relaxed)
                    onLine("mic \(device) failed (\(String(cString: snd_strerror(Int32(n))))); reopening")
                    break
                }
                if Int(n) != MicEncoder.frameSamples { shortReads += 1; continue }
                if muted.load(ordering: .relaxed) { continue }
                for i in 0..<MicEncoder.frameSamples {
                    mono[i] = channels == 1 ? samples[i] : Int16((Int32(samples[2 * i]) + Int32(samples[2 * i + 1])) / 2)
                }
                let pts = MonotonicClock.realtimeNs()
                let length = mono.withUnsafeBufferPointer { m in
                    packet.withUnsafeMutableBytes { out in (try? encoder.encode(m, into: out)) ?? 0 }
                }
                guard length > 0 else { continue }
                packet.withUnsafeBytes { send(seq, pts, UnsafeRawBufferPointer(rebasing: $0.prefix(length))) }
                seq &+= 1
                sentPackets.add(1, ordering: .relaxed)
            }
            snd_pcm_close(p)
        }
        onLine("mic uplink from \(device) ended: \(sentPackets.load(ordering: .relaxed)) packets sent, \(failures.load(ordering: .relaxed)) device failures, "
               + "\(recovered) reads recovered\(recovered > 0 ? " (last: \(String(cString: snd_strerror(lastRecovered))))" : ""), \(shortReads) short reads")
    }
}
