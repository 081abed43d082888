import Testing
@testable import PunktfunkWire

/// Streamed access units (data-plane.md §2.3, v2 header §8.3): the host sends blocks before the
/// AU's length is known. Expected header fields are the spec's rules worked by hand; shard bytes
/// are §9.2's end-to-end vectors (made with reed-solomon-simd, not by this code).
@Suite struct StreamedAUTests {
    typealias Emitted = (header: MediaHeader, shard: [UInt8])

    /// Streams `au` cut into `pieces` (byte counts; the last piece is final), returning what each
    /// append emitted.
    static func stream(_ packetizer: Packetizer, _ au: [UInt8], pieces: [Int], mode: Packetizer.StreamedMode,
                       userFlags: UInt32 = 0x01) throws -> [[Emitted]] {
        precondition(pieces.reduce(0, +) == au.count)
        packetizer.beginStreamed(frame: 7, epoch: 2, userFlags: userFlags, ptsMicros: 99, stream: .video, mode: mode)
        var out: [[Emitted]] = []
        var at = 0
        for (i, n) in pieces.enumerated() {
            var step: [Emitted] = []
            try au[at..<at + n].withUnsafeBytes { raw in
                try packetizer.appendStreamed(raw, final: i == pieces.count - 1) { h, s in step.append((h, Array(s))) }
            }
            out.append(step)
            at += n
        }
        return out
    }

    /// §2.3 slice mode, §8.3 fields: P = 16, K = 8, 50 %, blocks of ≥ 2 shards; slices of 40,
    /// 30 and 50 bytes (L = 120).
    /// - 40 B: whole shards before the one holding byte 39 = ⌊39/16⌋ = 2 → sentinel block 0,
    ///   byte base 0 → base 0, k 2, m = max(⌈2·50/100⌉, 2) = 2, no 0x8000, pad 0.
    /// - 70 B: ⌊69/16⌋ = 4 → sentinel block 1, byte base 32 → base 32/16 = 2, k 2.
    /// - 120 B, final: total = ⌈120/16⌉ = 8 → block 2 with the remaining 4: base = total − k = 4,
    ///   0x8000, pad = total·P − L = 8; the receiver's `frame_bytes = (base + k)·P − pad` = 120.
    /// SLICE_STREAM (0x80) on every packet; each block's data then its parity.
    @Test func sliceModeSentinelsThenFinalBlockAsTheSpecSays() throws {
        let packetizer = Packetizer(shardBytes: 16, maxDataPerBlock: 8, fecPercent: 50)
        packetizer.minStreamBlockShards = 2
        let au = MediaPathTests.au(120)
        let steps = try Self.stream(packetizer, au, pieces: [40, 30, 50], mode: .slices)
        #expect(steps.map(\.count) == [4, 4, 6])
        let expected: [(block: UInt16, base: UInt32, k: UInt16, m: UInt16, last: Bool, pad: UInt16)] = [
            (0, 0, 2, 2, false, 0), (1, 2, 2, 2, false, 0), (2, 4, 4, 2, true, 8),
        ]
        for (step, e) in zip(steps, expected) {
            for (i, x) in step.enumerated() {
                let h = x.header
                #expect(h.block == e.block && h.base == e.base && h.k == e.k && h.m == e.m && h.isLastBlock == e.last && h.pad == e.pad)
                #expect(Int(h.shard) == i)   // data 0..<k, then parity k..<k+m
                #expect(h.flags & 0x80 != 0 && h.userFlags == 0x81)
                #expect(h.frame == 7 && h.epoch == 2 && h.ptsMicros == 99)
            }
        }
        let last = steps[2][0].header
        #expect((Int(last.base) + Int(last.k)) * 16 - Int(last.pad) == 120)
        // §2.2 rule 2: data shard n = AU bytes [n·P, (n+1)·P), the last zero-padded.
        let data = steps.flatMap { $0.filter { $0.header.shard < $0.header.k } }
        let padded = au + [UInt8](repeating: 0, count: 8)
        for x in data {
            let n = Int(x.header.base) + Int(x.header.shard)
            #expect(x.shard == Array(padded[n * 16..<(n + 1) * 16]))
        }
    }

