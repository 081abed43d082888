import Foundation
import Testing
import FFmpegOracle

/// Burst loss on the network path (pf-relay, Gilbert–Elliott) between the kiosk and a host whose
/// RFI anchors are honest, judged by libavcodec's clean decode of what the host sent: no picture
/// that differs from it may ever be shown (data-plane.md §4.3), asks are the kinds and ranges the
/// spec gives, and a lost answer recovers. `PF_LOSS_FIGURES=1` runs each scenario for 60 s and
/// prints the figures docs/PERFORMANCE.md records.
@Suite(.serialized) struct LossScenarioTests {
    static let ready = LossScenario.binariesBuilt && FFmpeg.path != nil
    static let why = "needs pf-testhost, pf-relay and punktfunk-kiosk beside the test bundle (swift build --build-tests) and ffmpeg"
    static let figures = ProcessInfo.processInfo.environment["PF_LOSS_FIGURES"] == "1"

    /// The invariants every scenario must keep.
    func expectClean(_ o: LossScenario.Outcome, _ label: String, seconds: Double) {
        #expect(o.kioskStatus == 0, "\(label): \(o.kioskStderr)")
        #expect(o.relayDropped > 0, "\(label): the relay dropped nothing: \(o.relaySummary)")
        // The host streams 60 frames a second (and on after the kiosk left, until it notices).
        #expect(Double(o.shown.count) >= seconds * 60 / 2, "\(label): \(o.shown.count) pictures shown in \(seconds) s")
        #expect(o.broken.isEmpty, "\(label): \(o.broken.count) shown pictures differ from libavcodec's clean decode, first: \(o.broken.prefix(5).map(\.frame))")
        let decoded = Set(o.pictures.map(\.frame))
        for ask in o.asks where !ask.keyframe && ask.answer != "resent" {
            guard let first = ask.first, let last = ask.last else {
                Issue.record("\(label): ask \(ask.number) neither keyframe nor RFI (\(ask.answer))")
                continue
            }
            // §4.3: an RFI names at most RFI_MAX_RANGE frames, and its ends are frames the client lost.
            #expect(last &- first &+ 1 <= 256, "\(label): RFI [\(first), \(last)]")
            #expect(!decoded.contains(first) && !decoded.contains(last), "\(label): RFI [\(first), \(last)] names a decoded frame")
        }
        // Ask numbers are new each time (the host acted on each once, in order).
        let numbers = o.asks.map(\.number)
        #expect(numbers == numbers.sorted() && Set(numbers).count == numbers.count, "\(label): ask numbers \(numbers)")
    }

    func report(_ o: LossScenario.Outcome, _ label: String, seconds: Double) {
        let holds = o.picture["holds"] as? Int ?? 0
        let heldMs = o.picture["held_total_ms"] as? Int ?? 0
        let longest = o.picture["longest_hold_ms"] as? Int ?? 0
        let nack = o.asks.filter { $0.answer == "resent" }.count
        let rfi = o.asks.filter { !$0.keyframe && $0.answer != "resent" }.count, key = o.asks.filter(\.keyframe).count
        print("loss-scenario \(label): \(o.sentFrames.count) frames sent, \(o.shown.count) shown, \(o.broken.count) broken shown, "
              + "\(o.pictures.count - o.shown.count) held pictures; \(holds) freezes, frozen \(heldMs) ms "
              + "(\(String(format: "%.2f", Double(heldMs) / 10 / seconds)) % of the run, longest \(longest) ms; "
              + "loss → first clean picture p50 \(o.recoveryMs(0.5).map { String(format: "%.1f", $0) } ?? "-") "
              + "p95 \(o.recoveryMs(0.95).map { String(format: "%.1f", $0) } ?? "-") ms); asks: \(rfi) RFI, \(key) keyframe, \(nack) NACK; "
              + "host: \(o.host("idrs")) IDRs (\(String(format: "%.1f", Double(o.host("idrs")) * 60 / seconds))/min), "
              + "\(o.host("anchors")) anchors, \(o.host("media_bytes")) media bytes; relay dropped \(o.relayDropped)")
    }

