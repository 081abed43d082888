import CPunktfunkFEC

/// The Leopard work array: `count` shards of `shardBytes` bytes each, contiguous and 64-byte
/// aligned, in the crate's internal 64-byte-chunk layout (pf_fec.h; data-plane.md §2.5
/// "Byte ↔ symbol layout"), plus the FFT/IFFT and formal-derivative passes over it.
///
/// Invariants: `shardBytes` is a multiple of 64; `capacity` only grows, so after warm-up at a
/// given size nothing is allocated. Not thread-safe (owned by one `LeopardFEC`).
final class ShardWork {
    private(set) var base: UnsafeMutableRawPointer
    private var capacity: Int
    /// Padded shard size in bytes (wire size rounded up to 64).
    private(set) var shardBytes = 64
    /// Shards in use.
    private(set) var count = 0
    /// C kernel id used by every pass (pf_fec.h `PF_FEC_KERNEL_*`).
    var kernel: Int32 = 0

    private let tables = GF16Tables.shared
    /// Multiplier table for the current butterfly group; rebuilt per multiplier.
    private let lut: UnsafeMutablePointer<pf_fec_lut>

    init() {
        capacity = 64
        base = .allocate(byteCount: capacity, alignment: 64)
        lut = .allocate(capacity: 1)
        lut.initialize(to: pf_fec_lut())
    }

    deinit {
        base.deallocate()
        lut.deallocate()
    }

    /// Sizes the array for `count` shards of a `wireBytes`-byte shard; contents are unspecified.
    func reset(count: Int, wireBytes: Int) {
        shardBytes = (wireBytes + 63) & ~63
        self.count = count
        let need = count * shardBytes
        if need > capacity {
            base.deallocate()
            capacity = need
            base = .allocate(byteCount: need, alignment: 64)
        }
    }

    @inline(__always)
    func shard(_ i: Int) -> UnsafeMutableRawPointer { base + i * shardBytes }

    // MARK: Moving wire shards in and out

    /// Copies a wire shard of `wireBytes` (even) bytes into work shard `i`. Full 64-byte chunks
    /// are copied as is; a tail of T = wireBytes mod 64 bytes is split: its first T/2 bytes are
    /// the low bytes of symbols 0..<T/2 and go to chunk offset 0, the rest are the high bytes
    /// and go to offset 32 (crate `Shards::insert`). Unused tail positions are zeroed.
    func load(_ i: Int, from src: UnsafeRawPointer, wireBytes: Int) {
        let dst = shard(i)
        let full = wireBytes & ~63
        dst.copyMemory(from: src, byteCount: full)
        let tail = wireBytes - full
        guard tail > 0 else { return }
        let half = tail / 2
        let chunk = dst + full
        chunk.initializeMemory(as: UInt8.self, repeating: 0, count: 64)
        chunk.copyMemory(from: src + full, byteCount: half)
        (chunk + 32).copyMemory(from: src + full + half, byteCount: half)
    }

    /// Inverse of `load`: writes work shard `i` back as `wireBytes` wire bytes
    /// (crate `undo_last_chunk_encoding`).
    func store(_ i: Int, to dst: UnsafeMutableRawPointer, wireBytes: Int) {
        let src = UnsafeRawPointer(shard(i))
        let full = wireBytes & ~63
        dst.copyMemory(from: src, byteCount: full)
        let tail = wireBytes - full
        guard tail > 0 else { return }
        let half = tail / 2
        (dst + full).copyMemory(from: src + full, byteCount: half)
        (dst + full + half).copyMemory(from: src + full + 32, byteCount: half)
    }

    /// Zeroes shards `range`.
    func zero(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        shard(range.lowerBound).initializeMemory(as: UInt8.self, repeating: 0,
                                                 count: range.count * shardBytes)
    }

    /// Shards [x, x+n) ^= shards [y, y+n); the ranges must not overlap.
    @inline(__always)
    func xor(_ x: Int, _ y: Int, count n: Int) {
        pf_fec_xor(kernel, shard(x), shard(y), n * shardBytes)
    }

    /// Copies shards [src, src+n) to [dst, dst+n); the ranges must not overlap.
    func copy(from src: Int, to dst: Int, count n: Int) {
        shard(dst).copyMemory(from: shard(src), byteCount: n * shardBytes)
    }

    /// Shard `i` = (element with log `logM`) · shard `i`. logM 65535 multiplies by 1.
    func mul(_ i: Int, log logM: UInt16) {
        pf_fec_lut_build(lut, tables.exp, tables.log, logM)
        pf_fec_mul(kernel, shard(i), shardBytes, lut)
    }

    // MARK: Transforms (data-plane.md §2.5 "Butterflies")

    /// In-place FFT over shards [pos, pos+size), `size` a power of two. Outputs in
    /// [pos, pos+truncated) are valid; beyond that they are only valid if the inputs there were 0.
    /// Twiddle of the group at r, distance d: skew[r + d + skewDelta − 1].
    func fft(pos: Int, size: Int, truncated: Int, skewDelta: Int) {
        var dist = size >> 1
        while dist > 0 {
            var r = 0
            while r < truncated {
                // The group's a-shards [pos+r, pos+r+dist) and b-shards [pos+r+dist, pos+r+2·dist)
                // are each contiguous and pairwise aligned, so one kernel call covers the group.
                let logM = tables.skew[r + dist + skewDelta - 1]
                let a = pos + r, b = pos + r + dist
                if logM == GF16Tables.modulus {
                    xor(b, a, count: dist)
                } else {
                    pf_fec_lut_build(lut, tables.exp, tables.log, logM)
                    pf_fec_fft_butterfly(kernel, shard(a), shard(b), dist * shardBytes, lut)
                }
                r += 2 * dist
            }
            dist >>= 1
        }
    }

    /// In-place IFFT over shards [pos, pos+size); same validity rule and twiddles as `fft`.
    func ifft(pos: Int, size: Int, truncated: Int, skewDelta: Int) {
        var dist = 1
        while dist < size {
            var r = 0
            while r < truncated {
                let logM = tables.skew[r + dist + skewDelta - 1]
                let a = pos + r, b = pos + r + dist
                if logM == GF16Tables.modulus {
                    xor(b, a, count: dist)
                } else {
                    pf_fec_lut_build(lut, tables.exp, tables.log, logM)
                    pf_fec_ifft_butterfly(kernel, shard(a), shard(b), dist * shardBytes, lut)
                }
                r += 2 * dist
            }
            dist <<= 1
        }
    }

    /// FFT with skewDelta = pos + size (crate `fft_skew_end`).
    func fftSkewEnd(pos: Int, size: Int, truncated: Int) {
        fft(pos: pos, size: size, truncated: truncated, skewDelta: pos + size)
    }

    /// IFFT with skewDelta = pos + size (crate `ifft_skew_end`).
    func ifftSkewEnd(pos: Int, size: Int, truncated: Int) {
        ifft(pos: pos, size: size, truncated: truncated, skewDelta: pos + size)
    }

    /// Formal derivative in the novel polynomial basis over all `count` shards (count a power
    /// of two): for i = 1..<count, with w = lowest set bit of i, shards [i−w, i) ^= [i, i+w).
    func formalDerivative() {
        for i in 1..<max(count, 1) {
            let width = i & (0 &- i)
            xor(i - width, i, count: width)
        }
    }
}
