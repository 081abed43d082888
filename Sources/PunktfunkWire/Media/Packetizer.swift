/// Splits access units into FEC blocks of shards (data-plane.md §2.2, v2 fields per §8.3).
/// The host side of the wire: used by the test host and the self-test.
///
/// AU of L bytes, shard payload P, K data shards per block, parity percent p:
/// `total = max(1, ⌈L/P⌉)` data shards (the last zero-padded to P); block b holds data shards
/// `[b·K, min((b+1)·K, total))` plus `m_b = min(recoveryFor(k_b), maxTotal − k_b)` parity shards.
/// Emission is data-first: every data shard of every block, then every block's parity.
public final class Packetizer {
    /// Any non-zero FEC gives at least this many parity shards per block.
    public static let minRecoveryShards = 2
    public static let maxFECPercent = 90

    public let shardBytes: Int
    public let maxDataPerBlock: Int
    /// Parity percent, 0…90.
    public var fecPercent: Int {
        didSet { fecPercent = min(max(fecPercent, 0), Self.maxFECPercent) }
    }

    private let fec: LeopardFEC
    /// The AU copied to a multiple of P, so the last shard is zero-padded.
    private var padded: UnsafeMutableRawPointer
    private var paddedCapacity = 0
    private var parity: UnsafeMutableRawPointer
    private var parityCapacity = 0

    /// - Precondition: `shardBytes` even and in 2…9152; `maxDataPerBlock` ≥ 1.
    public init(shardBytes: Int, maxDataPerBlock: Int, fecPercent: Int, fec: LeopardFEC = LeopardFEC()) {
        precondition(shardBytes >= 2 && shardBytes % 2 == 0 && shardBytes <= MediaLimits.maxShardBytes)
        precondition(maxDataPerBlock >= 1)
        self.shardBytes = shardBytes
        self.maxDataPerBlock = maxDataPerBlock
        self.fecPercent = min(max(fecPercent, 0), Self.maxFECPercent)
        self.fec = fec
        padded = .allocate(byteCount: 1, alignment: 64)
        parity = .allocate(byteCount: 1, alignment: 64)
    }

    deinit {
        padded.deallocate()
        parity.deallocate()
    }

    /// `recovery_for(k)`: 0 when p = 0, else `max(⌈k·p/100⌉, 2)`.
    public static func recoveryFor(k: Int, percent: Int) -> Int {
        guard percent > 0, k > 0 else { return 0 }
        return max((k * percent + 99) / 100, minRecoveryShards)
    }

    /// Parity shards for a block of `k` data shards under this packetizer's settings.
    public func parityCount(forBlockOf k: Int) -> Int {
        let maxTotal = min(maxDataPerBlock + Self.recoveryFor(k: maxDataPerBlock, percent: fecPercent), 65535)
        return min(Self.recoveryFor(k: k, percent: fecPercent), maxTotal - k)
    }

    /// Emits every shard of `au` as (header, P-byte shard). `header.seqLow` is left 0 for the
    /// sealer to fill. The shard pointer is valid only during the call.
    public func packetize(_ au: UnsafeRawBufferPointer, frame: UInt32, epoch: UInt8, userFlags: UInt32,
                          ptsMicros: UInt32, stream: MediaStream,
                          emit: (MediaHeader, UnsafeRawBufferPointer) throws -> Void) throws {
        let p = shardBytes, bigK = maxDataPerBlock
        let total = max(1, (au.count + p - 1) / p)
        let blockCount = (total + bigK - 1) / bigK
        let pad = total * p - au.count
        ensure(&padded, &paddedCapacity, total * p)
        if au.count > 0 { padded.copyMemory(from: au.baseAddress!, byteCount: au.count) }
        (padded + au.count).initializeMemory(as: UInt8.self, repeating: 0, count: pad)

        var header = MediaHeader(stream: stream, epoch: epoch, flags: UInt16(userFlags & 0x7FFF),
                                 frame: frame, ptsMicros: ptsMicros)
        func geometry(_ b: Int) -> (k: Int, m: Int) {
            let k = min((b + 1) * bigK, total) - b * bigK
            return (k, parityCount(forBlockOf: k))
        }
        func setBlock(_ b: Int) {
            let (k, m) = geometry(b)
            let last = b == blockCount - 1
            header.block = UInt16(b)
            header.base = UInt32(b * bigK)
            header.k = UInt16(k)
            header.m = UInt16(m)
            header.pad = last ? UInt16(pad) : 0
            header.flags = UInt16(userFlags & 0x7FFF) | (last ? MediaHeader.lastBlockFlag : 0)
        }
        for b in 0..<blockCount {
            setBlock(b)
            for i in 0..<Int(header.k) {
                header.shard = UInt16(i)
                try emit(header, UnsafeRawBufferPointer(start: padded + (b * bigK + i) * p, count: p))
            }
        }
        for b in 0..<blockCount {
            setBlock(b)
            let (k, m) = (Int(header.k), Int(header.m))
            guard m > 0 else { continue }
            ensure(&parity, &parityCapacity, m * p)
            try fec.encode(k: k, m: m, shardBytes: p, data: padded + b * bigK * p, dataStride: p,
                           parity: parity, parityStride: p)
            for j in 0..<m {
                header.shard = UInt16(k + j)
                try emit(header, UnsafeRawBufferPointer(start: parity + j * p, count: p))
            }
        }
    }

