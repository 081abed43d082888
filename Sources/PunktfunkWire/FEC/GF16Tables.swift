/// GF(2^16) log/exp and skew tables exactly as reed-solomon-simd 3.1.0 builds them
/// (data-plane.md §2.5): polynomial 0x1002D, elements in the Cantor basis, logs mod 65535.
///
/// Built once per process on first use (`shared` is a lazily, thread-safely initialised
/// `static let`), immutable afterwards and never freed, so the raw pointers may be read from
/// any thread.
final class GF16Tables: @unchecked Sendable {
    static let shared = GF16Tables()

    /// Order of the multiplicative group; a log of 65535 means "zero" in the skew table.
    static let modulus: UInt16 = 65535
    /// data-plane.md §2.5 `GF_POLYNOMIAL`.
    static let polynomial = 0x1002D
    /// data-plane.md §2.5 `CANTOR_BASIS`: Cantor-coordinate bit i ↦ polynomial-basis value.
    static let cantorBasis: [UInt16] = [
        0x0001, 0xACCA, 0x3C0E, 0x163E, 0xC582, 0xED2E, 0x914C, 0x4012,
        0x6C98, 0x10D8, 0x6A72, 0xB900, 0xFDB8, 0xFB34, 0xFF38, 0x991E,
    ]

    /// `exp[l]` = element with log l, l in 0…65535 (`exp[65535] == exp[0] == 1`). 65536 entries.
    let exp: UnsafeMutablePointer<UInt16>
    /// `log[x]` = log of element x in 0…65534; `log[0] == 65535` (sentinel). 65536 entries.
    let log: UnsafeMutablePointer<UInt16>
    /// FFT twiddle logs, 65535 entries; 65535 means "skip the multiply" (data-plane.md §2.5).
    let skew: UnsafeMutablePointer<UInt16>

    private init() {
        exp = .allocate(capacity: 65536)
        log = .allocate(capacity: 65536)
        skew = .allocate(capacity: 65535)
        Self.buildExpLog(exp: exp, log: log)
        Self.buildSkew(skew: skew, exp: exp, log: log)
    }

    /// One's-complement addition: a + b mod 65535, result in 0…65535 (65535 ≡ 0).
    @inline(__always)
    static func addMod(_ a: UInt16, _ b: UInt16) -> UInt16 {
        let s = UInt32(a) + UInt32(b)
        return UInt16(truncatingIfNeeded: s + (s >> 16))
    }

    /// a − b mod 65535, result in 0…65535 (65535 ≡ 0).
    @inline(__always)
    static func subMod(_ a: UInt16, _ b: UInt16) -> UInt16 {
        let d = UInt32(a) &- UInt32(b)
        return UInt16(truncatingIfNeeded: d &+ (d >> 16))
    }

    /// a · b mod 65535 for representatives a, b in 0…65535; result in 0…65535.
    @inline(__always)
    static func mulMod(_ a: UInt16, _ b: UInt16) -> UInt16 {
        let p = UInt32(a) * UInt32(b)
        return addMod(UInt16(truncatingIfNeeded: p), UInt16(truncatingIfNeeded: p >> 16))
    }

    /// Field product of element x and the element whose log is `logM`.
    @inline(__always)
    func mul(_ x: UInt16, log logM: UInt16) -> UInt16 {
        x == 0 ? 0 : exp[Int(Self.addMod(log[Int(x)], logM))]
    }

    /// data-plane.md §2.5 "Log/exp tables": LFSR logs in the polynomial basis, then the
    /// Cantor-basis relabelling.
    private static func buildExpLog(exp: UnsafeMutablePointer<UInt16>, log: UnsafeMutablePointer<UInt16>) {
        // 1. LFSR pass; `exp` temporarily holds the polynomial-basis log table.
        var state = 1
        for i in 0..<65535 {
            exp[state] = UInt16(i)
            state <<= 1
            if state >= 65536 { state ^= polynomial }
        }
        exp[0] = modulus
        // 2. Cantor coordinates → polynomial basis value, in `log` for now.
        log[0] = 0
        for i in 0..<16 {
            let width = 1 << i
            for j in 0..<width { log[j + width] = log[j] ^ cantorBasis[i] }
        }
        // 3. Compose, then invert.
        for x in 0..<65536 { log[x] = exp[Int(log[x])] }
        for x in 0..<65536 { exp[Int(log[x])] = UInt16(x) }
        exp[65535] = exp[0]
    }

    /// data-plane.md §2.5 "Skew table". Indices stay below 65535 (j + s ≤ 2s − 2^m − 1).
    private static func buildSkew(skew: UnsafeMutablePointer<UInt16>, exp: UnsafeMutablePointer<UInt16>,
                                  log: UnsafeMutablePointer<UInt16>) {
        func mul(_ x: UInt16, _ logM: UInt16) -> UInt16 {
            x == 0 ? 0 : exp[Int(addMod(log[Int(x)], logM))]
        }
        skew.initialize(repeating: 0, count: 65535)
        var temp = [UInt16](repeating: 0, count: 15)
        for i in 1..<16 { temp[i - 1] = UInt16(1 << i) }
        for m in 0..<15 {
            let step = 1 << (m + 1)
            skew[(1 << m) - 1] = 0
            for i in m..<15 {
                let s = 1 << (i + 1)
                var j = (1 << m) - 1
                while j < s {
                    skew[j + s] = skew[j] ^ temp[i]
                    j += step
                }
            }
            temp[m] = modulus &- log[Int(mul(temp[m], log[Int(temp[m] ^ 1)]))]
            for i in (m + 1)..<15 {
                let sum = addMod(log[Int(temp[i] ^ 1)], temp[m])
                temp[i] = mul(temp[i], sum)
            }
        }
        for i in 0..<65535 { skew[i] = log[Int(skew[i])] }
    }
}