    @Test(.enabled(if: LossScenarioTests.ready, Comment(rawValue: LossScenarioTests.why)))
    func burstLossIsRepairedByAnchorsAndNoBrokenPictureIsShown() throws {
        var s = LossScenario()
        s.name = "loss-rfi"
        if Self.figures { s.seconds = 60; s.lossPercent = 2 }
        let o = try s.run()
        expectClean(o, "rfi", seconds: s.seconds)
        report(o, "rfi", seconds: s.seconds)
        // A burst of ≤ 256 frames is answered by an anchor, not an IDR, when a clean checkpoint is
        // still held (the test host keeps 12 checkpoints 8 frames apart: 96 frames).
        let rfis = o.asks.filter { !$0.keyframe }
        #expect(!rfis.isEmpty, "no RFI asked: \(o.relaySummary)")
        for ask in rfis where ask.last! &- ask.first! < 64 {
            #expect(ask.answer == "anchor", "RFI \(ask.number) [\(ask.first!), \(ask.last!)] answered by \(ask.answer)")
        }
        #expect(o.host("anchors") >= 1)
    }

    @Test(.enabled(if: LossScenarioTests.ready, Comment(rawValue: LossScenarioTests.why)))
    func theKeyframeOnlyBaselineNeverShowsABrokenPictureEither() throws {
        var s = LossScenario()
        s.name = "loss-keyframes"
        s.keyframesOnly = true
        if Self.figures { s.seconds = 60; s.lossPercent = 2 }
        let o = try s.run()
        expectClean(o, "keyframes", seconds: s.seconds)
        report(o, "keyframe-only", seconds: s.seconds)
        #expect(o.host("anchors") == 0)
        #expect(o.asks.allSatisfy { $0.answer == "keyframe" })
    }

    @Test(.enabled(if: LossScenarioTests.ready, Comment(rawValue: LossScenarioTests.why)))
    func aShortWholeFrameIsRepairedByANackResend() throws {
        // No parity and loss packet by packet: a P picture of six packets missing one or two of
        // them, its last one received, is a short whole AU (§4.3): NACKed, resent, completed.
        var s = LossScenario()
        s.name = "loss-nack"
        s.fecPercent = 0
        s.lossPercent = 1
        s.burstMs = nil
        s.seconds = 8
        let o = try s.run()
        expectClean(o, "nack", seconds: s.seconds)
        report(o, "nack", seconds: s.seconds)
        let resent = o.asks.filter { $0.answer == "resent" }
        #expect(resent.count >= 1, "no NACK was served: \(o.asks.map(\.answer))")
        // Each served NACK kept its frame: the frame was decoded and shown, no RFI needed.
        let shownFrames = Set(o.shown.map(\.frame))
        let repaired = resent.compactMap(\.nackFrame).filter { shownFrames.contains($0) }
        #expect(repaired.count * 2 >= resent.count, "\(repaired.count) of \(resent.count) NACKed frames shown")
    }

    @Test(.enabled(if: LossScenarioTests.ready, Comment(rawValue: LossScenarioTests.why)),
          arguments: [false, true])
    func aLostAnswerRecoversWithinASecond(keyframesOnly: Bool) throws {
        // The first two answers (IDR or anchor) vanish on the host's side of the path.
        var s = LossScenario()
        s.name = "loss-answer-\(keyframesOnly)"
        s.keyframesOnly = keyframesOnly
        s.loseAnswers = 2
        s.seconds = 8
        // Bursts of 5 media packets on average, about one per 400 packets (≈ 1.2 % loss): every
        // run has several losses the parity cannot rebuild, on a loaded machine too.
        s.packetChain = (p: 0.0025, r: 0.2)
        let o = try s.run()
        expectClean(o, "lost answers", seconds: s.seconds)
        report(o, "lost answers\(keyframesOnly ? " (keyframe-only)" : "")", seconds: s.seconds)
        try #require(o.asks.count >= 3, "\(o.asks.count) asks")
        // The third answer arrived: the freeze it lifted began with the loss whose answers were
        // lost, and every freeze ended within about a second.
        // (a hold still running at the end counts with its length so far)
        let longestMs = o.picture["longest_hold_ms"] as? Int ?? .max
        #expect((o.picture["holds"] as? Int ?? 0) >= 1, "\(o.picture)")
        #expect(longestMs <= 1_200, "a freeze lasted \(longestMs) ms: \(o.picture)")
        // Pictures after the recovery were shown.
        let lastAsk = o.asks[2]
        let after = o.shown.filter { $0.frame > (lastAsk.last ?? 0) }
        #expect(after.count >= 60, "\(after.count) pictures shown after the third answer")
    }
}
