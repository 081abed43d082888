import Testing
@testable import PunktfunkWire

/// Rate selection, geometry limits and decoder properties of `LeopardFEC`
/// (data-plane.md §2.5 "Rate selection", "Decoding"; §2.7).
@Suite struct FECDecodeTests {
    /// Crate tests of `use_high_rate` (data-plane.md §2.5), plus its limit cases.
    @Test(arguments: [
        (3, 3, true), (3, 4, true), (3, 5, false), (4, 3, false), (5, 3, true),
        (1, 1, true), (1, 2, false), (2, 1, true), (200, 30, true), (32, 32, true),
        (4096, 61440, false), (61440, 4096, true),
    ])
    func rateSelection(k: Int, m: Int, high: Bool) {
        #expect(LeopardFEC.usesHighRate(k: k, m: m) == high)
    }

    @Test(arguments: [
        (0, 1, 64), (1, 0, 0), (-1, 2, 64), (4, 2, 0), (4, 2, 15), (4, 2, -2),
        (4096, 61441, 64), (4097, 61440, 64), (61440, 4097, 64), (61441, 4096, 64),
        (65536, 1, 64), (1, 65536, 64), (40000, 40000, 64),
    ])
    func invalidGeometryIsRefused(k: Int, m: Int, p: Int) {
        let fec = LeopardFEC()
        let data = [UInt8](repeating: 1, count: 64)
        var parity = [UInt8](repeating: 0, count: 64)
        let present = [Bool](repeating: false, count: 4)
        data.withUnsafeBytes { d in
            parity.withUnsafeMutableBytes { q in
                #expect(throws: FECError.invalidGeometry(k: k, m: m, shardBytes: p)) {
                    try fec.encode(k: k, m: m, shardBytes: p, data: d.baseAddress!, dataStride: 0,
                                   parity: q.baseAddress!, parityStride: 0)
                }
                present.withUnsafeBufferPointer { f in
                    _ = #expect(throws: FECError.invalidGeometry(k: k, m: m, shardBytes: p)) {
                        try fec.reconstruct(k: k, m: m, shardBytes: p, data: q.baseAddress!, dataStride: 0,
                                            parity: d.baseAddress!, parityStride: 0, present: f.baseAddress!)
                    }
                }
            }
        }
    }

    /// m = 0 is a documented no-op: encode writes nothing; reconstruct succeeds iff no data is lost.
    @Test func zeroParityIsNoOp() throws {
        let fec = LeopardFEC()
        let data = FECTestSupport.patternShards(k: 3, p: 20)
        #expect(try fec.encode(data, m: 0) == [])
        #expect(try fec.reconstruct(k: 3, m: 0, shards: data.map { $0 }) == data)
        #expect(throws: FECError.tooFewShards(have: 2, need: 3)) {
            try fec.reconstruct(k: 3, m: 0, shards: [data[0], nil, data[2]])
        }
    }

    @Test func mismatchedArrayShapesAreRefused() {
        let fec = LeopardFEC()
        #expect(throws: FECError.invalidGeometry(k: 2, m: 2, shardBytes: 4)) {
            try fec.encode([[1, 2, 3, 4], [1, 2]], m: 2)
        }
        #expect(throws: FECError.invalidGeometry(k: 2, m: 2, shardBytes: 4)) {
            try fec.reconstruct(k: 2, m: 2, shards: [[1, 2, 3, 4], nil, nil])
        }
    }

    /// Random k, m, shard sizes (incl. non-multiples of 64) and random loss patterns of at most
    /// m shards: the decoder must return the exact data; one more loss must be refused.
    @Test(arguments: [2, 6, 20, 64, 130, 1388, 1408])
    func randomLossesRecoverExactBytes(p: Int) throws {
        var rng = SplitMix64(seed: 0x5EED_0000 + UInt64(p))
        let fec = LeopardFEC()
        for round in 0..<12 {
            let k = round < 3 ? [1, 2, 3][round] : Int.random(in: 1...260, using: &rng)
            let m = round == 3 ? 1 : Int.random(in: 1...(round % 3 == 0 ? 80 : 40), using: &rng)
            let data = (0..<k).map { _ in (0..<p).map { _ in UInt8.random(in: 0...255, using: &rng) } }
            let parity = try fec.encode(data, m: m)
            let all: [[UInt8]] = data + parity

            // Lose `lost` shards, at least one of them data so the decoder actually runs.
            let lost = Int.random(in: 1...m, using: &rng)
            var order = Array(0..<(k + m)).shuffled(using: &rng)
            if let firstData = order.firstIndex(where: { $0 < k }), firstData >= lost { order.swapAt(0, firstData) }
            var shards: [[UInt8]?] = all.map { $0 }
            for i in order.prefix(lost) { shards[i] = nil }
            let rebuilt = try fec.reconstruct(k: k, m: m, shards: shards)
            #expect(rebuilt == data, "p=\(p) k=\(k) m=\(m) lost=\(order.prefix(lost).sorted())")

            // m + 1 losses: unrecoverable.
            var tooMany: [[UInt8]?] = all.map { $0 }
            for i in order.prefix(min(m + 1, k + m)) { tooMany[i] = nil }
            #expect(throws: FECError.tooFewShards(have: k - 1, need: k)) {
                try fec.reconstruct(k: k, m: m, shards: tooMany)
            }
        }
    }

    /// Every loss pattern that keeps exactly k shards, for small codes in both rates.
    @Test(arguments: [(3, 3), (3, 5), (4, 3), (5, 3), (2, 6), (6, 2), (1, 4), (4, 4)])
    func everyMaximalLossPatternRecovers(k: Int, m: Int) throws {
        let fec = LeopardFEC()
        let data = (0..<k).map { i in (0..<66).map { b in UInt8(truncatingIfNeeded: i &* 77 &+ b &* 13 &+ 5) } }
        let all = data + (try fec.encode(data, m: m))
        for mask in 0..<(1 << (k + m)) where mask.nonzeroBitCount == m {
            let shards: [[UInt8]?] = (0..<(k + m)).map { mask & (1 << $0) != 0 ? nil : all[$0] }
            #expect(try fec.reconstruct(k: k, m: m, shards: shards) == data, "k=\(k) m=\(m) lost mask \(mask)")
        }
    }

    /// Decoding gives the same bytes with every kernel set (the largest target geometry).
    @Test func decodeAgreesAcrossKernels() throws {
        let k = 200, m = 30, p = 1408
        let data = FECTestSupport.patternShards(k: k, p: p)
        let parity = try LeopardFEC().encode(data, m: m)
        var shards: [[UInt8]?] = (data + parity).map { $0 }
        for i in stride(from: 3, to: 200, by: 7).prefix(30) { shards[i] = nil }
        for name in LeopardFEC.availableKernels {
            let fec = try #require(LeopardFEC(kernel: name))
            #expect(try fec.reconstruct(k: k, m: m, shards: shards) == data, "\(name)")
        }
    }

    /// Pointer API with padded strides: only missing data slots are written; parity is untouched.
    @Test func pointerAPIWithStrides() throws {
        let k = 7, m = 5, p = 130, dStride = 160, pStride = 144
        let fec = LeopardFEC()
        let data = FECTestSupport.patternShards(k: k, p: p)
        let expectedParity = try fec.encode(data, m: m)

        var dataBuf = [UInt8](repeating: 0xAB, count: k * dStride)
        for i in 0..<k { dataBuf.replaceSubrange((i * dStride)..<(i * dStride + p), with: data[i]) }
        var parityBuf = [UInt8](repeating: 0xCD, count: m * pStride)
        try dataBuf.withUnsafeBytes { d in
            try parityBuf.withUnsafeMutableBytes { q in
                try fec.encode(k: k, m: m, shardBytes: p, data: d.baseAddress!, dataStride: dStride,
                               parity: q.baseAddress!, parityStride: pStride)
            }
        }
        for j in 0..<m {
            #expect(Array(parityBuf[(j * pStride)..<(j * pStride + p)]) == expectedParity[j])
            #expect(parityBuf[(j * pStride + p)..<((j + 1) * pStride)].allSatisfy { $0 == 0xCD })
        }

        // Lose data 0, 3, 6 (garbage in their slots) and parity 1; keep the padding bytes.
        var present = [Bool](repeating: true, count: k + m)
        for i in [0, 3, 6] {
            present[i] = false
            dataBuf.replaceSubrange((i * dStride)..<(i * dStride + p), with: [UInt8](repeating: 0xEE, count: p))
        }
        present[k + 1] = false
        let parityBefore = parityBuf
        try dataBuf.withUnsafeMutableBytes { d in
            try parityBuf.withUnsafeBytes { q in
                try present.withUnsafeBufferPointer { f in
                    try fec.reconstruct(k: k, m: m, shardBytes: p, data: d.baseAddress!, dataStride: dStride,
                                        parity: q.baseAddress!, parityStride: pStride, present: f.baseAddress!)
                }
            }
        }
        #expect(parityBuf == parityBefore)
        for i in 0..<k {
            #expect(Array(dataBuf[(i * dStride)..<(i * dStride + p)]) == data[i], "slot \(i)")
            #expect(dataBuf[(i * dStride + p)..<((i + 1) * dStride)].allSatisfy { $0 == 0xAB }, "padding \(i)")
        }
    }

    /// The coder is reusable across geometries (scratch grows and shrinks in use, never stale).
    @Test func reuseAcrossGeometries() throws {
        let fec = LeopardFEC()
        for (k, m, p) in [(200, 30, 1408), (3, 2, 16), (64, 64, 256), (1, 3, 6), (200, 30, 1388), (5, 17, 66)] {
            let data = FECTestSupport.patternShards(k: k, p: p)
            let parity = try fec.encode(data, m: m)
            var shards: [[UInt8]?] = (data + parity).map { $0 }
            for i in 0..<min(k, m) { shards[(i * 5) % k] = nil }
            #expect(try fec.reconstruct(k: k, m: m, shards: shards) == data, "k=\(k) m=\(m) p=\(p)")
        }
    }

    /// The extreme geometries of the crate's limits still encode and decode.
    @Test(arguments: [(4096, 61440), (61440, 4096)])
    func extremeGeometry(k: Int, m: Int) throws {
        let fec = LeopardFEC()
        let data = (0..<k).map { i in [UInt8(truncatingIfNeeded: i), UInt8(truncatingIfNeeded: i >> 8 ^ 0x5A)] }
        let parity = try fec.encode(data, m: m)
        #expect(parity.count == m)
        var shards: [[UInt8]?] = (data + parity).map { $0 }
        for i in [0, 1, k / 2, k - 1] { shards[i] = nil }
        #expect(try fec.reconstruct(k: k, m: m, shards: shards) == data)
    }
}
