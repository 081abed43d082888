/// Bounds the receive path enforces before trusting a header (data-plane.md §1.8–§1.9, §8.3).
public struct MediaLimits: Sendable, Equatable {
    /// Acceptance ceiling for one datagram (a 9000-MTU jumbo sealed datagram fits).
    public static let maxDatagramBytes = 9216
    /// Largest shard payload: 9216 − 40 − 24 (the punktfunk/1 derivation both wires share).
    public static let maxShardBytes = 9152
    /// v2 per-packet overhead: 30-byte header + 16-byte AEAD tag.
    public static let v2Overhead = MediaHeader.length + MediaCipher.tagLength

    /// The session's shard payload P (ServerHello tag 9). Shards smaller than min(512, P) are refused.
    public var shardBytes: Int
    /// K, the session's max data shards per block (ServerHello tag 8; hosts send 4096).
    public var maxDataPerBlock: Int
    /// Largest AU accepted, bytes (client: clamp(4 × kbps × 125 / refresh, 8 MiB, 64 MiB)).
    public var maxFrameBytes: Int
    /// Reassembly memory budget across in-flight AUs (4 × maxFrameBytes).
    public var inFlightBudgetBytes: Int

    public init(shardBytes: Int = 1408, maxDataPerBlock: Int = 4096, maxFrameBytes: Int = 64 << 20) {
        self.shardBytes = shardBytes
        self.maxDataPerBlock = maxDataPerBlock
        self.maxFrameBytes = maxFrameBytes
        self.inFlightBudgetBytes = 4 * maxFrameBytes
    }

    /// `clamp(4 × bitrate_kbps × 125 / refresh, 8 MiB, 64 MiB)` (data-plane.md §1.9).
    public static func maxFrameBytes(bitrateKbps: UInt32, refreshHz: UInt32) -> Int {
        let raw = 4 * Int(bitrateKbps) * 125 / Int(max(refreshHz, 1))
        return min(max(raw, 8 << 20), 64 << 20)
    }

    /// `min(K + ⌈0.9·K⌉, 65535)`: the most shards (data + parity) one block may have.
    public var maxShardsPerBlock: Int {
        min(maxDataPerBlock + (9 * maxDataPerBlock + 9) / 10, 65535)
    }

    /// The smallest shard payload accepted: min(512, P).
    public var minShardBytes: Int { min(512, shardBytes) }
}
