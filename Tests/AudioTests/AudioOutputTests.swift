import Testing
import Audio
import Foundation
import PunktfunkWire
import SystemClock

/// The sink thread without a device to play on (this machine and CI have no /dev/snd; the VM's
/// `audio` check plays through snd-aloop): it must keep the stream's audio timeline running,
/// retry with backoff, count what it refuses, and stop promptly.
@Suite struct AudioOutputTests {
    @Test func aMissingDeviceIsRetriedWhileThePacketsKeepFlowing() throws {
        var settings = AudioOutput.Settings(device: "hw:CARD=NoSuchCard,DEV=0", reason: "test")
        settings.realtimePriority = 0
        settings.minBackoffNs = 20_000_000
        settings.maxBackoffNs = 40_000_000
        let output = try AudioOutput(format: .opus(.stereo), settings: settings)
        let lines = LineLog()
        output.onLine = { lines.append($0) }
        output.start()
        let silence: [UInt8] = []  // DTX: plays as silence, nothing to decode
        let start = Date()
        var seq: UInt32 = 0
        while Date().timeIntervalSince(start) < 0.4 {
            output.submit(.opus(AudioFrame(seq: seq, ptsNs: UInt64(seq) * 5_000_000, payload: silence)), arrivalNs: MonotonicClock.nowNs())
            seq += 1
            Thread.sleep(forTimeInterval: 0.005)
        }
        // Wrong kind for an Opus session: refused and counted, not queued.
        output.submit(.pcm(AudioFrame(seq: seq, ptsNs: 0, payload: [0, 0, 0, 0])), arrivalNs: 0)
        Thread.sleep(forTimeInterval: 0.15)
        let stats = output.stats
        let stopped = Date()
        output.stop()
        #expect(Date().timeIntervalSince(stopped) < 0.5)
        #expect(!stats.open)
        #expect(stats.openFailures >= 3)
        #expect(stats.rejectedPackets == 1)
        #expect(stats.jitter.playedPackets > 0)
        #expect(lines.all.first?.contains("audio on hw:CARD=NoSuchCard,DEV=0 (test)") == true)
        #expect(lines.all.contains { $0.contains("cannot be opened") })
    }

    @Test func statsReadAsJsonAndAsTheOverlayLine() throws {
        var s = AudioOutputStats()
        s.device = "hw:Loopback,0"
        s.open = true
        s.jitter.queuedNs = 12_345_678
        s.jitter.targetNs = 10_000_000
        s.jitter.concealedNs = 5_000_000
        s.xruns = 2
        s.skewNs = -3_200_000
        s.stretch.removedFrames = 480
        s.stretch.slowSplicedFrames = 7
        for k in 0..<(RecentTimes.capacity + 2) { s.concealedAt.record(1_000_000_000 + Int64(k) * 5_000_000) }
        let object = try JSONSerialization.jsonObject(with: Data("{\(s.jsonMembers)}".utf8)) as? [String: Any]
        #expect(object?["buffer_ms"] as? Double == 12.346)
        #expect(object?["xruns"] as? Int == 2)
        #expect(object?["skew_ms"] as? Double == -3.2)
        #expect(object?["latency_ms"] is NSNull)
        let stretch = object?["stretch"] as? [String: Any]
        #expect(stretch?["removed"] as? Int == 480 && stretch?["slow_spliced"] as? Int == 7 && stretch?["fallback_spliced"] as? Int == 0)
        // The ring keeps the newest 64 concealed periods, oldest first, in ms.
        let concealed = object?["concealed_at_ms"] as? [Double]
        #expect(concealed?.count == RecentTimes.capacity && concealed?.first == 1_010.0 && concealed?.last == 1_325.0)
        #expect(s.overlayLine == "audio 12.3/10.0 ms · concealed 5.0 ms · xruns 2 · skew -3.2 ms")
    }
}

private final class LineLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
