import Testing
@testable import PunktfunkWire

/// What the reassembler tells the loss logic (data-plane.md §4.3, §8.7): a short tail as soon as a
/// block's last shard arrives unrebuildable, with the absent data shards a NACK names, and the
/// lost shards by their place in the AU (Feedback tags 9/10/11).
@Suite struct ReassemblerLossTests {
    @Test func aShortTailIsReportedWithTheAbsentDataShards() throws {
        // One block of 8 data shards (P = 64) and 2 parity (25 %): drop data 2, 5 and 6.
        let loop = MediaLoop(shardBytes: 64, maxDataPerBlock: 8, fecPercent: 25)
        var tails: [(UInt32, Int, [UInt16])] = []
        loop.receiver.video.onShortTail = { tails.append(($0, $1, $2)) }
        let packets = try loop.packets(MediaPathTests.au(8 * 64), frame: 7)
        #expect(packets.count == 10)
        loop.receive(packets.enumerated().filter { ![2, 5, 6].contains($0.offset) }.map(\.element))
        #expect(loop.delivered.isEmpty)
        #expect(tails.count == 1)
        #expect(tails.first?.0 == 7)
        #expect(tails.first?.1 == 1, "3 missing, 2 parity: one beyond parity")
        #expect(tails.first?.2 == [2, 5, 6])
        // The shards sent again complete it (what a NACK's answer does).
        loop.receive([packets[5]])
        #expect(loop.delivered.map(\.frame) == [7])
        #expect(loop.delivered.first?.data == MediaPathTests.au(8 * 64))
    }

    @Test func noShortTailWhenTheLastShardIsMissingOrParitySuffices() throws {
        let loop = MediaLoop(shardBytes: 64, maxDataPerBlock: 8, fecPercent: 25)
        var tails = 0
        loop.receiver.video.onShortTail = { _, _, _ in tails += 1 }
        let a = try loop.packets(MediaPathTests.au(8 * 64), frame: 1)
        loop.receive(a.enumerated().filter { ![1, 2, 9].contains($0.offset) }.map(\.element))   // short, but its tail was lost too
        let b = try loop.packets(MediaPathTests.au(8 * 64, seed: 1), frame: 2)
        loop.receive(b.enumerated().filter { ![3].contains($0.offset) }.map(\.element))      // parity rebuilds it
        #expect(tails == 0)
        #expect(loop.delivered.map(\.frame) == [2])
    }

    @Test func lostShardsAreCountedByTheirPlaceInTheAU() throws {
        // 40 data shards in 5 blocks of 8 (P = 64), 50 % parity: rebuild data 0 (head), 20 (mid)
        // and 39 (tail: the last 12 data shards).
        let loop = MediaLoop(shardBytes: 64, maxDataPerBlock: 8, fecPercent: 50)
        let packets = try loop.packets(MediaPathTests.au(40 * 64), frame: 3)
        loop.receive(packets.enumerated().filter { ![0, 20, 39].contains($0.offset) }.map(\.element))
        #expect(loop.delivered.count == 1)
        let c = loop.receiver.counters
        #expect((c.lostHead, c.lostMid, c.lostTail) == (1, 1, 1))
    }
}
