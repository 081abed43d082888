import Foundation
import Testing
import PunktfunkWire
@testable import PunktfunkSession
import PunktfunkTestHost

/// Mid-stream mode requests: the client's self-limit and the answer, then a round trip against
/// the test host over loopback.
@Suite struct ModeRequestTests {
    let uhd = Mode(width: 3840, height: 2160, refreshHz: 60)
    let hd = Mode(width: 1920, height: 1080, refreshHz: 60)

    @Test func theNewestWishLeavesAtMostOncePerSecond() {
        var requests = ModeRequests()
        #expect(requests.due(nowNs: 0) == nil)
        requests.want(hd)
        #expect(requests.due(nowNs: 5_000) == hd)
        #expect(requests.asked == hd)
        #expect(requests.due(nowNs: 6_000) == nil)
        // Two wishes within the second: only the newer goes, once the second is over.
        requests.want(hd)
        requests.want(uhd)
        #expect(requests.due(nowNs: 5_000 + ModeRequests.minimumIntervalNs - 1) == nil)
        #expect(requests.due(nowNs: 5_000 + ModeRequests.minimumIntervalNs) == uhd)
        #expect(requests.waiting == nil)
    }

    @Test func answersMatchTheOpenRequest() {
        var requests = ModeRequests()
        // No request open: a host's correction is not an answer.
        #expect(requests.answered(Reconfigured(accepted: true, mode: hd)) == nil)
        requests.want(uhd)
        _ = requests.due(nowNs: 0)
        #expect(requests.answered(Reconfigured(accepted: false, mode: hd)) == .refused(requested: uhd, active: hd))
        #expect(requests.answered(Reconfigured(accepted: false, mode: hd)) == nil)
        requests.want(uhd)
        _ = requests.due(nowNs: 2_000_000_000)
        #expect(requests.answered(Reconfigured(accepted: true, mode: uhd)) == .accepted(uhd))
    }

    /// The runner's route: `outbox.requestMode` from another thread mid-stream; the pump sends
    /// Reconfigure, the test host answers Reconfigured and a StreamConfig of a new epoch whose
    /// first frame is a keyframe; `onModeAnswer` reports it. A refused request (the host refuses
    /// a zero size) reports the mode still active.
    @Test func aMidStreamModeRequestIsAnsweredOverLoopback() throws {
        let rig = try SessionRig(accessUnits: SyntheticAccessUnits.make(count: 30, bytes: 4_000, seed: 3)) {
            $0.keyframeIndices = [0]
        }
        let client = rig.client(seconds: 3.0)
        var answers: [ModeAnswer] = []
        var configs: [StreamConfig] = []
        client.onModeAnswer = { answers.append($0) }
        client.onControl = { if case .streamConfig(let c) = $0 { configs.append(c) } }
        let outbox = client.outbox
        let wanted = Mode(width: 1280, height: 720, refreshHz: 50)
        Thread {
            Thread.sleep(forTimeInterval: 0.5)
            outbox.requestMode(wanted)
            // Within the second: held back by the self-limit, sent at its end.
            Thread.sleep(forTimeInterval: 0.2)
            outbox.requestMode(Mode(width: 0, height: 0, refreshHz: 0))
        }.start()
        let run = runClient(client)
        #expect(rig.join())
        #expect(run.error == nil, "\(String(describing: run.error))")
        #expect(answers == [.accepted(wanted), .refused(requested: Mode(width: 0, height: 0, refreshHz: 0), active: wanted)])
        #expect(configs.map(\.epoch) == [0, 1])
        #expect(configs.last?.mode == wanted)
        let epoch1 = run.epochs.filter { $0.value == 1 }.keys.sorted()
        #expect(epoch1.count >= 10, "\(epoch1.count) frames in epoch 1")
        if let first = epoch1.first { #expect(run.keyframes.contains(first)) }
    }
}
