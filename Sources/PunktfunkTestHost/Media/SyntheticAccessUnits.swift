import PunktfunkWire

/// Deterministic AU payloads for test hosts and tests.
public enum SyntheticAccessUnits {
    /// `count` AUs; AU i has `bytes + i * 37` bytes of SplitMix64(seed) content (so sizes differ and
    /// are rarely shard multiples). Not valid HEVC.
    public static func make(count: Int, bytes: Int, seed: UInt64) -> [[UInt8]] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            var au = [UInt8](repeating: 0, count: bytes + i * 37)
            for j in au.indices { au[j] = UInt8(truncatingIfNeeded: rng.next() >> 56) }
            return au
        }
    }
}
