import AudioSimulation
import Foundation
import PunktfunkSession
import PunktfunkTestHost
import PunktfunkWire
import SystemClock
import VideoDecode

/// A/V skew on loopback by the client pipeline's own clocks (issue 22 item 3, headless).
///
/// `HostSession` streams the `--demo` HEVC at 60 fps and an Opus tone whose every 10th packet
/// (50 ms) is the 3 kHz marker (`OpusToneSource(markerEvery:)`, pf-testhost's
/// `--audio-marker-every 10`); audio and video start on the same host instant, so every marker
/// packet has a video frame (every 3rd) with the same capture time: that frame is the marked one.
/// `ClientSession` receives both over 127.0.0.1; arrivals are stamped on CLOCK_MONOTONIC.
/// Afterwards, per marker pair:
/// - audio out = the instant the marker's period starts leaving the device (+ Opus' 2.5 ms
///   look-ahead, where its onset is), from the sink's own
///   delay model (`AVSkewMeter.deviceOutTimes`: the real `AudioJitterBuffer` polled at wake +
///   device delay on a 48 kHz DAC clock; there is no ALSA device here);
/// - glass = the first 60 Hz vblank at or after decode done, where decode done comes from the
///   real libavcodec rung decoding every received AU in order on one thread (start = max(arrival,
///   previous done), duration measured). The vblank phase against the stream is unknown, so the
///   figures pool 8 evenly spaced phases.
/// Reported with `AVSyncControl` off (the raw pipeline) and on (as `AudioOutput` runs it).
struct AVSkewBench {
    let seconds: Double

    final class Recorder: @unchecked Sendable {
        var audio: [AVSkewMeter.Arrival] = []
        var video: [(ptsNs: Int64, arrivalNs: Int64, bytes: [UInt8])] = []
        var offsetNs: Int64 = 0
    }

    final class ToneFeed: @unchecked Sendable {
        private let lock = NSLock()
        private let source: OpusToneSource
        init(_ source: OpusToneSource) { self.source = source }
        func next() -> [UInt8]? { lock.withLock { try? source.nextPacket() } }
    }

    static let markerEvery: UInt32 = 10
    static let vblankNs: Int64 = 16_666_667
    /// The Opus encoder's look-ahead (RESTRICTED_LOWDELAY, 48 kHz): the marker's onset comes this
    /// long after its packet's first sample leaves the device.
    static let opusLookaheadNs: Int64 = 2_500_000

