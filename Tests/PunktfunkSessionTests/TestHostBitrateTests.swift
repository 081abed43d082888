import Foundation
import Testing
import HEVC
import PunktfunkWire
@testable import PunktfunkSession
import PunktfunkTestHost

/// The test host's rate side (issue 39): SetBitrate answers and reasons, the per-frame budget and
/// its filler NAL units, the probe gate with the bring-up ramp, PipelineGap, the wire log.
@Suite struct TestHostBitratePolicyTests {
    @Test func policiesGrantAndGiveReasons() {
        #expect(HostBitratePolicy(parsing: "granted") == .granted)
        #expect(HostBitratePolicy(parsing: "encoder-limit:15000") == .encoderLimit(15_000))
        #expect(HostBitratePolicy(parsing: "governor:8000") == .governor(8_000))
        #expect(HostBitratePolicy(parsing: "cadence") == .cadence && HostBitratePolicy(parsing: "pinned") == .pinned)
        for bad in ["", "encoder-limit", "governor:x", "pinned:3", "granted:1", "limit:5"] { #expect(HostBitratePolicy(parsing: bad) == nil) }
        #expect(HostBitratePolicy.granted.answer(asked: 20_000, current: 30_000) == (20_000, .granted))
        #expect(HostBitratePolicy.encoderLimit(15_000).answer(asked: 20_000, current: 30_000) == (15_000, .encoderLimit))
        #expect(HostBitratePolicy.encoderLimit(15_000).answer(asked: 10_000, current: 30_000) == (10_000, .granted))
        #expect(HostBitratePolicy.governor(8_000).answer(asked: 20_000, current: 30_000) == (8_000, .governor))
        #expect(HostBitratePolicy.cadence.answer(asked: 20_000, current: 30_000) == (20_000, .cadence))
        #expect(HostBitratePolicy.pinned.answer(asked: 20_000, current: 30_000) == (30_000, .pinned))
    }

    /// The most whole shards K with (K + parity(K))·(P + 74) ≤ wire per frame, video = K·P:
    /// 30 Mbit/s at 60 fps = 62 500 B → K = 38 (+4 parity = 42 × 1482 = 62 244); 10 Mbit/s =
    /// 20 833 B → K = 12 (+2); 4 Mbit/s = 8333 B → K = 3 (+2 parity, the minimum).
    @Test func budgetFormula() {
        #expect(HostFrameBudget.shardOverheadBytes == 74)
        #expect(HostFrameBudget.videoBytesPerFrame(kbps: 30_000, fps: 60, shardPayload: 1408, fecPercent: 10) == 38 * 1408)
        #expect(HostFrameBudget.videoBytesPerFrame(kbps: 10_000, fps: 60, shardPayload: 1408, fecPercent: 10) == 12 * 1408)
        #expect(HostFrameBudget.videoBytesPerFrame(kbps: 4_000, fps: 60, shardPayload: 1408, fecPercent: 10) == 3 * 1408)
        #expect(HostFrameBudget.videoBytesPerFrame(kbps: 10_000, fps: 60, shardPayload: 1408, fecPercent: 0, audioKbps: 400) == 13 * 1408)
        #expect(HostFrameBudget.videoBytesPerFrame(kbps: 100, fps: 60, shardPayload: 1408, fecPercent: 10, audioKbps: 200) == 0)
        for kbps in stride(from: UInt32(2_000), through: 100_000, by: 1_700) {
            let v = HostFrameBudget.videoBytesPerFrame(kbps: kbps, fps: 60, shardPayload: 1408, fecPercent: 20)
            let k = v / 1408
            let wire = Double(kbps) * 125 / 60
            #expect(Double(k + Packetizer.recoveryFor(k: k, percent: 20)) * 1482 <= wire)
            #expect(Double(k + 1 + Packetizer.recoveryFor(k: k + 1, percent: 20)) * 1482 > wire)
        }
    }

    /// A filler NAL unit is `00 00 00 01 4C 01 FF… 80`, inserted right after the last slice (before
    /// a trailing EOS), and exactly fills the budget; short deficits and over-budget AUs stay.
    @Test func paddingPlacesOneFillerNALAfterTheSlices() {
        #expect(HostFrameBudget.fillerNAL(bytes: 10) == [0, 0, 0, 1, 0x4C, 0x01, 0xFF, 0xFF, 0xFF, 0x80])
        let slice: [UInt8] = [0, 0, 0, 1, 0x02, 0x01, 0xD0, 0x11, 0x22]   // TRAIL_R, first_slice 1
        let eos: [UInt8] = [0, 0, 0, 1, 0x48, 0x01]                       // EOS_NUT (36)
        let au = [0, 0, 0, 1, 0x40, 0x01, 0x0C] + slice + eos            // VPS, slice, EOS
        let padded = HostFrameBudget.pad(au, to: 100)
        #expect(padded.count == 100)
        let types = AnnexB.nalUnitRanges(in: padded).map { padded[$0.lowerBound] >> 1 & 0x3F }
        #expect(types == [32, 1, 38, 36])
        #expect(Array(padded.suffix(6)) == eos)
        #expect(HostFrameBudget.pad(au, to: au.count + 6) == au)
        #expect(HostFrameBudget.pad(au, to: 5) == au)
        #expect(HostFrameBudget.pad([1, 2, 3], to: 20) == [1, 2, 3] + HostFrameBudget.fillerNAL(bytes: 17))
        // The demo stream padded stays the same access units for the splitter (filler never starts one).
        let demo = DemoStream.accessUnits
        let stream = demo.flatMap { HostFrameBudget.pad($0, to: 18_115) }  // any size over the AUs'
        let split = AccessUnitSplitter.splitPreservingBytes(stream)
        #expect(split.count == demo.count && split.allSatisfy { $0.count == 18_115 })
        #expect(AccessUnitSplitter.keyframeIndices(split) == DemoStream.keyframeIndices)
    }

    @Test func probeGateSpacesBurstsButServesRampSteps() {
        let s: UInt64 = 1_000_000_000
        var plain = ProbeGate(rampAdvertised: false)
        #expect(plain.decide(durationMs: 25, now: 1 * s, windowOpen: true) == .serve)
        #expect(plain.decide(durationMs: 25, now: 2 * s, windowOpen: true) == .declined)
        #expect(plain.decide(durationMs: 1000, now: 11 * s + 1, windowOpen: false) == .serve)
        var ramp = ProbeGate(rampAdvertised: true)
        #expect(ramp.decide(durationMs: 25, now: 1 * s, windowOpen: true) == .rampStep)
        #expect(ramp.decide(durationMs: 25, now: 1 * s + 100, windowOpen: true) == .rampStep)
        // After the first frame: 1 s of grace from the last in-window step, not extended by itself.
        #expect(ramp.decide(durationMs: 50, now: 1 * s + 900_000_000, windowOpen: false) == .rampStep)
        #expect(ramp.decide(durationMs: 25, now: 2 * s + 200, windowOpen: false) == .serve)  // a normal burst now
        #expect(ramp.decide(durationMs: 25, now: 2 * s + 300, windowOpen: false) == .declined)
        #expect(ramp.decide(durationMs: 60, now: 2 * s + 400, windowOpen: true) == .declined)  // not a step: the spacing
        var only = ProbeGate(rampAdvertised: false, probeOnly: true)
        #expect(only.decide(durationMs: 1000, now: s, windowOpen: false) == .serve && only.decide(durationMs: 1000, now: s, windowOpen: false) == .serve)
    }

    @Test func pipelineGapParsingAndLogLines() {
        #expect(PipelineGapEvent(parsing: "20") == PipelineGapEvent(atNs: 20_000_000_000, gapMs: 200))
        #expect(PipelineGapEvent(parsing: "1.5:300") == PipelineGapEvent(atNs: 1_500_000_000, gapMs: 300))
        #expect(PipelineGapEvent(parsing: "x") == nil && PipelineGapEvent(parsing: "1:2:3") == nil && PipelineGapEvent(parsing: "-1") == nil)
        #expect(HostBitrateEvent(kind: .setBitrate(kbps: 20_000), monoNs: 5, tMs: 7).json
                == "{\"set_bitrate\":{\"kbps\":20000,\"t_ms\":7,\"mono_ns\":5}}")
        #expect(HostBitrateEvent(kind: .bitrateChanged(kbps: 15_000, asked: 20_000, reason: .encoderLimit, reasonSent: true), monoNs: 5, tMs: 7).json
                == "{\"bitrate_changed\":{\"kbps\":15000,\"asked_kbps\":20000,\"reason\":\"encoder-limit\",\"reason_sent\":true,\"t_ms\":7,\"mono_ns\":5}}")
        #expect(HostBitrateEvent(kind: .pipelineGap(gapMs: 300), monoNs: 5, tMs: 7).json
                == "{\"pipeline_gap\":{\"gap_ms\":300,\"t_ms\":7,\"mono_ns\":5}}")
        #expect(HostWireSecond(second: 2, monoNs: 9, videoBytes: 1_250_000, probeBytes: 125_000, grantedKbps: 10_000, frames: 60,
                               fillerBytes: 1_000_000, framesOverBudget: 1).json
                == "{\"host_wire\":{\"t_ms\":3000,\"mono_ns\":9,\"kbps\":11000,\"video_kbps\":10000,\"probe_kbps\":1000,\"granted_kbps\":10000,\"frames\":60,\"filler_kbps\":8000,\"frames_over_budget\":1}}")
    }
}

