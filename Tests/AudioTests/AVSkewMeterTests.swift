import Testing
import Audio
import AudioSimulation

/// The A/V skew machinery of `punktfunk-bench avskew` (issue 22 item 3): pairing, sign, summary,
/// the vblank stand-in for a flip, and the sink's delay model. Simulated clocks only: nothing here
/// depends on how fast the machine is.
@Suite struct AVSkewMeterTests {
    static let ms: Int64 = 1_000_000

    @Test func pairsEachMarkerWithTheFrameOfTheSameCaptureTimeAndSignsAudioLateAsPositive() {
        var meter = AVSkewMeter(toleranceNs: 2 * Self.ms)
        // Video at 60 fps, 30 ms capture → glass; audio markers every 50 ms, 40 ms capture → out.
        for i in 0..<30 {
            let cap = Int64(i) * 16_666_667
            meter.noteVideoMarker(captureNs: cap, glassNs: cap + 30 * Self.ms)
        }
        for k in 0..<10 {
            let cap = Int64(k) * 50 * Self.ms + 1  // within a nanosecond of frame 3k
            meter.noteAudioMarker(captureNs: cap, outNs: cap + 40 * Self.ms)
        }
        // A marker with no frame near its capture time stays unpaired.
        meter.noteAudioMarker(captureNs: 10 * Self.ms, outNs: 50 * Self.ms)
        let skews = meter.skews()
        #expect(skews.count == 10)
        #expect(skews.allSatisfy { $0 == 10 * Self.ms })
        let s = meter.summary()
        #expect(s?.pairs == 10)
        #expect(s?.unpaired == 1)
        #expect(s?.p50Ns == 10 * Self.ms)
        #expect(s?.maxAbsNs == 10 * Self.ms)
        #expect(s?.withinAim == 10)
        #expect(meter.summary(aimNs: 5 * Self.ms)?.withinAim == 0)
    }

    @Test func noPairsNoSummary() {
        var meter = AVSkewMeter()
        meter.noteAudioMarker(captureNs: 0, outNs: 1)
        #expect(meter.skews().isEmpty)
        #expect(meter.summary() == nil)
    }

    @Test func aPictureReachesGlassAtTheNextVblank() {
        let p: Int64 = 16_666_667
        #expect(AVSkewMeter.nextVblank(atOrAfter: 1_000, phaseNs: 1_000, periodNs: p) == 1_000)
        #expect(AVSkewMeter.nextVblank(atOrAfter: 1_001, phaseNs: 1_000, periodNs: p) == 1_000 + p)
        #expect(AVSkewMeter.nextVblank(atOrAfter: 1_000 + 3 * p - 1, phaseNs: 1_000, periodNs: p) == 1_000 + 3 * p)
    }

    /// Packets every 5 ms arriving 2 ms after capture.
    static func steadyArrivals(seconds: Int) -> [AVSkewMeter.Arrival] {
        (0..<(seconds * 200)).map { i in
            AVSkewMeter.Arrival(seq: UInt32(i), ptsNs: UInt64(i) * 5_000_000, arrivalNs: Int64(i) * 5 * ms + 2 * ms)
        }
    }

    /// Nearly every packet is played, each after it arrived (by the wake, 5 ms before it plays), in order.
    @Test func theSinkModelPlaysEveryPacketAfterItArrivedInOrder() {
        let arrivals = Self.steadyArrivals(seconds: 3)
        let out = AVSkewMeter.deviceOutTimes(arrivals, dacStartNs: 2 * Self.ms, endNs: 3_500 * Self.ms,
                                             captureNs: { Int64($0) * 5 * Self.ms }, videoLatencyNs: nil)
        let played = arrivals.compactMap { a in out[a.seq].map { (a, $0) } }
        #expect(played.count >= arrivals.count - 20)  // a few packets' worth of start-up buffering may remain unplayed at most
        #expect(played.allSatisfy { a, o in o >= a.arrivalNs + 5 * Self.ms })
        let ordered = zip(played, played.dropFirst()).allSatisfy { (p: (AVSkewMeter.Arrival, Int64), q: (AVSkewMeter.Arrival, Int64)) in
            q.1 > p.1 && q.0.seq > p.0.seq
        }
        #expect(ordered)
    }

    @Test func withAVSyncControlEarlyAudioIsHeldTowardTheVideo() {
        let arrivals = Self.steadyArrivals(seconds: 10)
        let capture: (UInt32) -> Int64? = { Int64($0) * 5 * Self.ms }
        let video: Int64 = 80 * Self.ms  // video far later than the audio's natural latency
        func lastSkew(_ v: Int64?) -> Int64 {
            let out = AVSkewMeter.deviceOutTimes(arrivals, dacStartNs: 2 * Self.ms, endNs: 10_500 * Self.ms,
                                                 captureNs: capture, videoLatencyNs: v)
            let last = arrivals.last { out[$0.seq] != nil }!
            return out[last.seq]! - capture(last.seq)! - video
        }
        let free = lastSkew(nil)
        let held = lastSkew(video)
        #expect(free < -20 * Self.ms)  // audio early by far more than the aim without the control
        #expect(abs(held) < abs(free))
    }
}
