import Testing
@testable import PunktfunkWire

/// Field tables, the per-shard kernels and the folded erasure-locator evaluation
/// (data-plane.md §2.5), checked against direct definitions.
@Suite struct FECFieldTests {
    let t = GF16Tables.shared

    @Test func logExpTables() {
        #expect(t.log[0] == 65535)
        #expect(t.log[1] == 0)
        #expect(t.exp[0] == 1)
        #expect(t.exp[65535] == t.exp[0])
        var seen = [Bool](repeating: false, count: 65535)
        for x in 1..<65536 {
            let l = Int(t.log[x])
            #expect(l < 65535)
            seen[l] = true
            if t.exp[l] != UInt16(x) { Issue.record("exp[log[\(x)]] != \(x)"); break }
        }
        #expect(seen.allSatisfy { $0 })
    }

    /// Multiplication by a constant is XOR-linear (what the nibble tables rely on) and
    /// log-additive.
    @Test func multiplicationIsLinear() {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<2000 {
            let a = UInt16.random(in: 0...UInt16.max, using: &rng)
            let b = UInt16.random(in: 0...UInt16.max, using: &rng)
            let l = UInt16.random(in: 0...65535, using: &rng)
            #expect(t.mul(a ^ b, log: l) == t.mul(a, log: l) ^ t.mul(b, log: l))
            if a != 0, b != 0 {
                let viaLogs = t.exp[Int(GF16Tables.addMod(t.log[Int(a)], t.log[Int(b)]))]
                #expect(t.mul(a, log: t.log[Int(b)]) == viaLogs)
            }
        }
        #expect(t.mul(0x1234, log: 65535) == 0x1234)
        #expect(t.mul(0x1234, log: 0) == 0x1234)
    }

    /// The zero twiddles (log 65535 ⇒ the butterfly skips its multiply) sit exactly at 2^m − 1.
    @Test func skewTableShape() {
        #expect(t.skew[0] == 65535)  // skew[0] = log(0): the first butterfly skips its multiply
        var skips: [Int] = []
        for i in 0..<65535 where t.skew[i] == 65535 { skips.append(i) }
        #expect(skips == [0, 1, 3, 7, 15, 31, 63, 127, 255, 511, 1023, 2047, 4095, 8191, 16383, 32767])
    }

    /// Each kernel's in-place multiply equals the symbol-wise definition in the 64-byte-chunk
    /// layout (low bytes at 0..<32, high bytes at 32..<64). Runs for the kernels this CPU has
    /// (the golden-vector tests report the skipped ones explicitly).
    @Test(arguments: LeopardFEC.availableKernels)
    func kernelMultiplyMatchesDefinition(kernel: String) throws {
        let fec = try #require(LeopardFEC(kernel: kernel))
        let work = fec.work
        work.kernel = fec.currentKernel
        work.reset(count: 1, wireBytes: 192)
        var rng = SplitMix64(seed: 7)
        for logM in [UInt16(0), 1, 2, 255, 4660, 65534, 65535] + (0..<20).map({ _ in UInt16.random(in: 0...65535, using: &rng) }) {
            let input = (0..<192).map { _ in UInt8.random(in: 0...255, using: &rng) }
            input.withUnsafeBytes { work.load(0, from: $0.baseAddress!, wireBytes: 192) }
            work.mul(0, log: logM)
            var out = [UInt8](repeating: 0, count: 192)
            out.withUnsafeMutableBytes { work.store(0, to: $0.baseAddress!, wireBytes: 192) }
            for c in 0..<3 {
                for j in 0..<32 {
                    let s = UInt16(input[64 * c + j]) | UInt16(input[64 * c + 32 + j]) << 8
                    let p = t.mul(s, log: logM)
                    let got = UInt16(out[64 * c + j]) | UInt16(out[64 * c + 32 + j]) << 8
                    if got != p { Issue.record("\(kernel) log \(logM) chunk \(c) sym \(j)"); return }
                }
            }
        }
    }