    func report() throws -> [String] {
        let hostIdentity = try TLSIdentity.generate(commonName: TLSIdentity.hostCommonName)
        let clientIdentity = try TLSIdentity.generate(commonName: "punktfunk-bench")
        var options = HostSession.Options(identity: hostIdentity, bind: SocketAddress(ip: "127.0.0.1", port: 0)!,
                                          accessUnits: DemoStream.accessUnits)
        options.fps = DemoStream.fps
        options.keyframeIndices = DemoStream.keyframeIndices
        options.maxSeconds = seconds + 20
        let tone = ToneFeed(try OpusToneSource(markerEvery: Int(Self.markerEvery)))
        options.audioSource = { _ in tone.next() }
        let host = try HostSession(options: options)
        let hostDone = DispatchSemaphore(value: 0)
        Thread { try? host.run(); hostDone.signal() }.start()

        let rec = Recorder()
        let client = ClientSession(options: .init(remote: host.localAddress, identity: clientIdentity,
                                                  trust: .pinned(hostIdentity.fingerprint), seconds: seconds))
        client.onEstablished = { p in rec.offsetNs = p.clockOffsetNs }
        client.onAudio = { packet in
            let now = Int64(MonotonicClock.nowNs())
            switch packet {
            case .opus(let f), .pcm(let f): rec.audio.append(.init(seq: f.seq, ptsNs: f.ptsNs, arrivalNs: now))
            case .redundant(let f): rec.audio.append(.init(seq: f.seq, ptsNs: f.ptsNs, arrivalNs: now))
            default: break
            }
        }
        client.onAccessUnit = { au in
            rec.video.append((au.ptsNs, Int64(MonotonicClock.nowNs()), [UInt8](au.data)))
        }
        var failure: SessionError?
        do throws(SessionError) { try client.run() } catch { failure = error }
        host.stop()
        _ = hostDone.wait(timeout: .now() + 10)
        if let failure { return ["avskew bench failed: \(failure)"] }
        guard !rec.audio.isEmpty, !rec.video.isEmpty else { return ["avskew bench: no audio or no video received"] }

        // Host stamps (wall clock) → client CLOCK_MONOTONIC: − offset (0 on loopback, one clock), − (realtime − monotonic).
        let rtmm = MonotonicClock.realtimeMinusMonotonicNs()
        func toMono(_ hostNs: Int64) -> Int64 { hostNs &- rec.offsetNs &- rtmm }

        // The decode thread: every AU in arrival order through the libavcodec rung.
        SoftwareDecoder.setLibraryLogging(enabled: false)
        let decoder = try SoftwareDecoder(threads: 1)
        var doneAt: [Int: Int64] = [:]
        var previousDone = Int64.min
        var decodeNs: [Int64] = []
        for (i, au) in rec.video.enumerated() {
            let start = MonotonicClock.nowNs()
            let frames = try decoder.decode(accessUnit: au.bytes, pts: Int64(i))
            let took = Int64(MonotonicClock.nowNs() - start)
            decodeNs.append(took)
            let done = max(au.arrivalNs, previousDone) + took
            previousDone = done
            for f in frames { doneAt[Int(f.pts)] = done }
        }
        for f in decoder.flush() { doneAt[Int(f.pts)] = previousDone }

        let captureBySeq = Dictionary(rec.audio.map { ($0.seq, toMono(Int64(bitPattern: $0.ptsNs))) }, uniquingKeysWith: { a, _ in a })
        let dacStart = rec.audio.map(\.arrivalNs).min()!
        let end = rec.audio.map(\.arrivalNs).max()! + 500_000_000
        var lines = [String(format: "avskew loopback: %.0f s, %d audio packets (%d markers), %d AUs received, %d decoded; decode p50 %.2f ms",
                            seconds, rec.audio.count, rec.audio.filter { $0.seq % Self.markerEvery == 0 }.count,
                            rec.video.count, doneAt.count, Self.ms(Percentile.roundedIndex(decodeNs, 0.5)))]
        // Video latency (capture → glass) per phase, and the marker skews per phase, pooled.
        func videoMarks(phase: Int) -> [AVSkewMeter.Mark] {
            let phaseNs = dacStart + Int64(phase) * Self.vblankNs / 8
            return rec.video.enumerated().compactMap { i, au in
                doneAt[i].map { .init(captureNs: toMono(au.ptsNs),
                                      outNs: AVSkewMeter.nextVblank(atOrAfter: $0, phaseNs: phaseNs, periodNs: Self.vblankNs)) }
            }
        }
        let videoLatencies = (0..<8).flatMap { videoMarks(phase: $0).map(\.latencyNs) }
        for sync in [false, true] {
            var all: [Int64] = []
            var audioLat: [Int64] = []
            var worstPhase: (Int, Int64) = (0, 0)
            var played = 0
            for phase in 0..<8 {
                var meter = AVSkewMeter()
                for v in videoMarks(phase: phase) { meter.noteVideoMarker(captureNs: v.captureNs, glassNs: v.outNs) }
                let out = AVSkewMeter.deviceOutTimes(rec.audio, dacStartNs: dacStart, endNs: end, captureNs: { captureBySeq[$0] },
                                                     videoLatencyNs: sync ? Percentile.roundedIndex(videoLatencies, 0.5) : nil)
                for a in rec.audio where a.seq % Self.markerEvery == 0 {
                    guard let o = out[a.seq], let cap = captureBySeq[a.seq] else { continue }
                    meter.noteAudioMarker(captureNs: cap, outNs: o + Self.opusLookaheadNs)
                    audioLat.append(o + Self.opusLookaheadNs - cap)
                }
                let skews = meter.skews()
                played += meter.audio.count
                if let worst = skews.map({ abs($0) }).max(), worst > worstPhase.1 { worstPhase = (phase, worst) }
                all += skews
            }
            guard !all.isEmpty else {
                lines.append("avskew (sync \(sync ? "on" : "off")): no marker pairs (no video frame within 2 ms of a marker's capture time)")
                continue
            }
            let within = all.filter { abs($0) <= 20_000_000 }.count
            lines.append(String(format: "avskew (AVSyncControl %@): %d pairs of %d played markers over 8 vblank phases; skew p50 %+.1f ms, p95 %+.1f ms, max |skew| %.1f ms (phase %d); audio latency p50 %.1f ms, video p50 %.1f ms; within ±20 ms: %d/%d — aim %@",
                                sync ? "on" : "off", all.count, played, Self.ms(Percentile.roundedIndex(all, 0.5)), Self.ms(Percentile.roundedIndex(all, 0.95)),
                                Self.ms(all.map { abs($0) }.max()!), worstPhase.0,
                                Self.ms(Percentile.roundedIndex(audioLat, 0.5)), Self.ms(Percentile.roundedIndex(videoLatencies, 0.5)),
                                within, all.count, within == all.count ? "met" : "NOT met"))
        }
        return lines
    }

    static func ms(_ ns: Int64) -> Double { Double(ns) / 1e6 }
}
