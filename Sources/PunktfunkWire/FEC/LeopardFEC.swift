import CPunktfunkFEC

/// Reusable GF(2^16) Leopard Reed–Solomon coder, byte-exact with reed-solomon-simd 3.1.0
/// (`ReedSolomonEncoder::new(k, m, P)` / `reed_solomon_simd::decode`, default rate selection;
/// data-plane.md §2.5, receiver procedure §2.7).
///
/// Owns its scratch memory (work shards, erasure-locator buffers): after warm-up at a given
/// geometry no call allocates. Not thread-safe — use one instance per thread.
///
/// Geometry: k ≥ 1 data shards, m recovery (parity) shards, shards of `shardBytes` bytes
/// (even, > 0, any multiple of 2 — non-multiples of 64 use the crate's split-tail layout).
/// Valid iff `min(kp, mp) + max(k, m) ≤ 65536` (kp, mp = next powers of two), which implies
/// k + m ≤ 65536. **m = 0 is accepted as a no-op**: `encode` writes nothing and `reconstruct`
/// succeeds only if all k data shards are present (else `tooFewShards`).
public final class LeopardFEC {
    /// Fixed kernel id, or nil to follow the process-wide choice (`kernel`/`forceKernel`).
    private let pinnedKernel: Int32?
    let work = ShardWork()
    let locator = ErasureLocator()

    /// A coder using the process-wide kernel (the fastest one this CPU supports unless forced).
    public init() {
        pinnedKernel = nil
        _ = GF16Tables.shared
    }

    /// A coder pinned to one kernel set ("avx2", "ssse3", "neon", "portable"), independent of
    /// `forceKernel`; nil if the name is unknown or this CPU cannot run it. For tests/benches.
    public init?(kernel name: String) {
        guard let id = FECKernel.id(named: name) else { return nil }
        pinnedKernel = id
        _ = GF16Tables.shared
    }

    /// The kernel set this instance uses right now.
    public var kernelName: String { FECKernel.name(of: currentKernel) }

    var currentKernel: Int32 { pinnedKernel ?? pf_fec_kernel_active() }

    // MARK: Kernel selection (process-wide)

    /// The process-wide kernel set in use: "avx2", "ssse3", "neon" or "portable".
    public static var kernel: String { FECKernel.name(of: pf_fec_kernel_active()) }

    /// Kernel sets this CPU can run, slowest first (always contains "portable").
    public static var availableKernels: [String] { FECKernel.supported }

    /// Makes `name` the process-wide kernel set for every unpinned coder. Returns false (and
    /// changes nothing) if the name is unknown or the CPU lacks the instructions.
    @discardableResult
    public static func forceKernel(_ name: String) -> Bool {
        guard let id = FECKernel.id(named: name) else { return false }
        return pf_fec_kernel_force(id) != 0
    }

    // MARK: Geometry and rate (crate `rate_default.rs` `use_high_rate`)

    /// True if (k, m) is encoded with the high-rate algorithm, false for low rate or an
    /// unsupported geometry. kp < mp ⇒ low; kp > mp ⇒ high; kp = mp ⇒ high iff k ≤ m.
    public static func usesHighRate(k: Int, m: Int) -> Bool {
        guard isSupported(k: k, m: m) else { return false }
        let kp = nextPowerOfTwo(k), mp = nextPowerOfTwo(m)
        if kp != mp { return kp > mp }
        return k <= m
    }

    /// Crate rule: k, m ≥ 1 and `min(kp, mp) + max(k, m) ≤ 65536`.
    static func isSupported(k: Int, m: Int) -> Bool {
        guard k >= 1, m >= 1, k <= 65536, m <= 65536 else { return false }
        return min(nextPowerOfTwo(k), nextPowerOfTwo(m)) + max(k, m) <= 65536
    }

    /// Validates a geometry with m ≥ 1 and returns whether it uses the high rate.
    static func validate(k: Int, m: Int, shardBytes: Int) throws(FECError) -> Bool {
        guard isSupported(k: k, m: m), shardBytes > 0, shardBytes % 2 == 0 else {
            throw .invalidGeometry(k: k, m: m, shardBytes: shardBytes)
        }
        return usesHighRate(k: k, m: m)
    }

    /// Smallest power of two ≥ n, for 1 ≤ n ≤ 2^62.
    @inline(__always)
    static func nextPowerOfTwo(_ n: Int) -> Int {
        n <= 1 ? 1 : 1 << (Int.bitWidth - (n - 1).leadingZeroBitCount)
    }
}
