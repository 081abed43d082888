import Screen
import Foundation
import Testing
import PunktfunkSession
@testable import Kiosk
import SystemClock
import PunktfunkTestHost

/// The stats overlay's live sources over a real loopback session: the decode stage's totals and
/// the session's per-second figures, read the way the present thread reads them.
@Suite(.serialized) struct LiveStatsTests {
    @Test func aDemoSessionFeedsTheOverlayCounters() throws {
        let host = try DemoHost(seconds: 4)
        defer { host.stop() }
        let options = ClientSession.Options(remote: host.address, identity: nil,
                                            trust: .pinned(host.fingerprint), seconds: 2.5)
        let pipeline = StreamPipeline(options: options, decoder: .init(rungs: [.software]))
        let live = LiveStats()
        var printed = 0
        pipeline.prepare = { session in
            session.onStats = { _ in printed += 1 }   // an earlier handler stays in the chain
            live.observe(session)
        }
        #expect(live.clockOffsetNs == nil)
        let before = live.counters(stage: pipeline.stage!)
        var nothingYet = StatsCounters(videoBytes: 0, decodedPictures: 0, decodeNs: 0, framesLost: 0)
        nothingYet.pictureLine = "picture clean"
        #expect(before == nothingYet)
        pipeline.start()
        var pictures: UInt64 = 0
        // Capture → decoded on the local monotonic clock, for pictures after the first stats.
        let realtimeMinusMonotonic = MonotonicClock.realtimeMinusMonotonicNs()
        var ages: [Int64] = []
        while true {
            guard let picture = pipeline.stage!.output.pop(timeout: 0.1) else {
                if pipeline.stage!.output.isClosed { break }
                continue
            }
            pictures += 1
            if let offset = live.clockOffsetNs {
                let clock = CaptureClock(offsetNs: offset, realtimeMinusMonotonicNs: realtimeMinusMonotonic)
                let origin = clock.localMonotonicNs(hostPtsNs: picture.pts).map { Int64($0) } ?? -1
                ages.append(Int64(MonotonicClock.nowNs()) - origin)
            }
            picture.release()
        }
        pipeline.wait()
        if case .failure(let error)? = pipeline.result { Issue.record("session failed: \(error)") }
        let after = live.counters(stage: pipeline.stage!)
        let demoBytes = UInt64(DemoStream.accessUnits.reduce(0) { $0 + $1.count })
        // ~2.5 s at 60 fps of a looped 60-AU stream: more than one loop's bytes, every AU decoded
        // (≥ 60 pictures out leaves room for a loaded machine; ~150 when quiet).
        #expect(after.videoBytes > demoBytes, "\(after.videoBytes) bytes")
        #expect(after.decodedPictures >= pictures && pictures >= 60, "\(after.decodedPictures) decoded, \(pictures) out")
        #expect(after.decodeNs > 0)
        #expect(after.framesLost == 0)          // loopback loses nothing
        #expect(printed >= 2)
        // Same machine, same clock: the handshake's offset is far below a second.
        let offset = try #require(live.clockOffsetNs)
        #expect(abs(offset) < 1_000_000_000, "offset \(offset) ns")
        // Every mapped capture lies shortly before the moment its picture came out: within the clock
        // sync's accuracy (about one loopback RTT; the test host echoes t3 = t2) of "before", and
        // far below a second after (a wrong clock would be hours off).
        #expect(ages.count >= 30)
        #expect(ages.allSatisfy { $0 > -20_000_000 && $0 < 1_000_000_000 }, "capture→decoded ages \(ages.prefix(8)) ns")
    }
}
