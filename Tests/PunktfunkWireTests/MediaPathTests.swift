import Testing
@testable import PunktfunkWire

/// Sender → (loss, reorder, tampering) → receiver over real packetizer, FEC and AEAD.
final class MediaLoop {
    let sender: MediaSender
    let receiver: MediaReceiver
    var delivered: [(frame: UInt32, data: [UInt8], flags: UInt32, ptsNs: Int64, epoch: UInt8, recovered: Int)] = []
    var lost: [UInt32] = []

    init(shardBytes: Int = 64, maxDataPerBlock: Int = 8, fecPercent: Int = 25, suite: MediaSuite = .aes128GCM,
         origin: Int64 = 1_700_000_000_000_000_000) {
        let exporter = (0..<32).map { UInt8($0) }
        let packetizer = Packetizer(shardBytes: shardBytes, maxDataPerBlock: maxDataPerBlock, fecPercent: fecPercent)
        sender = MediaSender(exporter: exporter, suite: suite, packetizer: packetizer)
        receiver = MediaReceiver(exporter: exporter, suite: suite,
                                 limits: MediaLimits(shardBytes: shardBytes, maxDataPerBlock: maxDataPerBlock),
                                 clockOriginNs: origin)
        receiver.video.onAccessUnit = { [unowned self] au in
            delivered.append((au.frame, Array(au.data), au.userFlags, au.ptsNs, au.epoch, au.recoveredShards))
        }
        receiver.video.onFrameLost = { [unowned self] f in lost.append(f) }
    }