/// The test host over loopback with a real client: the start rate from `bitrateKbps`, the AUs
/// padded to the budget, SetBitrate answered by the policy with its reason (the hello sets ABR
/// bit0), the wire rate following the grant, PipelineGap with a pause and a keyframe, the ramp
/// capability in the ServerHello.
@Suite(.serialized) struct TestHostBitrateLoopbackTests {
    @Test func theWireRateFollowsTheGrant() throws {
        let events = LockedBox<[HostBitrateEvent]>([])
        let seconds = LockedBox<[HostWireSecond]>([])
        let rig = try SessionRig(accessUnits: DemoStream.accessUnits) {
            $0.keyframeIndices = DemoStream.keyframeIndices
            $0.bitrateKbps = 8_000
            $0.followBitrate = true
            $0.bitratePolicy = .encoderLimit(4_000)
            $0.rampProbes = true
            $0.rampWindowNs = 100_000_000
            $0.pipelineGaps = [PipelineGapEvent(atNs: 2_300_000_000, gapMs: 300)]
            $0.onBitrateEvent = { e in events.mutate { $0.append(e) } }
            $0.onWireSecond = { w in seconds.mutate { $0.append(w) } }
        }
        var hello = ClientSession.defaultHello
        hello.abrFeatures = .ackReason
        let client = ClientSession(options: .init(remote: rig.host.localAddress, identity: QuicLoopbackTests.clientIdentity,
                                                  trust: .pinned(QuicLoopbackTests.hostIdentity.fingerprint), seconds: 3.6,
                                                  hello: hello))
        var controls: [ControlMessage] = []
        var parameters: SessionParameters?
        client.onControl = { controls.append($0) }
        client.onEstablished = { parameters = $0 }
        let outbox = client.outbox
        Thread {
            Thread.sleep(forTimeInterval: 1.2)
            outbox.sendControl(.setBitrate(SetBitrate(kbps: 6_000)))  // over the 4000 cap
        }.start()
        let run = runClient(client)
        #expect(rig.join())
        #expect(run.error == nil, "\(String(describing: run.error))")
        _ = parameters
        #expect(controls.contains(.bitrateChanged(BitrateChanged(kbps: 4_000, reason: .encoderLimit))))
        #expect(controls.contains(.pipelineGap(PipelineGap(gapMs: 300))))
        let log = events.get
        #expect(log.contains { if case .setBitrate(6_000) = $0.kind { return true }; return false })
        #expect(log.contains { $0.kind == .bitrateChanged(kbps: 4_000, asked: 6_000, reason: .encoderLimit, reasonSent: true) })
        #expect(log.contains { $0.kind == .pipelineGap(gapMs: 300) })
        // Every AU was padded to its budget: 8000 kbps before the grant, 4000 after.
        let b8 = HostFrameBudget.videoBytesPerFrame(kbps: 8_000, fps: 60, shardPayload: 1408, fecPercent: 10)
        let b4 = HostFrameBudget.videoBytesPerFrame(kbps: 4_000, fps: 60, shardPayload: 1408, fecPercent: 10)
        // The IDR (4418 bytes: parameter sets and x265's info SEI) is over the 4000 kbps budget
        // (3 shards, 4224 bytes) and goes as it is.
        let idr = DemoStream.accessUnits[0].count
        #expect(idr > b4 && idr < b8)
        let sizes = Set(run.aus.values.map(\.count))
        #expect(sizes == [b8, b4, idr], "\(sizes)")
        #expect(run.aus.filter { run.keyframes.contains($0.key) }.allSatisfy { $0.value.count == idr || $0.value.count == b8 })
        // The wire seconds: ≈ 8 Mbit/s in second 0 (less the ramp window's 100 ms), ≈ 4 after the grant.
        let w = seconds.get
        #expect(w.count >= 3)
        if w.count >= 3 {
            let kbps = w.map { Double($0.videoBytes) * 8 / 1000 }
            #expect(kbps[0] > 8_000 * 0.8 && kbps[0] <= 8_000 * 1.02, "\(kbps)")
            #expect(kbps[2] > 4_000 * 0.5 && kbps[2] <= 4_000 * 1.02, "\(kbps)")  // holds the 300 ms gap
            #expect(w[2].grantedKbps == 4_000 && w[0].frames > 50)
        }
        // The keyframe after the gap.
        #expect(run.keyframes.count >= 2, "\(run.keyframes)")
        #expect(rig.host.grantedKbps == 4_000)
    }

