import Testing
@testable import PunktfunkWire

/// 0xCF host timing joined to AUs by pts (data-plane.md §7.5: "Joined to the AU by pts_ns";
/// host_us = capture → send), in either arrival order.
@Suite struct HostTimingJoinTests {
    static func frame(_ n: UInt32, pts: Int64, last: Int64) -> HostTimingJoin.Frame {
        .init(frame: n, ptsNs: pts, host: nil, firstArrivalNs: last - 1_000_000, lastArrivalNs: last)
    }

    @Test func joinsEitherOrderAndSplitsHostFromNetwork() {
        var join = HostTimingJoin()
        var out: [HostTimingJoin.Frame] = []
        // Before any 0xCF: the AU goes at once, its network share = last arrival − pts.
        join.accessUnit(Self.frame(1, pts: 10_000_000, last: 19_000_000)) { out.append($0) }
        #expect(out.count == 1 && out[0].host == nil && out[0].networkNs == 9_000_000)
        // 0xCF first, then its AU: host 6.5 ms, network = 30 − (20 + 6.5) = 3.5 ms.
        join.hostTiming(HostTiming(ptsNs: 20_000_000, hostUs: 6_500)) { out.append($0) }
        #expect(out.count == 1)
        join.accessUnit(Self.frame(2, pts: 20_000_000, last: 30_000_000)) { out.append($0) }
        #expect(out.count == 2 && out[1].frame == 2 && out[1].host?.hostUs == 6_500 && out[1].networkNs == 3_500_000)
        // The AU first (it waits now that the host sends 0xCF), then its 0xCF.
        join.accessUnit(Self.frame(3, pts: 36_000_000, last: 45_000_000)) { out.append($0) }
        #expect(out.count == 2)
        let stages = HostTiming.Stages(queueUs: 500, encodeUs: 4_000, paceUs: 1_000)
        join.hostTiming(HostTiming(ptsNs: 36_000_000, hostUs: 7_000, stages: stages)) { out.append($0) }
        #expect(out.count == 3 && out[2].frame == 3 && out[2].host?.stages == stages && out[2].networkNs == 2_000_000)
        #expect(out[2].spreadNs == 1_000_000)
    }

    /// An AU whose 0xCF never comes is reported without one once `slots` newer AUs waited.
    @Test func anAUWithoutItsTimingIsReportedWhenPushedOut() {
        var join = HostTimingJoin()
        var out: [HostTimingJoin.Frame] = []
        join.hostTiming(HostTiming(ptsNs: 1, hostUs: 1)) { out.append($0) }   // the host sends 0xCF
        for n in 0..<HostTimingJoin.slots {
            join.accessUnit(Self.frame(UInt32(n), pts: Int64(n + 1) * 1_000_000_000, last: Int64(n + 1) * 1_000_000_000 + 5)) { out.append($0) }
        }
        #expect(out.isEmpty)
        join.accessUnit(Self.frame(99, pts: 999_000_000_000, last: 999_000_000_005)) { out.append($0) }
        #expect(out.count == 1 && out[0].frame == 0 && out[0].host == nil && out[0].networkNs == 5)
    }
}