    private func ensure(_ ptr: inout UnsafeMutableRawPointer, _ cap: inout Int, _ need: Int, keep: Int = 0) {
        guard need > cap else { return }
        let fresh = UnsafeMutableRawPointer.allocate(byteCount: max(need, cap * 2), alignment: 64)
        if keep > 0 { fresh.copyMemory(from: ptr, byteCount: keep) }
        ptr.deallocate()
        cap = max(need, cap * 2)
        ptr = fresh
    }

    // MARK: Streamed AUs (data-plane.md §2.3, v2 fields §8.3)

    /// How a streamed AU is cut into blocks before its length is known.
    public enum StreamedMode: Sendable {
        /// Sentinel blocks of exactly K data shards (no SLICE_STREAM bit).
        case fullBlocks
        /// Sentinel blocks of ≥ `minStreamBlockShards` (≤ K) data shards, sent as slices arrive;
        /// `USER_FLAG_SLICE_STREAM` on every packet.
        case slices
    }

    /// `USER_FLAG_SLICE_STREAM` (data-plane.md §1.5).
    public static let sliceStreamFlag: UInt32 = 0x80
    /// The host's `MIN_STREAM_BLOCK_SHARDS` (§2.3): a slice-mode sentinel block waits until this
    /// many whole shards are ready.
    public static let defaultMinStreamBlockShards = 16
    /// Data shards a slice-mode sentinel block needs at least (≥ 1).
    public var minStreamBlockShards = Packetizer.defaultMinStreamBlockShards

    /// The streamed AU being sent: its header template, bytes so far, shards and blocks out.
    private struct Streamed {
        var mode: StreamedMode
        var header: MediaHeader
        var userFlags: UInt16
        var bytes = 0
        var shardsOut = 0
        var blocksOut = 0
    }
    private var streamed: Streamed?

    /// Starts a streamed AU; its bytes follow through `appendStreamed`, the last call with
    /// `final: true`. Nothing is emitted yet.
    public func beginStreamed(frame: UInt32, epoch: UInt8, userFlags: UInt32, ptsMicros: UInt32,
                              stream: MediaStream, mode: StreamedMode) {
        let flags = UInt16((userFlags | (mode == .slices ? Self.sliceStreamFlag : 0)) & 0x7FFF)
        streamed = Streamed(mode: mode, header: MediaHeader(stream: stream, epoch: epoch, flags: flags, frame: frame,
                                                            ptsMicros: ptsMicros),
                            userFlags: flags)
    }

