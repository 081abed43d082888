extension LeopardFEC {
    /// Array convenience for tests and tools: parity of `data` (k equal-length shards).
    /// Allocates; the pointer API is the allocation-free path.
    public func encode(_ data: [[UInt8]], m: Int) throws(FECError) -> [[UInt8]] {
        let k = data.count
        let p = data.first?.count ?? 0
        guard k >= 1, data.allSatisfy({ $0.count == p }) else {
            throw .invalidGeometry(k: k, m: m, shardBytes: p)
        }
        let flat = data.flatMap { $0 }
        var parity = [UInt8](repeating: 0, count: max(m, 0) * p)
        // The buffer accessors are `rethrows` (untyped), so the typed error is carried out by hand.
        var failure: FECError?
        flat.withUnsafeBytes { src in
            parity.withUnsafeMutableBytes { dst in
                do throws(FECError) {
                    try encode(k: k, m: m, shardBytes: p, data: src.baseAddress!, dataStride: p,
                               parity: dst.baseAddress ?? UnsafeMutableRawPointer(mutating: src.baseAddress!),
                               parityStride: p)
                } catch { failure = error }
            }
        }
        if let failure { throw failure }
        return (0..<max(m, 0)).map { Array(parity[($0 * p)..<(($0 + 1) * p)]) }
    }

    /// Array convenience for tests and tools: `shards` holds k + m optional shards (data 0..<k,
    /// then parity 0..<m; nil = lost), all present ones of equal length. Returns the k data shards.
    public func reconstruct(k: Int, m: Int, shards: [[UInt8]?]) throws(FECError) -> [[UInt8]] {
        let p = shards.lazy.compactMap { $0 }.first?.count ?? 0
        guard k >= 1, m >= 0, shards.count == k + m,
              shards.allSatisfy({ $0 == nil || $0!.count == p }) else {
            throw .invalidGeometry(k: k, m: m, shardBytes: p)
        }
        guard p > 0 else {
            let have = shards.lazy.compactMap { $0 }.count
            if have < k { throw .tooFewShards(have: have, need: k) }
            throw .invalidGeometry(k: k, m: m, shardBytes: p)
        }
        var dataFlat = [UInt8](repeating: 0, count: k * p)
        var parityFlat = [UInt8](repeating: 0, count: max(m, 1) * p)
        let present = shards.map { $0 != nil }
        for (i, s) in shards.enumerated() {
            guard let s else { continue }
            if i < k {
                dataFlat.replaceSubrange((i * p)..<((i + 1) * p), with: s)
            } else {
                parityFlat.replaceSubrange(((i - k) * p)..<((i - k + 1) * p), with: s)
            }
        }
        var failure: FECError?
        dataFlat.withUnsafeMutableBytes { d in
            parityFlat.withUnsafeBytes { q in
                present.withUnsafeBufferPointer { f in
                    do throws(FECError) {
                        try reconstruct(k: k, m: m, shardBytes: p, data: d.baseAddress!, dataStride: p,
                                        parity: q.baseAddress!, parityStride: p, present: f.baseAddress!)
                    } catch { failure = error }
                }
            }
        }
        if let failure { throw failure }
        return (0..<k).map { Array(dataFlat[($0 * p)..<(($0 + 1) * p)]) }
    }
}
