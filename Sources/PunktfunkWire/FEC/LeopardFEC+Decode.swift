extension LeopardFEC {
    /// Rebuilds every missing data shard in place (data-plane.md §2.5 "Decoding", §2.7).
    ///
    /// `present` has k + m flags: data 0..<k, then parity 0..<m. Data slot i is at
    /// `data + i·dataStride` (present slots are read, missing ones overwritten with the exact
    /// original bytes); parity j is read from `parity + j·parityStride`. Needs at least k present
    /// shards in total. With all data present nothing is read or written.
    public func reconstruct(k: Int, m: Int, shardBytes: Int, data: UnsafeMutableRawPointer, dataStride: Int,
                            parity: UnsafeRawPointer, parityStride: Int,
                            present: UnsafePointer<Bool>) throws(FECError) {
        if m == 0 {
            // No-op geometry: succeed only when nothing is missing.
            guard k >= 1, k <= 65536, shardBytes > 0, shardBytes % 2 == 0 else {
                throw .invalidGeometry(k: k, m: m, shardBytes: shardBytes)
            }
        } else {
            _ = try Self.validate(k: k, m: m, shardBytes: shardBytes)
        }
        var dataHave = 0
        for i in 0..<k where present[i] { dataHave += 1 }
        if dataHave == k { return }
        var have = dataHave
        for j in 0..<m where present[k + j] { have += 1 }
        guard have >= k else { throw .tooFewShards(have: have, need: k) }

        work.kernel = currentKernel
        if Self.usesHighRate(k: k, m: m) {
            decodeHighRate(k: k, m: m, shardBytes: shardBytes, data: data, dataStride: dataStride,
                           parity: parity, parityStride: parityStride, present: present)
        } else {
            decodeLowRate(k: k, m: m, shardBytes: shardBytes, data: data, dataStride: dataStride,
                          parity: parity, parityStride: parityStride, present: present)
        }
    }

    /// High rate work layout: parity j at position j, data i at mp + i; positions
    /// [m, mp) are virtual erased parity, [mp + k, N) are zero; N = (mp + k) rounded up to 2^n.
    private func decodeHighRate(k: Int, m: Int, shardBytes: Int, data: UnsafeMutableRawPointer, dataStride: Int,
                                parity: UnsafeRawPointer, parityStride: Int, present: UnsafePointer<Bool>) {
        let chunk = Self.nextPowerOfTwo(m)
        let end = chunk + k
        let n = Self.nextPowerOfTwo(end)

        let x = locator.begin(n: n)
        for j in 0..<m where !present[k + j] { x[j] = 1 }
        for j in m..<chunk { x[j] = 1 }
        for i in 0..<k where !present[i] { x[chunk + i] = 1 }
        let e = locator.evaluate(n: n)

        work.reset(count: n, wireBytes: shardBytes)
        for j in 0..<m {
            if present[k + j] {
                work.load(j, from: parity + j * parityStride, wireBytes: shardBytes)
                work.mul(j, log: e[j])
            } else {
                work.zero(j..<(j + 1))
            }
        }
        work.zero(m..<chunk)
        for i in 0..<k {
            if present[i] {
                work.load(chunk + i, from: data + i * dataStride, wireBytes: shardBytes)
                work.mul(chunk + i, log: e[chunk + i])
            } else {
                work.zero((chunk + i)..<(chunk + i + 1))
            }
        }
        work.zero(end..<n)

        transformErasures(n: n, truncated: end)

        for i in 0..<k where !present[i] {
            work.mul(chunk + i, log: GF16Tables.modulus &- e[chunk + i])
            work.store(chunk + i, to: data + i * dataStride, wireBytes: shardBytes)
        }
    }

    /// Low rate work layout: data i at position i, parity j at kp + j; [k, kp) are known-zero
    /// data, [kp + m, 65536) count as erased; N = (kp + m) rounded up to 2^n.
    private func decodeLowRate(k: Int, m: Int, shardBytes: Int, data: UnsafeMutableRawPointer, dataStride: Int,
                               parity: UnsafeRawPointer, parityStride: Int, present: UnsafePointer<Bool>) {
        let chunk = Self.nextPowerOfTwo(k)
        let end = chunk + m
        let n = Self.nextPowerOfTwo(end)

        // Indices ≥ N are erased too, so the indicator is written as x − 1 (ErasureLocator).
        let erased: UInt16 = 0, kept: UInt16 = 65534
        let x = locator.begin(n: n)
        for i in 0..<k { x[i] = present[i] ? kept : erased }
        for i in k..<chunk { x[i] = kept }
        for j in 0..<m { x[chunk + j] = present[k + j] ? kept : erased }
        for i in end..<n { x[i] = erased }
        let e = locator.evaluate(n: n)

        work.reset(count: n, wireBytes: shardBytes)
        for i in 0..<k {
            if present[i] {
                work.load(i, from: data + i * dataStride, wireBytes: shardBytes)
                work.mul(i, log: e[i])
            } else {
                work.zero(i..<(i + 1))
            }
        }
        work.zero(k..<chunk)
        for j in 0..<m {
            if present[k + j] {
                work.load(chunk + j, from: parity + j * parityStride, wireBytes: shardBytes)
                work.mul(chunk + j, log: e[chunk + j])
            } else {
                work.zero((chunk + j)..<(chunk + j + 1))
            }
        }
        work.zero(end..<n)

        transformErasures(n: n, truncated: end)

        for i in 0..<k where !present[i] {
            work.mul(i, log: GF16Tables.modulus &- e[i])
            work.store(i, to: data + i * dataStride, wireBytes: shardBytes)
        }
    }

    /// IFFT, formal derivative, FFT over the whole N-shard work array (crate decoders).
    private func transformErasures(n: Int, truncated: Int) {
        work.ifft(pos: 0, size: n, truncated: truncated, skewDelta: 0)
        work.formalDerivative()
        work.fft(pos: 0, size: n, truncated: truncated, skewDelta: 0)
    }
}
