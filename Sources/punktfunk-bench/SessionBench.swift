import Foundation
import Glibc
import PunktfunkSession
import PunktfunkWire
import PunktfunkTestHost

/// A whole punktfunk/2 session on loopback: `HostSession` (its own thread) streams large AUs as
/// fast as its pacing allows; `ClientSession` (the calling thread) receives them over real UDP with
/// the real QUIC connection beside the media. Reports delivered Gbps and the client thread's CPU
/// per delivered Gbps, and — as the baseline measured in the same run — the CPU the in-memory
/// receive path (`MediaReceiver` alone, same AEAD, same AU shape) needs for the same bytes, so
/// the ratio is what sockets, the shared-socket demux and the pump add.
struct SessionBench {
    let seconds: Double
    let auBytes: Int
    let fps: Double

    static func threadCPUSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    func report() throws -> [String] {
        let hostIdentity = try TLSIdentity.generate(commonName: TLSIdentity.hostCommonName)
        let clientIdentity = try TLSIdentity.generate(commonName: "punktfunk-bench")
        var options = HostSession.Options(identity: hostIdentity, bind: SocketAddress(ip: "127.0.0.1", port: 0)!,
                                          accessUnits: SyntheticAccessUnits.make(count: 8, bytes: auBytes, seed: 5))
        options.fps = fps
        options.fecPercent = 10
        options.maxSeconds = seconds + 20
        let host = try HostSession(options: options)
        let hostDone = DispatchSemaphore(value: 0)
        Thread { try? host.run(); hostDone.signal() }.start()

        let client = ClientSession(options: .init(remote: host.localAddress, identity: clientIdentity,
                                                  trust: .pinned(hostIdentity.fingerprint), seconds: seconds))
        // The client runs on this thread, so its CPU time is this thread's.
        var failure: SessionError?
        let start = Date()
        let cpuStart = Self.threadCPUSeconds()
        do throws(SessionError) { try client.run() } catch { failure = error }
        let cpu = Self.threadCPUSeconds() - cpuStart
        let wall = Date().timeIntervalSince(start)
        host.stop()
        _ = hostDone.wait(timeout: .now() + 10)
        if let failure { return ["session bench failed: \(failure)"] }

        let c = client.counters
        let gbps = Double(c.bytesReceived) * 8 / 1e9 / seconds
        let cpuPerGbps = (cpu / wall) / max(gbps, 1e-9)
        // Baseline: the in-memory receive path over the same number of AUs of the same shape.
        let frames = max(1, Int(c.framesDelivered))
        let media = MediaBench(frames: min(frames, 400), auBytes: auBytes, passes: 3)
        let (base, _) = try media.run(lossPercent: 0, fec: 10, suite: .aes128GCM, aead: GnuTLSMediaAEAD.factory)
        let baseCPUPerGbps = 1 / base.gbps  // one core busy for `seconds` moves `gbps`
        return [
            String(format: "session loopback: %.0f KB AUs at %.0f fps requested, %d frames delivered, %d lost, %llu packets",
                   Double(auBytes) / 1000, fps, frames, Int(c.framesLost), c.packetsReceived),
            String(format: "session loopback: %.2f Gbps delivered; client thread %.2f cores busy = %.3f cores per Gbps",
                   gbps, cpu / wall, cpuPerGbps),
            String(format: "baseline in-memory receive (same AEAD, same AUs): %.3f cores per Gbps (%.1f Gbps on one core); session/baseline = %.2fx",
                   baseCPUPerGbps, base.gbps, cpuPerGbps / baseCPUPerGbps),
            String(format: "host: %d frames sent, %d feedback datagrams received", host.framesSent, host.feedbackReceived),
        ]
    }
}