    /// The sealed datagrams of one AU, in emission order.
    func packets(_ au: [UInt8], frame: UInt32, epoch: UInt8 = 0, flags: UInt32 = 0x01, ptsMicros: UInt32 = 0) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        try au.withUnsafeBytes { raw in
            try sender.send(raw, frame: frame, epoch: epoch, userFlags: flags, ptsMicros: ptsMicros) { out.append(Array($0)) }
        }
        return out
    }

    /// Feeds datagrams; returns the errors thrown, in order.
    @discardableResult
    func receive(_ datagrams: [[UInt8]]) -> [MediaError] {
        var errors: [MediaError] = []
        for d in datagrams {
            do {
                try d.withUnsafeBytes { try receiver.receive($0) }
            } catch let e as MediaError {
                errors.append(e)
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
        return errors
    }
}

@Suite struct MediaPathTests {
    static func au(_ n: Int, seed: Int = 0) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7 &+ seed) } }

    /// data-plane.md §2.2 / §9.2: 100-byte AU, P = 16, K = 4, 50 % ⇒ data-first emission order
    /// and the listed parity bytes.
    @Test func packetizerLayoutMatchesSpecExample() throws {
        let packetizer = Packetizer(shardBytes: 16, maxDataPerBlock: 4, fecPercent: 50)
        var seen: [(Int, Int, [UInt8], MediaHeader)] = []
        try Self.au(100).withUnsafeBytes { raw in
            try packetizer.packetize(raw, frame: 0, epoch: 0, userFlags: 0x05, ptsMicros: 0, stream: .video) { h, s in
                seen.append((Int(h.block), Int(h.shard), Array(s), h))
            }
        }
        #expect(seen.map { [$0.0, $0.1] } == [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [0, 4], [0, 5], [1, 3], [1, 4]])
        let expected: [String] = [
            "078a0d901396199c1fa225a82bae31b4", "37ba3dc043c649cc4fd255d85bde61e4", "67ea6df073f679fc7f0285088b0e9114",
            "971a9d20a326a92caf32b538bb3ec144", "c74acd50d356d95cdf62e568eb6ef174", "f77afd800386098c0f9215981b9e21a4",
            "27aa2db0000000000000000000000000", "3aa3a3969696f1f1a2f3f3f3f3f31f1f", "fa6363161616717122b3b3b3b3b31f1f",
            "a321550ab13441c4a723a429aa2f890c", "b4bb486a61e4911477d354d95adf59dc",
        ]
        #expect(seen.map { hexString($0.2) } == expected)
        let b1 = seen[4].3
        #expect(b1.k == 3 && b1.m == 2 && b1.base == 4 && b1.pad == 12 && b1.isLastBlock)
        #expect(seen[0].3.k == 4 && seen[0].3.m == 2 && !seen[0].3.isLastBlock && seen[0].3.pad == 0)
        #expect(seen.allSatisfy { $0.3.userFlags == 0x05 })
    }

    @Test func recoveryRuleGivesAtLeastTwoParityShards() {
        #expect(Packetizer.recoveryFor(k: 1, percent: 10) == 2)
        #expect(Packetizer.recoveryFor(k: 100, percent: 10) == 10)
        #expect(Packetizer.recoveryFor(k: 101, percent: 10) == 11)
        #expect(Packetizer.recoveryFor(k: 100, percent: 0) == 0)
        let p = Packetizer(shardBytes: 1408, maxDataPerBlock: 4096, fecPercent: 10)
        #expect(p.parityCount(forBlockOf: 4096) == 410)
    }

    /// data-plane.md §9.1 round trip: P = 64, K = 8, 25 %, the listed AU lengths, user_flags
    /// 0x20, frame 9, epoch 3, pts = origin + 42 ms.
    @Test(arguments: [0, 1, 63, 64, 500, 512, 513, 1287])
    func roundTripWithoutLoss(length: Int) throws {
        let loop = MediaLoop()
        let au = (0..<length).map { UInt8($0 % 256) }
        #expect(loop.receive(try loop.packets(au, frame: 9, epoch: 3, flags: 0x20, ptsMicros: 42_000)).isEmpty)
        #expect(loop.delivered.count == 1)
        let d = try #require(loop.delivered.first)
        #expect(d.data == au && d.frame == 9 && d.flags == 0x20 && d.epoch == 3)
        #expect(d.ptsNs == 1_700_000_000_000_000_000 + 42_000_000)
    }

    /// Any loss pattern within every block's parity budget rebuilds the exact AU; beyond it the
    /// AU is declared lost and never delivered.
    @Test func randomLossWithinBudgetRecoversBeyondIsLost() throws {
        var rng = SplitMix64(seed: 0xFEC)
        let loop = MediaLoop(shardBytes: 64, maxDataPerBlock: 16, fecPercent: 30)
        var expected: [UInt32: [UInt8]] = [:]
        var expectLost: Set<UInt32> = []
        for frame in UInt32(0)..<300 {
            let au = Self.au(Int.random(in: 0...3000, using: &rng), seed: Int(frame))
            var datagrams = try loop.packets(au, frame: frame, ptsMicros: frame * 16_667)
            // Headers are sealed, so read block and m from the packetizer's plaintext twin.
            var byBlock: [Int: [Int]] = [:]
            var budget: [Int: Int] = [:]
            try au.withUnsafeBytes { raw in
                var i = 0
                try loop.sender.packetizer.packetize(raw, frame: frame, epoch: 0, userFlags: 1, ptsMicros: 0, stream: .video) { h, _ in
                    byBlock[Int(h.block), default: []].append(i)
                    budget[Int(h.block)] = Int(h.m)
                    i += 1
                }
            }
            let beyond = Int.random(in: 0..<5, using: &rng) == 0
            var drop: Set<Int> = []
            for (b, positions) in byBlock {
                let m = budget[b]!
                let count = beyond && b == 0 ? m + 1 : Int.random(in: 0...m, using: &rng)
                drop.formUnion(positions.shuffled(using: &rng).prefix(count))
            }
            // An AU none of whose packets arrive is invisible here (the session sees the gap).
            if beyond && drop.count < datagrams.count { expectLost.insert(frame) }
            if !beyond { expected[frame] = au }
            datagrams = datagrams.enumerated().filter { !drop.contains($0.offset) }.map(\.element)
            datagrams.shuffle(using: &rng)
            loop.receive(datagrams)
        }
        // Push the window far enough that every incomplete AU ages out.
        loop.receive(try loop.packets([1], frame: 400, ptsMicros: 400 * 16_667))
        let delivered = Dictionary(uniqueKeysWithValues: loop.delivered.filter { $0.frame < 300 }.map { ($0.frame, $0.data) })
        #expect(delivered == expected)
        #expect(Set(loop.lost) == expectLost)
        #expect(loop.receiver.counters.shardsRecovered > 0)
    }

    @Test func duplicatesReplaysAndForgeriesNeverDeliverTwiceOrWrong() throws {
        let loop = MediaLoop()
        let au = Self.au(700)
        let datagrams = try loop.packets(au, frame: 1)
        // Replaying every datagram after delivery: each is refused as a replay.
        #expect(loop.receive(datagrams).isEmpty)
        let errors = loop.receive(datagrams)
        #expect(errors.count == datagrams.count)
        #expect(errors.allSatisfy { if case .replayed = $0 { return true } else { return false } })
        // Forged bytes anywhere after the clear prefix fail authentication.
        let next = try loop.packets(au, frame: 2)
        var forged = next[0]
        forged[20] ^= 0x80
        #expect(loop.receive([forged]) == [.authenticationFailed])
        #expect(loop.receive(next).isEmpty)
        #expect(loop.delivered.map(\.frame) == [1, 2])
        #expect(loop.delivered.allSatisfy { $0.data == au })
        #expect(loop.receiver.counters.authFailed == 1)
        #expect(loop.receiver.counters.replayed == UInt64(datagrams.count))
    }

    @Test func shortLongAndBadTagDatagramsAreRefused() {
        let loop = MediaLoop()
        #expect(loop.receive([[UInt8](repeating: 0, count: 45)]) == [.tooShort(45)])
        #expect(loop.receive([[UInt8](repeating: 0, count: 9217)]) == [.tooLong(9217)])
        var bad = [UInt8](repeating: 0, count: 100)
        bad[0] = 0x02
        #expect(loop.receive([bad]) == [.badTag(2)])
        bad[0] = 0x10
        #expect(loop.receive([bad]) == [.badTag(0x10)])
        // Far-future packet numbers are refused before any key derivation.
        var future = [UInt8](repeating: 0, count: 100)
        future[4] = 0x02 // seq_low = 0x0200_0000 = 4 key epochs ahead
        #expect(loop.receive([future]) == [.implausibleSequence(0x0200_0000)])
        #expect(loop.receiver.counters.packetsDropped == 5)
    }

    /// A sealed packet whose header geometry is hostile (authentic but wrong) is refused by
    /// the firewall, counted, and nothing is delivered.
    @Test func hostileGeometryIsRefused() throws {
        let exporter = (0..<32).map { UInt8($0) }
        let sealer = MediaCipher(exporter: exporter, direction: .hostToClient, suite: .aes128GCM)
        var seq: UInt64 = 0
        func sealed(_ h: MediaHeader, shardBytes: Int = 64) throws -> [UInt8] {
            var h = h
            h.seqLow = UInt32(seq)
            defer { seq += 1 }
            return try sealer.seal(seq: seq, packet: h.encoded + [UInt8](repeating: 0xAB, count: shardBytes))
        }
        let loop = MediaLoop()
        let cases: [(MediaHeader, Int)] = [
            (MediaHeader(frame: 1, k: 0, m: 2), 64),                                  // k = 0
            (MediaHeader(frame: 1, shard: 4, k: 2, m: 2), 64),                        // shard ≥ k + m
            (MediaHeader(frame: 1, k: 9, m: 2), 64),                                  // k > K (8)
            (MediaHeader(frame: 1, k: 8, m: 9), 64),                                  // k + m > K + ⌈0.9K⌉
            (MediaHeader(flags: 0x8000, frame: 1, k: 2, m: 2, pad: 65), 64),          // pad > P
            (MediaHeader(flags: 0x8000, frame: 1, k: 2, m: 2, pad: 64), 64),          // pad = P with total > 1
            (MediaHeader(frame: 1, k: 1, m: 0, pad: 3), 64),                          // pad on a non-final block
            (MediaHeader(frame: 1, k: 1, m: 0), 63),                                  // odd shard size
            (MediaHeader(flags: 0x8000, frame: 1, base: 0x7FFF_FFFF, k: 1, m: 0), 64), // frame beyond max bytes
        ]
        for (h, p) in cases {
            let errors = loop.receive([try sealed(h, shardBytes: p)])
            #expect(errors.count == 1, "header \(h) should be refused")
        }
        #expect(loop.delivered.isEmpty)
        #expect(loop.receiver.counters.badGeometry + loop.receiver.counters.shardSize + loop.receiver.counters.overBudget
                == UInt64(cases.count))
    }

    /// Authentic blocks that overlap, or a second "last" block, never get an AU delivered.
    @Test func overlappingAndConflictingBlocksAreRefused() throws {
        let exporter = (0..<32).map { UInt8($0) }
        let sealer = MediaCipher(exporter: exporter, direction: .hostToClient, suite: .aes128GCM)
        var seq: UInt64 = 0
        func send(_ loop: MediaLoop, _ h: MediaHeader) -> [MediaError] {
            var h = h
            h.seqLow = UInt32(seq)
            defer { seq += 1 }
            return loop.receive([try! sealer.seal(seq: seq, packet: h.encoded + [UInt8](repeating: 1, count: 64))])
        }
        let loop = MediaLoop()
        #expect(send(loop, MediaHeader(frame: 1, block: 0, base: 0, shard: 0, k: 4, m: 0)).isEmpty)
        #expect(send(loop, MediaHeader(frame: 1, block: 1, base: 2, shard: 0, k: 4, m: 0)).count == 1)
        #expect(send(loop, MediaHeader(flags: 0x8000, frame: 1, block: 2, base: 4, shard: 0, k: 1, m: 0)).isEmpty)
        #expect(send(loop, MediaHeader(flags: 0x8000, frame: 1, block: 3, base: 5, shard: 0, k: 1, m: 0)).count == 1)
        // Block 0's (base, k, m) may not change mid-AU.
        #expect(send(loop, MediaHeader(frame: 1, block: 0, base: 0, shard: 1, k: 3, m: 0)).count == 1)
        #expect(loop.delivered.isEmpty)
    }

    @Test func staleEpochDropped() throws {
        let loop = MediaLoop()
        #expect(loop.receive(try loop.packets(Self.au(10), frame: 1, epoch: 5)).isEmpty)
        let stale = loop.receive(try loop.packets(Self.au(10), frame: 2, epoch: 4))
        #expect(stale.first == .staleEpoch(4))
        // Wrapping forward to a newer epoch is accepted.
        #expect(loop.receive(try loop.packets(Self.au(10), frame: 3, epoch: 6)).isEmpty)
        #expect(loop.delivered.map(\.frame) == [1, 3])
    }

    /// data-plane.md §9.1: with ref = 2^32−1−10 µs, a packet stamped 2^32−1+5 µs (low half 4)
    /// unwraps to exactly that; a first packet seeds the reference as-is.
    @Test func ptsUnwrap() {
        let r = MediaReceiver(exporter: [UInt8](repeating: 0, count: 32), suite: .aes128GCM,
                              limits: MediaLimits(), clockOriginNs: 0)
        #expect(r.unwrapPts(UInt32.max - 10) == Int64(UInt32.max - 10) * 1000)
        #expect(r.unwrapPts(4) == (Int64(UInt32.max) + 5) * 1000)
        let fresh = MediaReceiver(exporter: [UInt8](repeating: 0, count: 32), suite: .aes128GCM,
                                  limits: MediaLimits(), clockOriginNs: 0)
        let half = UInt32.max / 2 + 5
        #expect(fresh.unwrapPts(half) == Int64(half) * 1000)
    }

    @Test func agedOutFramesAreLostAndLateShardsRefused() throws {
        let loop = MediaLoop(fecPercent: 0)
        let first = try loop.packets(Self.au(300), frame: 10, ptsMicros: 0)
        loop.receive(Array(first.dropLast()))
        // 130 ms later a new frame arrives: frame 10 is past the 120 ms loss window.
        loop.receive(try loop.packets(Self.au(30), frame: 11, ptsMicros: 130_000))
        #expect(loop.lost == [10])
        #expect(loop.receive([first.last!]) == [.lateShard])
        #expect(loop.delivered.map(\.frame) == [11])
    }

    @Test func chaChaSuiteAndMultiBlockAUs() throws {
        let loop = MediaLoop(shardBytes: 1388, maxDataPerBlock: 4, fecPercent: 50, suite: .chaCha20Poly1305)
        let au = Self.au(40_000)
        var datagrams = try loop.packets(au, frame: 77)
        datagrams.removeFirst(2) // two data shards of block 0
        datagrams.reverse()      // parity first: every block completes from parity
        #expect(loop.receive(datagrams).isEmpty)
        #expect(loop.delivered.first?.data == au)
        #expect((loop.delivered.first?.recovered ?? 0) >= 2)
        #expect(loop.receiver.counters.redundant > 0)
    }
}
