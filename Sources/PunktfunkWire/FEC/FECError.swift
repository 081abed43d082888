/// Why a `LeopardFEC` call refused to run (data-plane.md §2.5, §2.7).
public enum FECError: Error, Equatable, Sendable {
    /// k, m or the shard size is outside what reed-solomon-simd 3.1.0 accepts: k ≥ 1, m ≥ 1
    /// (m = 0 is a documented no-op, see `LeopardFEC`), `min(kp, mp) + max(k, m) ≤ 65536` with
    /// kp, mp the next powers of two, and shardBytes even and > 0. Also raised by the array
    /// conveniences when shard counts or lengths disagree.
    case invalidGeometry(k: Int, m: Int, shardBytes: Int)
    /// Fewer than k of the k + m shards are present, so the data is not recoverable.
    case tooFewShards(have: Int, need: Int)
}