    /// §2.3 full-K mode on §9.2's AU (100 bytes `(i·131 + 7) mod 256`, P = 16, K = 4, 50 %), sent in
    /// two pieces (70 + 30): a sentinel block of exactly K once 4 whole shards are out of the
    /// encoder, then the final block; each block's parity right after its data, and every shard
    /// byte-equal to the spec's vectors. No SLICE_STREAM bit.
    @Test func fullBlockModeMatchesTheSpecVectors() throws {
        let packetizer = Packetizer(shardBytes: 16, maxDataPerBlock: 4, fecPercent: 50)
        let steps = try Self.stream(packetizer, MediaPathTests.au(100), pieces: [70, 30], mode: .fullBlocks, userFlags: 0x05)
        let vectors: [String: String] = [
            "b0 d0": "078a0d901396199c1fa225a82bae31b4", "b0 d1": "37ba3dc043c649cc4fd255d85bde61e4",
            "b0 d2": "67ea6df073f679fc7f0285088b0e9114", "b0 d3": "971a9d20a326a92caf32b538bb3ec144",
            "b0 p0": "3aa3a3969696f1f1a2f3f3f3f3f31f1f", "b0 p1": "fa6363161616717122b3b3b3b3b31f1f",
            "b1 d0": "c74acd50d356d95cdf62e568eb6ef174", "b1 d1": "f77afd800386098c0f9215981b9e21a4",
            "b1 d2": "27aa2db0000000000000000000000000",
            "b1 p0": "a321550ab13441c4a723a429aa2f890c", "b1 p1": "b4bb486a61e4911477d354d95adf59dc",
        ]
        #expect(steps.map { $0.map { "b\($0.header.block) " + ($0.header.shard < $0.header.k ? "d\($0.header.shard)" : "p\($0.header.shard - $0.header.k)") } }
                == [["b0 d0", "b0 d1", "b0 d2", "b0 d3", "b0 p0", "b0 p1"], ["b1 d0", "b1 d1", "b1 d2", "b1 p0", "b1 p1"]])
        for x in steps.joined() {
            let name = "b\(x.header.block) " + (x.header.shard < x.header.k ? "d\(x.header.shard)" : "p\(x.header.shard - x.header.k)")
            #expect(hexString(x.shard) == vectors[name], "\(name)")
            #expect(x.header.userFlags == 0x05)
        }
        let b0 = steps[0][0].header, b1 = steps[1][0].header
        #expect(b0.base == 0 && b0.k == 4 && b0.m == 2 && !b0.isLastBlock && b0.pad == 0)
        #expect(b1.base == 4 && b1.k == 3 && b1.m == 2 && b1.isLastBlock && b1.pad == 12)
    }

    /// Nothing leaves before a slice-mode block has its minimum of whole shards; the shard holding
    /// the newest byte stays back even when the bytes end on a shard boundary (so the final block
    /// is never empty); a final rest wider than K goes as sentinels of K, then the last block.
    @Test func blocksWaitForWholeShardsAndTheFinalBlockIsNeverEmpty() throws {
        let packetizer = Packetizer(shardBytes: 16, maxDataPerBlock: 4, fecPercent: 0)
        packetizer.minStreamBlockShards = 3
        // 48 B = exactly 3 shards: only 2 may go (the third could be the AU's last), < 3 → none.
        // +64 B = 112 B: ⌊111/16⌋ = 6 shards ready → a block of 4 (K); the other 2 < 3 wait.
        // +100 B, final = 212 B: total ⌈212/16⌉ = 14, 10 left > K → sentinel of 4 at base 4,
        // 6 left > K → sentinel of 4 at base 8, then the last block of 2 at base 12 = total − k.
        let steps = try Self.stream(packetizer, MediaPathTests.au(212), pieces: [48, 64, 100], mode: .slices)
        #expect(steps[0].isEmpty)
        #expect(steps[1].map(\.header.base) == [0, 0, 0, 0] && steps[1].allSatisfy { $0.header.k == 4 && !$0.header.isLastBlock })
        let finalBlocks = steps[2].map { [Int($0.header.block), Int($0.header.base), Int($0.header.k), $0.header.isLastBlock ? 1 : 0] }
        #expect(finalBlocks == Array(repeating: [1, 4, 4, 0], count: 4) + Array(repeating: [2, 8, 4, 0], count: 4)
                + Array(repeating: [3, 12, 2, 1], count: 2))
        #expect(steps[2].last!.header.pad == UInt16(14 * 16 - 212))

        // An AU that ends exactly on a shard boundary: its last shard still goes in the last block.
        let exact = try Self.stream(packetizer, MediaPathTests.au(64), pieces: [64, 0], mode: .slices)
        #expect(exact[0].map(\.header.k) == [3, 3, 3] && exact[0].allSatisfy { !$0.header.isLastBlock })
        #expect(exact[1].count == 1 && exact[1][0].header.base == 3 && exact[1][0].header.k == 1
                && exact[1][0].header.isLastBlock && exact[1][0].header.pad == 0)
        // An empty AU: one all-zero shard, pad = P (§8.3: only when total == 1).
        let empty = try Self.stream(packetizer, [], pieces: [0], mode: .slices)
        #expect(empty[0].count == 1 && empty[0][0].header.pad == 16 && empty[0][0].header.isLastBlock)
    }

    // MARK: Receive

    /// The sealed datagrams of one streamed AU, grouped by block (in emission order).
    static func streamedPackets(_ loop: MediaLoop, _ au: [UInt8], pieces: [Int], frame: UInt32,
                                ptsMicros: UInt32 = 0, mode: Packetizer.StreamedMode = .slices) throws -> [[[UInt8]]] {
        var blocks: [[[UInt8]]] = []
        var blockOf: [Int] = []
        // Block membership from a plaintext twin with the same geometry (headers are sealed).
        let twin = Packetizer(shardBytes: loop.sender.packetizer.shardBytes,
                              maxDataPerBlock: loop.sender.packetizer.maxDataPerBlock,
                              fecPercent: loop.sender.packetizer.fecPercent)
        twin.minStreamBlockShards = loop.sender.packetizer.minStreamBlockShards
        blockOf = try stream(twin, au, pieces: pieces, mode: mode).joined().map { Int($0.header.block) }
        loop.sender.beginStreamed(frame: frame, epoch: 0, userFlags: 0x01, ptsMicros: ptsMicros, mode: mode)
        var i = 0, at = 0
        for (j, n) in pieces.enumerated() {
            try au[at..<at + n].withUnsafeBytes { raw in
                try loop.sender.appendStreamed(raw, final: j == pieces.count - 1) { d in
                    let b = blockOf[i]
                    if b == blocks.count { blocks.append([]) }
                    blocks[b].append(Array(d))
                    i += 1
                }
            }
            at += n
        }
        return blocks
    }

    static func loop() -> MediaLoop {
        let loop = MediaLoop(shardBytes: 64, maxDataPerBlock: 16, fecPercent: 25)
        loop.sender.packetizer.minStreamBlockShards = 2
        return loop
    }

    /// The final block first (reordering: its SLICE_STREAM bit and 0x8000 say where the AU ends),
    /// then the sentinels: the AU is rebuilt byte-exact, once.
    @Test func finalBlockFirstStillRebuildsTheAU() throws {
        let loop = Self.loop()
        let au = MediaPathTests.au(1000, seed: 3)
        let blocks = try Self.streamedPackets(loop, au, pieces: [300, 250, 450], frame: 4)
        #expect(blocks.count == 3)
        #expect(loop.receive(blocks.reversed().flatMap { $0 }).isEmpty)
        #expect(loop.delivered.map(\.frame) == [4] && loop.delivered.first?.data == au)
    }

    /// Sentinel blocks before the total is known are held; nothing is delivered until the final
    /// block; a data shard lost inside a sentinel block is rebuilt from that block's parity.
    @Test func sentinelsWaitForTheFinalBlockAndLossInsideOneIsRepaired() throws {
        let loop = Self.loop()
        let au = MediaPathTests.au(1500, seed: 9)
        let blocks = try Self.streamedPackets(loop, au, pieces: [400, 400, 700], frame: 1)
        #expect(blocks.count == 3)
        // Block 0 without its first data shard (parity covers it), block 1 whole.
        #expect(loop.receive(Array(blocks[0].dropFirst()) + blocks[1]).isEmpty)
        #expect(loop.delivered.isEmpty)
        #expect(loop.receive(blocks[2]).isEmpty)
        #expect(loop.delivered.count == 1 && loop.delivered.first?.data == au)
        #expect(loop.delivered.first?.recovered == 1)
    }

    /// Property: streamed AUs cut at random places (both modes), with loss within every block's
    /// parity and every order of arrival, come out byte-exact; beyond a block's parity the AU is
    /// declared lost and never delivered.
    @Test(arguments: [Packetizer.StreamedMode.slices, .fullBlocks])
    func randomCutsLossAndOrderRebuildExactly(mode: Packetizer.StreamedMode) throws {
        var rng = SplitMix64(seed: 0x57AE)
        let loop = MediaLoop(shardBytes: 64, maxDataPerBlock: 8, fecPercent: 30)
        loop.sender.packetizer.minStreamBlockShards = 3
        var expected: [UInt32: [UInt8]] = [:]
        var expectLost: Set<UInt32> = []
        for frame in UInt32(0)..<200 {
            let au = MediaPathTests.au(Int.random(in: 0...4000, using: &rng), seed: Int(frame))
            var pieces: [Int] = []
            var left = au.count
            while left > 0 {
                let n = min(left, Int.random(in: 1...900, using: &rng))
                pieces.append(n)
                left -= n
            }
            if pieces.isEmpty || Bool.random(using: &rng) { pieces.append(0) }
            let blocks = try Self.streamedPackets(loop, au, pieces: pieces, frame: frame, ptsMicros: frame * 16_667)
            let beyond = Int.random(in: 0..<6, using: &rng) == 0
            var datagrams: [[UInt8]] = []
            for (b, packets) in blocks.enumerated() {
                // The block's parity budget: its k solves k + parityCount(k) = its packets.
                let k = (1...packets.count).first { $0 + loop.sender.packetizer.parityCount(forBlockOf: $0) == packets.count }!
                let m = packets.count - k
                let drop = beyond && b == 0 ? m + 1 : Int.random(in: 0...m, using: &rng)
                datagrams += packets.shuffled(using: &rng).dropFirst(drop)
            }
            // An AU none of whose packets arrive is invisible here (the session sees the gap).
            if beyond { if !datagrams.isEmpty { expectLost.insert(frame) } } else { expected[frame] = au }
            loop.receive(datagrams.shuffled(using: &rng))
        }
        loop.receive(try loop.packets([1], frame: 300, ptsMicros: 300 * 16_667))
        let delivered = Dictionary(uniqueKeysWithValues: loop.delivered.filter { $0.frame < 200 }.map { ($0.frame, $0.data) })
        #expect(delivered == expected)
        #expect(Set(loop.lost) == expectLost)
    }

    /// The AU carries when its first and its completing packet arrived (the caller's clock).
    @Test func deliveredAUCarriesItsArrivalTimes() throws {
        let loop = Self.loop()
        let au = MediaPathTests.au(700)
        let blocks = try Self.streamedPackets(loop, au, pieces: [300, 400], frame: 2)
        var arrivals: [(UInt64, UInt64)] = []
        loop.receiver.video.onAccessUnit = { arrivals.append(($0.firstArrivalNs, $0.lastArrivalNs)) }
        for (i, d) in blocks.joined().enumerated() {
            try d.withUnsafeBytes { try loop.receiver.receive($0, arrivalNs: 1_000 + UInt64(i) * 10) }
            if !arrivals.isEmpty { break }
        }
        let k = blocks.count
        #expect(k == 2)
        #expect(arrivals.count == 1)
        // The first shard came at 1000; the AU completed when its last needed shard came.
        #expect(arrivals.first?.0 == 1_000)
        #expect((arrivals.first?.1 ?? 0) > 1_000)
    }
}