    /// With --ramp, 25 ms steps in the window (first frame held) and within a second after it are
    /// all served; a second long probe within 10 s is declined with an empty ProbeResult.
    @Test func rampStepsAreServedAndLongProbesSpaced() throws {
        let rig = try SessionRig(accessUnits: DemoStream.accessUnits) {
            $0.rampProbes = true
            $0.rampWindowNs = 600_000_000
        }
        let client = rig.client(seconds: 2.0)
        var results: [ProbeResult] = []
        client.onControl = { if case .probeResult(let r) = $0 { results.append(r) } }
        var ramp = false
        client.onEstablished = { _ in ramp = true }
        let outbox = client.outbox
        Thread {
            Thread.sleep(forTimeInterval: 0.25)
            for _ in 0..<3 {
                outbox.sendControl(.probeRequest(ProbeRequest(targetKbps: 20_000, durationMs: 25)))
                Thread.sleep(forTimeInterval: 0.06)
            }
            Thread.sleep(forTimeInterval: 0.5)
            outbox.sendControl(.probeRequest(ProbeRequest(targetKbps: 20_000, durationMs: 200)))
            Thread.sleep(forTimeInterval: 0.4)
            outbox.sendControl(.probeRequest(ProbeRequest(targetKbps: 20_000, durationMs: 200)))
        }.start()
        let run = runClient(client)
        #expect(rig.join())
        #expect(run.error == nil && ramp)
        #expect(results.count == 5, "\(results)")
        #expect(results.prefix(4).allSatisfy { $0.packetsSent > 0 }, "\(results)")
        #expect(results.last == ProbeResult(), "the second long probe within 10 s is declined")
    }
}
