import Testing
import PunktfunkWire
@testable import Kiosk

/// The latency split of one stats window: nearest-rank p50/p95 per part, shares placed on the
/// right clocks (pts on the session clock, decode and glass on CLOCK_MONOTONIC).
@Suite struct LatencyBreakdownTests {
    @Test func percentilesPerPartAndEmptyPartsAreNull() {
        var w = LatencyWindow()
        for ms in 1...20 { w.add(.decode, ns: Int64(ms) * 1_000_000) }
        w.add(.host, ns: -5)   // clock skew: dropped
        let f = w.roll()
        // Nearest rank of 20 samples: p50 = 10th, p95 = 19th.
        #expect(f.decode == .init(p50Ms: 10, p95Ms: 19))
        #expect(f.host == nil && f.network == nil && f.display == nil && f.total == nil)
        #expect(f.jsonMember == "\"latency\":{\"host_ms\":null,\"network_ms\":null,\"decode_ms\":{\"p50\":10.000,\"p95\":19.000},\"display_ms\":null,\"total_ms\":null}")
        #expect(f.overlayLine == "split   host - net - dec 10.0 disp - ms")
        #expect(w.roll() == LatencyFigures())   // the next window starts empty
    }

    /// One frame through all three threads. Session clock = client realtime + offset; client
    /// realtime = monotonic + 1000 s here; offset 250 µs.
    @Test func oneFrameSplitsIntoHostNetworkDecodeDisplayAndTotal() {
        let rtMinusMono: Int64 = 1_000_000_000_000
        let offset: Int64 = 250_000
        let b = LatencyBreakdown(realtimeMinusMonotonicNs: rtMinusMono)
        let captureMono: Int64 = 5_000_000_000
        let pts = captureMono + rtMinusMono + offset
        // Host 4 ms, then 1.5 ms on the network: last packet at capture + 5.5 ms.
        let lastMono = UInt64(captureMono + 5_500_000)
        b.frameTiming(.init(frame: 1, ptsNs: pts, host: HostTiming(ptsNs: UInt64(pts), hostUs: 4_000),
                            firstArrivalNs: 0, lastArrivalNs: Int64(lastMono) + rtMinusMono + offset), clockOffsetNs: offset)
        b.decoded(ptsNs: pts, completeNs: lastMono, decodedNs: lastMono + 3_000_000)        // 3 ms decode
        b.noteFrame(id: 77, ptsNs: pts)
        b.shown(id: 77, glassNs: lastMono + 3_000_000 + 8_000_000)                        // 8 ms to glass
        let f = b.figures(second: 1)
        #expect(f.host?.p50Ms == 4 && f.network?.p50Ms == 1.5 && f.decode?.p50Ms == 3 && f.display?.p50Ms == 8)
        #expect(f.total?.p50Ms == 16.5)
        #expect(b.figures(second: 1) == f && b.newest == f)   // the same second: the same figures
        #expect(b.figures(second: 2) == LatencyFigures())
    }
}

import Screen

/// The overlay carries the split as one line after the five fixed ones.
@Suite struct LatencyOverlayLineTests {
    @Test func theStatsWindowPassesTheSplitLineToTheOverlay() {
        var counters = StatsCounters(videoBytes: 0, decodedPictures: 0, decodeNs: 0, framesLost: 0)
        var window = StatsWindow(startNs: 0, counters: counters)
        counters.latencyLine = LatencyFigures(host: .init(p50Ms: 8.84, p95Ms: 9), network: .init(p50Ms: 11.2, p95Ms: 12)).overlayLine
        let f = window.roll(nowNs: 1_000_000_000, counters: counters)
        let lines = f?.lines(latencyLabel: "capture→glass") ?? []
        #expect(lines.count == 6 && lines[5] == "split   host 8.8 net 11.2 dec - disp - ms")
    }
}