    /// `load`/`store` implement the crate's tail layout: for a 20-byte shard, bytes 0..<10 are
    /// the low bytes and 10..<20 the high bytes of symbols 0..<10.
    @Test func tailLayoutRoundTrip() {
        let work = ShardWork()
        work.reset(count: 1, wireBytes: 84)
        let wire = (0..<84).map { UInt8($0 + 1) }
        wire.withUnsafeBytes { work.load(0, from: $0.baseAddress!, wireBytes: 84) }
        let chunk = UnsafeRawBufferPointer(start: work.shard(0) + 64, count: 64)
        #expect(Array(chunk[0..<10]) == Array(wire[64..<74]))
        #expect(Array(chunk[32..<42]) == Array(wire[74..<84]))
        #expect(chunk[10..<32].allSatisfy { $0 == 0 } && chunk[42..<64].allSatisfy { $0 == 0 })
        var back = [UInt8](repeating: 0, count: 84)
        back.withUnsafeMutableBytes { work.store(0, to: $0.baseAddress!, wireBytes: 84) }
        #expect(back == wire)
    }

    /// The O(N log N) folded locator equals the crate's full 65536-point evaluation
    /// (FWHT of the indicator, ⊙ FWHT(log with log[0] = 0), FWHT) at every index < N, in both
    /// the high-rate form (indicator on [0, N)) and the low-rate form (everything ≥ N erased).
    @Test func foldedErasureLocatorMatchesFullTransform() {
        let logWalsh = Self.fullLogWalsh(t)
        let locator = ErasureLocator()
        var rng = SplitMix64(seed: 99)
        for (n, lowRate) in [(256, false), (256, true), (8, false), (8, true), (2, false), (64, true), (2048, false)] {
            var indicator = [UInt16](repeating: 0, count: 65536)
            for i in 0..<n where Bool.random(using: &rng) { indicator[i] = 1 }
            if lowRate { for i in n..<65536 { indicator[i] = 1 } }

            // Crate-style reference.
            var full = indicator
            Self.fwht(&full)
            for i in 0..<65536 { full[i] = UInt16(UInt32(full[i]) * UInt32(logWalsh[i]) % 65535) }
            Self.fwht(&full)

            let x = locator.begin(n: n)
            for i in 0..<n { x[i] = lowRate ? (indicator[i] == 1 ? 0 : 65534) : indicator[i] }
            let e = locator.evaluate(n: n)
            for i in 0..<n where Int(e[i]) % 65535 != Int(full[i]) % 65535 {
                Issue.record("n=\(n) low=\(lowRate) index \(i): \(e[i]) vs \(full[i])")
                break
            }
        }
    }

    /// Independent reference: textbook 65536-point Walsh–Hadamard transform with plain % 65535.
    static func fwht(_ v: inout [UInt16]) {
        var w = v.map { UInt32($0) % 65535 }
        var dist = 1
        while dist < 65536 {
            for r in stride(from: 0, to: 65536, by: 2 * dist) {
                for i in r..<(r + dist) {
                    let a = w[i], b = w[i + dist]
                    w[i] = (a + b) % 65535
                    w[i + dist] = (a + 65535 - b) % 65535
                }
            }
            dist <<= 1
        }
        v = w.map { UInt16($0) }
    }

    static func fullLogWalsh(_ t: GF16Tables) -> [UInt16] {
        var lw = (0..<65536).map { t.log[$0] }
        lw[0] = 0
        fwht(&lw)
        return lw
    }

    @Test func kernelSelection() {
        #expect(LeopardFEC.availableKernels.first == "portable")
        #expect(LeopardFEC.availableKernels.contains(LeopardFEC.kernel))
        // Each architecture runs only its own SIMD sets.
        #if arch(x86_64)
        #expect(LeopardFEC(kernel: "neon") == nil)
        #elseif arch(arm64)
        #expect(LeopardFEC.availableKernels == ["portable", "neon"])
        #endif
        #expect(LeopardFEC(kernel: "bogus") == nil)
        #expect(!LeopardFEC.forceKernel("bogus"))
        let best = LeopardFEC.availableKernels.last!
        #expect(LeopardFEC.forceKernel("portable"))
        #expect(LeopardFEC.kernel == "portable")
        #expect(LeopardFEC.forceKernel(best))
        #expect(LeopardFEC.kernel == best)
    }
}