    /// Appends the next encoded bytes (whole slices, for `.slices`) of the streamed AU and emits
    /// every block that is ready, each block's data shards then its parity:
    /// - before `final`: sentinel blocks (no 0x8000, `pad` 0, `base` = the block's byte offset
    ///   / P) of whole shards only — the shard holding the newest byte is always kept back, so the
    ///   final block is never empty;
    /// - with `final`: the rest, the last block flagged 0x8000 with `base = total − k` and
    ///   `pad = total·P − L` (a rest wider than K goes first as sentinels of K).
    /// - Precondition: `beginStreamed` was called and the AU is not finished.
    public func appendStreamed(_ bytes: UnsafeRawBufferPointer, final: Bool,
                               emit: (MediaHeader, UnsafeRawBufferPointer) throws -> Void) throws {
        guard var s = streamed else { preconditionFailure("appendStreamed without beginStreamed") }
        let p = shardBytes, bigK = maxDataPerBlock
        ensure(&padded, &paddedCapacity, s.bytes + bytes.count + p, keep: s.bytes)
        if bytes.count > 0 { (padded + s.bytes).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
        s.bytes += bytes.count
        if final {
            let total = max(1, (s.bytes + p - 1) / p)
            let pad = total * p - s.bytes
            (padded + s.bytes).initializeMemory(as: UInt8.self, repeating: 0, count: pad)
            while total - s.shardsOut > bigK { try emitBlock(&s, k: bigK, last: false, pad: 0, emit: emit) }
            try emitBlock(&s, k: total - s.shardsOut, last: true, pad: pad, emit: emit)
            streamed = nil
            return
        }
        // Whole shards before the one holding the newest byte.
        let ready = s.bytes == 0 ? 0 : (s.bytes - 1) / p
        let minimum = s.mode == .slices ? min(max(1, minStreamBlockShards), bigK) : bigK
        while ready - s.shardsOut >= minimum {
            try emitBlock(&s, k: min(ready - s.shardsOut, bigK), last: false, pad: 0, emit: emit)
        }
        streamed = s
    }

    private func emitBlock(_ s: inout Streamed, k: Int, last: Bool, pad: Int,
                           emit: (MediaHeader, UnsafeRawBufferPointer) throws -> Void) throws {
        let p = shardBytes, m = parityCount(forBlockOf: k)
        var h = s.header
        h.block = UInt16(truncatingIfNeeded: s.blocksOut)
        h.base = UInt32(s.shardsOut)
        h.k = UInt16(k)
        h.m = UInt16(m)
        h.pad = last ? UInt16(pad) : 0
        h.flags = s.userFlags | (last ? MediaHeader.lastBlockFlag : 0)
        let data = padded + s.shardsOut * p
        for i in 0..<k {
            h.shard = UInt16(i)
            try emit(h, UnsafeRawBufferPointer(start: data + i * p, count: p))
        }
        if m > 0 {
            ensure(&parity, &parityCapacity, m * p)
            try fec.encode(k: k, m: m, shardBytes: p, data: data, dataStride: p, parity: parity, parityStride: p)
            for j in 0..<m {
                h.shard = UInt16(k + j)
                try emit(h, UnsafeRawBufferPointer(start: parity + j * p, count: p))
            }
        }
        s.shardsOut += k
        s.blocksOut += 1
    }
}

/// Host-side sender: packetize → FEC → seal, one packet number per datagram.
public final class MediaSender {
    public let packetizer: Packetizer
    private let cipher: MediaCipher
    /// The next packet number to seal (per direction, from 0, never reused).
    public private(set) var nextSeq: UInt64 = 0
    private let plain: UnsafeMutableRawBufferPointer
    private let sealed: UnsafeMutableRawBufferPointer

    public init(exporter: [UInt8], suite: MediaSuite, packetizer: Packetizer,
                aead: @escaping MediaAEADFactory = SwiftCryptoMediaAEAD.factory) {
        self.packetizer = packetizer
        cipher = MediaCipher(exporter: exporter, direction: .hostToClient, suite: suite, aead: aead)
        plain = .allocate(byteCount: MediaHeader.length + packetizer.shardBytes, alignment: 64)
        sealed = .allocate(byteCount: MediaLimits.v2Overhead + packetizer.shardBytes, alignment: 64)
    }

    deinit {
        plain.deallocate()
        sealed.deallocate()
    }

    /// Sends one AU; `emit` gets each sealed datagram (valid during the call), in order.
    public func send(_ au: UnsafeRawBufferPointer, frame: UInt32, epoch: UInt8, userFlags: UInt32,
                     ptsMicros: UInt32, stream: MediaStream = .video,
                     emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        try packetizer.packetize(au, frame: frame, epoch: epoch, userFlags: userFlags, ptsMicros: ptsMicros,
                                 stream: stream) { header, shard in try seal(header, shard, emit) }
    }

    /// Starts a streamed AU (data-plane.md §2.3); see `Packetizer.beginStreamed`.
    public func beginStreamed(frame: UInt32, epoch: UInt8, userFlags: UInt32, ptsMicros: UInt32,
                              stream: MediaStream = .video, mode: Packetizer.StreamedMode) {
        packetizer.beginStreamed(frame: frame, epoch: epoch, userFlags: userFlags, ptsMicros: ptsMicros,
                                 stream: stream, mode: mode)
    }

    /// Sends the blocks of a streamed AU that `bytes` made ready (all the rest with `final`);
    /// `emit` gets each sealed datagram. See `Packetizer.appendStreamed`.
    public func appendStreamed(_ bytes: UnsafeRawBufferPointer, final: Bool,
                               emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        try packetizer.appendStreamed(bytes, final: final) { header, shard in try seal(header, shard, emit) }
    }

    private func seal(_ header: MediaHeader, _ shard: UnsafeRawBufferPointer,
                      _ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        var h = header
        h.seqLow = UInt32(truncatingIfNeeded: nextSeq)
        h.write(to: plain.baseAddress!)
        (plain.baseAddress! + MediaHeader.length).copyMemory(from: shard.baseAddress!, byteCount: packetizer.shardBytes)
        let n = try cipher.seal(seq: nextSeq, packet: UnsafeRawBufferPointer(plain), into: sealed)
        nextSeq += 1
        try emit(UnsafeRawBufferPointer(rebasing: sealed[0..<n]))
    }
}
