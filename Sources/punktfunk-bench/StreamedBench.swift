import Foundation
import Glibc
import HEVC
import PunktfunkSession
import PunktfunkTestHost
import PunktfunkWire
import SystemClock
import VideoDecode

/// Streamed vs whole AUs (data-plane.md §2.3) on loopback, the same stream and the same simulated
/// encoder both times: `HostSession` sends a 4-slice libx265 720p30 stream (~75 kB/AU) whose slices
/// come out of the "encoder" `sliceMs` apart, paced at `linkMbps`, streamed in blocks of at least
/// the host's 16 shards with per-block parity; `ClientSession` (this thread) decodes each
/// complete AU with libavcodec at once. Per frame, on one clock (CLOCK_MONOTONIC, one process):
/// capture → picture ready, first packet → picture ready, capture → AU complete. Whole AUs are the
/// baseline measured in the same run, in alternating rounds (a busy machine loads both alike); the
/// figures are medians over every frame of a mode's rounds.
struct StreamedBench {
    let rounds: Int
    let framesPerRound: Int
    let sliceMs: Double
    let linkMbps: Double

    struct Figures {
        var captureToReady: Double
        var firstPacketToReady: Double
        var captureToLastPacket: Double
        var decode: Double
        var frames: Int
    }

    /// Per-frame samples of one mode, ms.
    struct Samples {
        var toReady: [Double] = [], firstToReady: [Double] = [], toLast: [Double] = [], decode: [Double] = []
        var figures: Figures {
            func median(_ v: [Double]) -> Double { v.isEmpty ? .nan : v.sorted()[v.count / 2] }
            return Figures(captureToReady: median(toReady), firstPacketToReady: median(firstToReady),
                           captureToLastPacket: median(toLast), decode: median(decode), frames: toReady.count)
        }
    }

    func report() throws -> [String] {
        guard let ffmpeg = DecodeBench.ffmpegPath() else { return ["streamed bench: skipped (no ffmpeg on PATH)"] }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-bench-\(getpid()).hevc").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let status = try DecodeBench.run(ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
                                                  "-i", "testsrc2=size=1280x720:rate=30", "-frames:v", "60",
                                                  "-pix_fmt", "yuv420p", "-c:v", "libx265", "-preset", "ultrafast", "-b:v", "20M",
                                                  "-x265-params", "slices=4:keyint=60:bframes=0:repeat-headers=1:info=0:log-level=none",
                                                  "-f", "hevc", path]).status
        guard status == 0 else { throw StreamedBenchError(description: "encoding the 4-slice stream failed") }
        let aus = AccessUnitSplitter.splitPreservingBytes(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
        let meanBytes = aus.map { $0.count }.reduce(0, +) / max(1, aus.count)
        SoftwareDecoder.setLibraryLogging(enabled: false)
        var wholeSamples = Samples(), streamedSamples = Samples()
        for _ in 0..<rounds {
            try run(aus: aus, streamed: false, into: &wholeSamples)
            try run(aus: aus, streamed: true, into: &streamedSamples)
        }
        let whole = wholeSamples.figures, streamed = streamedSamples.figures
        func row(_ name: String, _ f: Figures) -> String {
            String(format: "  %@ %3d frames: capture→ready %6.2f ms, first packet→ready %6.2f ms, capture→AU complete %6.2f ms (decode %.2f ms)",
                   name, f.frames, f.captureToReady, f.firstPacketToReady, f.captureToLastPacket, f.decode)
        }
        return [
            String(format: "streamed AUs: 720p30 x265, 4 slices, mean %.1f kB/AU, %.1f ms encode per slice, %@, software decode",
                   Double(meanBytes) / 1000, sliceMs, linkMbps > 0 ? String(format: "paced %.0f Mbit/s", linkMbps) : "unpaced (loopback speed)"),
            row("whole   ", whole),
            row("streamed", streamed),
            String(format: "  streamed − whole: capture→ready %+.2f ms (×%.2f), capture→AU complete %+.2f ms, first packet→ready %+.2f ms (×%.2f)",
                   streamed.captureToReady - whole.captureToReady, streamed.captureToReady / whole.captureToReady,
                   streamed.captureToLastPacket - whole.captureToLastPacket,
                   streamed.firstPacketToReady - whole.firstPacketToReady, streamed.firstPacketToReady / whole.firstPacketToReady),
        ]
    }

    private func run(aus: [[UInt8]], streamed: Bool, into samples: inout Samples) throws {
        let hostIdentity = try TLSIdentity.generate(commonName: TLSIdentity.hostCommonName)
        let clientIdentity = try TLSIdentity.generate(commonName: "punktfunk-bench")
        var options = HostSession.Options(identity: hostIdentity, bind: SocketAddress(ip: "127.0.0.1", port: 0)!, accessUnits: aus)
        options.fps = 30
        options.frames = framesPerRound
        options.keyframeIndices = AccessUnitSplitter.keyframeIndices(aus)
        options.streamedAU = streamed
        options.sliceEncodeNs = UInt64(sliceMs * 1e6)
        options.paceBitsPerSecond = UInt64(linkMbps * 1e6)
        options.maxSeconds = Double(framesPerRound) / 30 + 20
        let captures = CaptureLog()
        options.onVideoFrame = { frame, capture, _ in captures.set(frame, capture) }
        let host = try HostSession(options: options)
        let hostDone = DispatchSemaphore(value: 0)
        Thread { try? host.run(); hostDone.signal() }.start()

        var hello = ClientSession.defaultHello
        hello.features.videoCaps.formUnion([.streamedAU, .multiSlice, .hostTiming])
        let client = ClientSession(options: .init(remote: host.localAddress, identity: clientIdentity,
                                                  trust: .pinned(hostIdentity.fingerprint),
                                                  seconds: Double(framesPerRound) / 30 + 1.5, hello: hello))
        let decoder = try SoftwareDecoder()
        var s = Samples()
        client.onAccessUnit = { au in
            let t0 = MonotonicClock.nowNs()
            let pictures = (try? decoder.decode(accessUnit: Array(au.data), pts: au.ptsNs)) ?? []
            let ready = MonotonicClock.nowNs()
            // The first second is warm-up (handshake media replayed, decoder start).
            guard au.frame >= 30, !pictures.isEmpty, au.firstArrivalNs != 0, let capture = captures.get(au.frame) else { return }
            s.toReady.append(Double(ready &- capture) / 1e6)
            s.firstToReady.append(Double(ready &- au.firstArrivalNs) / 1e6)
            s.toLast.append(Double(au.lastArrivalNs &- capture) / 1e6)
            s.decode.append(Double(ready &- t0) / 1e6)
        }
        var failure: SessionError?
        do throws(SessionError) { try client.run() } catch { failure = error }
        host.stop()
        _ = hostDone.wait(timeout: .now() + 10)
        if let failure { throw StreamedBenchError(description: "streamed bench session failed: \(failure)") }
        samples.toReady += s.toReady
        samples.firstToReady += s.firstToReady
        samples.toLast += s.toLast
        samples.decode += s.decode
    }
}

/// Capture times by frame, written on the host thread, read on the client's.
private final class CaptureLog: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [UInt32: UInt64] = [:]
    func set(_ frame: UInt32, _ ns: UInt64) { lock.withLock { times[frame] = ns } }
    func get(_ frame: UInt32) -> UInt64? { lock.withLock { times[frame] } }
}

struct StreamedBenchError: Error, CustomStringConvertible { var description: String }
