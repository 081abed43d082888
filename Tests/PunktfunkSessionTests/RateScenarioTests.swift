import Foundation
import LinkScenario
import Testing

/// The rate loop on the real path (issue 39): pf-testhost following SetBitrate with filler, pf-relay
/// as a 100 ms drop-tail bottleneck, the kiosk headless — short versions of the benchmark's
/// scenarios (`punktfunk-bench rate`), asserting the same rules. Each picture shown is judged by
/// libavcodec's clean decode of what the host sent.
@Suite(.serialized, .enabled(if: LossScenarioTests.ready, Comment(rawValue: LossScenarioTests.why)))
struct RateScenarioTests {
    /// Capacity 40 → 10 Mbit/s at 5 s while the host streams its default 30 Mbit/s.
    @Test func aCapacityDropIsFollowedWithinSecondsAndNoBrokenPictureIsShown() throws {
        var s = RateScenario()
        s.name = "rate-drop"
        s.seconds = 14
        s.capacity = "0:40000,5:10000"
        let o = try s.run(binaries: PumpExecutableTests.binDirectory)
        #expect(o.kioskStatus == 0, "\(o.kioskStderr)")
        #expect(!o.rateLines.isEmpty, "the kiosk wrote its rate log")
        if ProcessInfo.processInfo.environment["PF_RATE_DEBUG"] == "1" {
            for l in o.rateLines { print(String(format: "%.2f", o.seconds(l.monoNs)), l.asked, l.granted, l.deliveredKbps, l.owdRiseMs, l.verdict, l.reason) }
            for b in o.setBitrates { print("set", String(format: "%.2f", o.seconds(b.monoNs)), b.kbps) }
            for w in o.hostWire { print("wire", String(format: "%.2f", o.seconds(w.monoNs)), w.kbps) }
            for q in o.queue where Int(o.seconds(q.monoNs) * 10) % 5 == 0 { print("q", String(format: "%.2f", o.seconds(q.monoNs)), q.queueMs, q.sentKbps, q.drops) }
            print(o.kioskStderr)
        }
        let asked = o.askedAtOrBelow(10_000, after: 5)
        #expect(asked.map { $0 <= 2.5 } ?? false, "asked ≤ capacity \(asked.map { String($0) } ?? "never") s after the drop")
        let wire = o.hostWireSettled(atOrBelow: 11_000, after: 5, until: 14)
        #expect(wire.map { $0 <= 3 } ?? false, "host wire ≤ 1.1× capacity \(wire.map { String($0) } ?? "never") s after the drop")
        #expect(o.broken.isEmpty, "\(o.broken.count) broken pictures shown")
        #expect(o.queueDelayMs(0.95, from: 9, to: 13.5) <= 30)
        // The benchmark holds the 2 % figure; here other suites share the two cores.
        #expect(o.frozenFraction(from: 9, to: 13.5) <= 0.15)
    }

    /// A host that serves the bring-up ramp (HOST_CAP2_RAMP) on an 8 Mbit/s line: the probe steps
    /// find the wall before the first frame, and the stream starts under it instead of at the
    /// host's 30 Mbit/s.
    @Test func theBringUpRampStartsTheStreamUnderTheWall() throws {
        var s = RateScenario()
        s.name = "rate-ramp"
        s.seconds = 6
        s.capacity = "0:8000"
        s.hostRamp = true
        let o = try s.run(binaries: PumpExecutableTests.binDirectory)
        #expect(o.kioskStatus == 0, "\(o.kioskStderr)")
        #expect(o.hostProbe.first.map { $0.kbps > 0 } ?? false, "the host served ramp steps in its first second")
        let first = try #require(o.setBitrates.first, "the start went out as a SetBitrate")
        let start = try #require(o.sent.first).monoNs
        // The ramp's verdict is 70 % of the wall when its 25 ms steps read the line; on a machine
        // too loaded to time them (this debug kiosk on two busy cores: the first ask came 2.1–2.2 s
        // after the first frame in 2 of 4 runs), the per-frame rule catches the first frames' delay
        // instead. Either way the first ask is under the wall, and soon.
        #expect(first.kbps <= 8_000, "the first ask (\(first.kbps) kbit/s at \(o.seconds(first.monoNs) - o.seconds(start)) s) is under the wall")
        let under = o.askedAtOrBelow(8_000, after: o.seconds(start))
        #expect(under.map { $0 <= 2.5 } ?? false, "asked ≤ the wall \(under.map { String($0) } ?? "never") s after the first frame")
        #expect(o.broken.isEmpty)
    }

    /// A dozing receiver (each frame's first two datagrams lost from 2 s on, FEC repairs them): the
    /// head signature asks the host to shape its frames (Feedback `shape` = 1) within two windows,
    /// and moves no rate.
    @Test func headLossAsksForShapingAndMovesNoRate() throws {
        var s = RateScenario()
        s.name = "rate-head"
        s.seconds = 8
        s.capacity = "0:40000"
        s.doze = "5:2"
        s.kioskBitrateKbps = 20_000
        let o = try s.run(binaries: PumpExecutableTests.binDirectory)
        #expect(o.kioskStatus == 0, "\(o.kioskStderr)")
        let shaped = o.rateLines.first { $0.verdict == "shape" }
        #expect(shaped.map { o.seconds($0.monoNs) <= 2 + 3 * 0.75 } ?? false,
                "shape asked at \(shaped.map { String(o.seconds($0.monoNs)) } ?? "never") s: \(o.rateLines.map(\.reason))")
        #expect(o.cuts(from: 0, to: 9) == 0, "\(o.rateLines.filter { $0.verdict == "cut" }.map(\.reason))")
        #expect(o.broken.isEmpty)
    }

    /// A 150 ms outage every 4 s on a line the stream fits (ceiling 20 Mbit/s, capacity 40): an
    /// outage is not a lower capacity — no cut, and nothing broken after it.
    @Test func shortOutagesMoveNoRate() throws {
        var s = RateScenario()
        s.name = "rate-outage"
        s.seconds = 13
        s.capacity = "0:40000"
        s.outages = ["150@4"]
        s.kioskBitrateKbps = 20_000
        let o = try s.run(binaries: PumpExecutableTests.binDirectory)
        #expect(o.kioskStatus == 0, "\(o.kioskStderr)")
        #expect(o.cuts(from: 0, to: 14) == 0, "\(o.rateLines.filter { $0.verdict == "cut" }.map(\.reason))")
        #expect(o.askedKbps(at: 12.9) >= 20_000 * 0.9)
        #expect(o.broken.isEmpty, "\(o.broken.count) broken pictures shown")
    }
}
