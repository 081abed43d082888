extension LeopardFEC {
    /// Computes the m parity shards of k data shards (data-plane.md §2.5 high/low-rate encode).
    ///
    /// Data shard i is read from `data + i·dataStride`, parity shard j is written to
    /// `parity + j·parityStride`; each shard is `shardBytes` bytes and shards must not overlap
    /// the parity output. m = 0 writes nothing.
    public func encode(k: Int, m: Int, shardBytes: Int, data: UnsafeRawPointer, dataStride: Int,
                       parity: UnsafeMutableRawPointer, parityStride: Int) throws(FECError) {
        if m == 0, k >= 1, k <= 65536, shardBytes > 0, shardBytes % 2 == 0 { return }
        let high = try Self.validate(k: k, m: m, shardBytes: shardBytes)
        work.kernel = currentKernel
        if high {
            encodeHighRate(k: k, m: m, shardBytes: shardBytes, data: data, dataStride: dataStride)
        } else {
            encodeLowRate(k: k, m: m, shardBytes: shardBytes, data: data, dataStride: dataStride)
        }
        // Parity j is work shard j in both rates.
        for j in 0..<m {
            work.store(j, to: parity + j * parityStride, wireBytes: shardBytes)
        }
    }

    /// High rate: chunks of mp shards. Each chunk of data is IFFT'd with skew_delta = its end
    /// and XORed into chunk 0, which is then FFT'd (truncated to m).
    private func encodeHighRate(k: Int, m: Int, shardBytes: Int, data: UnsafeRawPointer, dataStride: Int) {
        let chunk = Self.nextPowerOfTwo(m)
        let workCount = (k + chunk - 1) / chunk * chunk
        work.reset(count: workCount, wireBytes: shardBytes)
        for i in 0..<k { work.load(i, from: data + i * dataStride, wireBytes: shardBytes) }
        work.zero(k..<workCount)

        // First chunk (covers everything when k ≤ mp).
        work.ifftSkewEnd(pos: 0, size: chunk, truncated: min(k, chunk))
        // Further chunks, the last one possibly partial (its zero padding was written above).
        var start = chunk
        while start < k {
            work.ifftSkewEnd(pos: start, size: chunk, truncated: min(chunk, k - start))
            work.xor(0, start, count: chunk)
            start += chunk
        }
        work.fft(pos: 0, size: chunk, truncated: m, skewDelta: 0)
    }

    /// Low rate: one IFFT of the kp-shard data chunk, copied to every parity chunk, each of
    /// which is FFT'd with skew_delta = its end (the last one truncated to m mod kp).
    private func encodeLowRate(k: Int, m: Int, shardBytes: Int, data: UnsafeRawPointer, dataStride: Int) {
        let chunk = Self.nextPowerOfTwo(k)
        let workCount = (m + chunk - 1) / chunk * chunk
        work.reset(count: workCount, wireBytes: shardBytes)
        for i in 0..<k { work.load(i, from: data + i * dataStride, wireBytes: shardBytes) }
        work.zero(k..<chunk)

        work.ifft(pos: 0, size: chunk, truncated: k, skewDelta: 0)
        var start = chunk
        while start < m {
            work.copy(from: 0, to: start, count: chunk)
            start += chunk
        }
        start = 0
        while start < m {
            work.fftSkewEnd(pos: start, size: chunk, truncated: min(chunk, m - start))
            start += chunk
        }
    }
}
