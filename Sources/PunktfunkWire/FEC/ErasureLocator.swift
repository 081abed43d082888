/// Logs of the erasure-locator values used by the Leopard decoder (crate `eval_poly`,
/// data-plane.md §2.5 "Decoding"), computed on N = work-count points instead of 65536.
///
/// The crate computes `e = W(W(x) ⊙ L)` with W the 65536-point Walsh–Hadamard transform in
/// arithmetic mod 65535, x the erasure indicator and L = W(log with log[0] := 0), and then reads
/// e only at indices < N (N a power of two). Folding both transforms onto Z/N gives the same
/// values exactly:
/// - the outputs at indices < N only need the N-periodic sum of W(x) ⊙ L;
/// - if x lives on [0, N), W(x) is N-periodic, so that sum is W_N(x) ⊙ F with
///   F[l] = Σ_h L[hN + l] = (65536/N) · W_N(log[0..<N])[l];
/// - the low rate also marks every index ≥ N erased; writing x = (x − 1 on [0, N)) + 1 everywhere,
///   the all-ones part adds 65536 · L[0] = Σ log ≡ 0 (logs of the nonzero elements are a
///   permutation of 0…65534, whose sum is a multiple of 65535), so it drops out.
/// Hence `e = W_N(W_N(x′) ⊙ F)`, costing O(N log N) instead of O(65536 · 16).
///
/// Owns its scratch (grows only); not thread-safe.
final class ErasureLocator {
    private var values: UnsafeMutablePointer<UInt16>
    private var factors: UnsafeMutablePointer<UInt16>
    private var capacity: Int
    /// N for which `factors` currently holds F (0 = none).
    private var factorsN = 0
    private let tables = GF16Tables.shared

    init() {
        capacity = 1
        values = .allocate(capacity: 1)
        factors = .allocate(capacity: 1)
    }

    deinit {
        values.deallocate()
        factors.deallocate()
    }

    /// Prepares for N points (N a power of two ≤ 65536) and returns the indicator buffer, which
    /// the caller fills with x′: for each index < N, 1 if erased else 0 — or, when indices ≥ N
    /// are erased too (low rate), 0 if erased else 65534 (i.e. x − 1 mod 65535).
    func begin(n: Int) -> UnsafeMutablePointer<UInt16> {
        if n > capacity {
            values.deallocate()
            factors.deallocate()
            capacity = n
            values = .allocate(capacity: n)
            factors = .allocate(capacity: n)
            factorsN = 0
        }
        values.initialize(repeating: 0, count: n)
        return values
    }

    /// Turns the indicator written after `begin(n:)` into the locator logs, in place; returns
    /// the same buffer. Entry i is a log in 0…65535 (65535 ≡ 0, both meaning the element 1).
    func evaluate(n: Int) -> UnsafeMutablePointer<UInt16> {
        if factorsN != n { buildFactors(n: n) }
        Self.walshHadamard(values, n)
        for i in 0..<n { values[i] = GF16Tables.mulMod(values[i], factors[i]) }
        Self.walshHadamard(values, n)
        return values
    }

    /// F = (65536/N) · W_N(log′[0..<N]) with log′[0] = 0 (the crate's `LogWalsh`, folded).
    private func buildFactors(n: Int) {
        factors[0] = 0
        for i in 1..<max(n, 1) { factors[i] = tables.log[i] }
        Self.walshHadamard(factors, n)
        let scale = UInt16(truncatingIfNeeded: (65536 / n) % 65535)
        for i in 0..<n { factors[i] = GF16Tables.mulMod(factors[i], scale) }
        factorsN = n
    }

    /// In-place Walsh–Hadamard transform of length n (power of two), mod 65535.
    static func walshHadamard(_ v: UnsafeMutablePointer<UInt16>, _ n: Int) {
        var dist = 1
        while dist < n {
            var r = 0
            while r < n {
                for i in r..<(r + dist) {
                    let a = v[i], b = v[i + dist]
                    v[i] = GF16Tables.addMod(a, b)
                    v[i + dist] = GF16Tables.subMod(a, b)
                }
                r += 2 * dist
            }
            dist <<= 1
        }
    }
}
