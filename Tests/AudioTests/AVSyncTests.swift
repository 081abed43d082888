import Testing
import Audio

@Suite struct AVSyncTests {
    @Test func earlyAudioRaisesTheFloorInStepsThenHolds() {
        var sync = AVSyncControl()
        // Video takes 45 ms capture→glass; audio 15 ms with no floor: 30 ms early.
        var audio: Int64 = 15_000_000
        let video: Int64 = 45_000_000
        var skews: [Int64] = []
        for _ in 0..<10 {
            skews.append(sync.update(audioLatencyNs: audio + sync.floorNs, videoLatencyNs: video))
        }
        #expect(skews.first == -30_000_000)
        #expect(sync.floorNs == 30_000_000)
        #expect(abs(skews.last!) <= sync.deadbandNs)
        // Steps of at most 10 ms: 10, 20, 30.
        var replay = AVSyncControl()
        var floors: [Int64] = []
        for _ in 0..<3 { replay.update(audioLatencyNs: audio + replay.floorNs, videoLatencyNs: video); floors.append(replay.floorNs) }
        #expect(floors == [10_000_000, 20_000_000, 30_000_000])
        // The video gets faster: the floor comes down, never below 0.
        audio = 15_000_000
        for _ in 0..<10 { sync.update(audioLatencyNs: audio + sync.floorNs, videoLatencyNs: 10_000_000) }
        #expect(sync.floorNs == 0)
    }

    @Test func withinTheDeadbandNothingMoves() {
        var sync = AVSyncControl()
        #expect(sync.update(audioLatencyNs: 20_000_000, videoLatencyNs: 24_000_000) == -4_000_000)
        #expect(sync.floorNs == 0)
        // Late audio with no floor: reported, nothing to lower.
        #expect(sync.update(audioLatencyNs: 60_000_000, videoLatencyNs: 20_000_000) == 40_000_000)
        #expect(sync.floorNs == 0)
    }

    @Test func theJitterBufferHoldsItsTargetAtTheFloor() {
        var buffer = AudioJitterBuffer<Int>()
        buffer.delayFloorNs = 40_000_000
        var now: UInt64 = 1_000_000_000
        for seq in 0..<400 {
            _ = buffer.handlePacket(seq: UInt32(seq), ptsNs: UInt64(seq) * 5_000_000, payload: seq, nowNs: now)
            _ = buffer.pollPlayout(nowNs: now)
            now += 5_000_000
        }
        #expect(buffer.stats.targetNs == 40_000_000)
        // The floor is capped at the buffer's largest target.
        buffer.delayFloorNs = 10_000_000_000
        _ = buffer.pollPlayout(nowNs: now)
        #expect(buffer.stats.targetNs == buffer.configuration.maxTargetNs)
    }
}
