import Testing
@testable import PunktfunkWire

/// Golden parity from the real reed-solomon-simd 3.1.0 crate (Tests/Fixtures/fec-vectors.txt,
/// copied from /work/shared/protocol/vectors/fec-vectors.txt; data-plane.md §2.5, §9.2), checked
/// with every kernel set. A kernel the CPU lacks is skipped (the trait names the reason).
@Suite struct FECVectorTests {
    static let cases: [FECVectorCase] = {
        guard let text = try? FECTestSupport.fixture() else { return [] }
        return FECVectorParser.parse(text)
    }()

    @Test func fixtureParsesEveryCase() throws {
        let cases = Self.cases
        // 8 full blocks + k=200 prefixes + 5 extra + 2 AU blocks.
        #expect(cases.count == 16)
        let parityShards = cases.reduce(0) { $0 + $1.expected.count }
        #expect(parityShards == 19 + 2 + 38 + 4)
        #expect(cases.contains { $0.k == 200 && $0.m == 30 && $0.p == 1408 })
        #expect(cases.contains { $0.p == 130 })
        #expect(cases.contains { $0.p == 66 })
    }

    @Test func vectorsPortable() throws { try check(kernel: "portable") }

    @Test(.enabled(if: FECTestSupport.hasKernel("ssse3"), "CPU lacks SSSE3"))
    func vectorsSSSE3() throws { try check(kernel: "ssse3") }

    @Test(.enabled(if: FECTestSupport.hasKernel("avx2"), "CPU lacks AVX2 (or the OS does not enable YMM state)"))
    func vectorsAVX2() throws { try check(kernel: "avx2") }

    /// On x86-64 the NEON set is checked under qemu by Tests/aarch64/run.sh instead.
    @Test(.enabled(if: FECTestSupport.hasKernel("neon"), "not an AArch64 CPU (Tests/aarch64/run.sh checks NEON under qemu)"))
    func vectorsNEON() throws { try check(kernel: "neon") }

    /// Encodes every case with `kernel` and compares each listed parity shard (or prefix); then
    /// drops min(k, m) data shards and checks the decoder restores them.
    private func check(kernel: String) throws {
        let fec = try #require(LeopardFEC(kernel: kernel))
        #expect(fec.kernelName == kernel)
        #expect(!Self.cases.isEmpty)
        for c in Self.cases {
            let parity = try fec.encode(c.data, m: c.m)
            #expect(parity.count == c.m, "\(c)")
            for (index, bytes) in c.expected {
                #expect(Array(parity[index].prefix(bytes.count)) == bytes, "\(kernel) \(c) parity[\(index)]")
            }
            var shards: [[UInt8]?] = c.data.map { $0 } + parity.map { $0 }
            for i in 0..<min(c.k, c.m) { shards[i] = nil }
            let rebuilt = try fec.reconstruct(k: c.k, m: c.m, shards: shards)
            #expect(rebuilt == c.data, "\(kernel) \(c) decode")
        }
    }

    /// The §9.2 AU example: 100 bytes `(i·131 + 7) mod 256`, P = 16, K = 4, 50 % ⇒ blocks
    /// (4 + 2) and (3 + 2), the last data shard zero-padded; data and parity must match the file.
    @Test func accessUnitExample() throws {
        let au = (0..<100).map { UInt8(($0 * 131 + 7) % 256) }
        var shards: [[UInt8]] = stride(from: 0, to: 100, by: 16).map { Array(au[$0..<min($0 + 16, 100)]) }
        shards[shards.count - 1] += [UInt8](repeating: 0, count: 16 - shards[shards.count - 1].count)
        #expect(shards.count == 7)
        let blocks = [Array(shards[0..<4]), Array(shards[4..<7])]
        let fileBlocks = Self.cases.filter { $0.name.hasPrefix("e2e AU block") }
        try #require(fileBlocks.count == 2)
        let fec = LeopardFEC()
        for (b, data) in blocks.enumerated() {
            #expect(fileBlocks[b].data == data)
            let parity = try fec.encode(data, m: 2)
            #expect(parity == fileBlocks[b].expected.map(\.bytes))
        }
        // Spot values transcribed from data-plane.md §9.2.
        #expect(try fec.encode(blocks[0], m: 2)[0] == hex("3aa3a3969696f1f1a2f3f3f3f3f31f1f"))
        #expect(try fec.encode(blocks[1], m: 2)[1] == hex("b4bb486a61e4911477d354d95adf59dc"))
    }

    /// data-plane.md §2.5: for k = 1, m = 2 (low rate) both parity shards equal the data shard.
    @Test func singleShardParityIsCopy() throws {
        let fec = LeopardFEC()
        for p in [2, 6, 64, 130, 1388] {
            let data = FECTestSupport.patternShards(k: 1, p: p)
            #expect(try fec.encode(data, m: 2) == [data[0], data[0]])
        }
    }
}
