/// Rebuilds access units from authenticated v2 media shards (data-plane.md §1.9–§1.10, §2.7, §8.3).
///
/// One instance per stream (video, probe): each has its own frame-index space and loss window.
///
/// Layout: each in-flight AU owns a slot whose data buffer holds data shard `n` of the AU at byte
/// `n·P` — received data shards are copied straight there and FEC writes rebuilt shards in place,
/// so a complete AU is one contiguous buffer (truncated to its real length on delivery). Parity
/// shards go to the slot's parity arena. Slots and their buffers are reused, so the steady state
/// allocates nothing per packet.
///
/// Invariants:
/// - A block is complete when it holds ≥ k of its k + m shards; missing data is then rebuilt.
/// - An AU is delivered exactly once, when its last block is known (`flags & 0x8000`), every
///   block `0…last` is complete and the blocks tile `[0, total)` without gaps or overlaps.
/// - An AU that is more than `hardLossWindow` frames behind the newest, or whose pts is more than
///   `lossWindowNs` behind the newest pts, is declared lost. Shards of a lost AU are refused as
///   late; shards still arriving for a delivered AU (its unneeded parity) are counted as redundant.
public final class Reassembler {
    public static let hardLossWindow: UInt32 = 64
    public static let lossWindowNs: Int64 = 120_000_000
    /// In-flight AUs tracked at once; beyond it the oldest is declared lost.
    public static let maxSlots = 64

    public let stream: MediaStream
    public var limits: MediaLimits
    public private(set) var counters = MediaCounters()

    /// Called with every complete AU; the buffer is valid only during the call.
    public var onAccessUnit: (AccessUnit) -> Void = { _ in }
    /// Called with every frame declared lost (for loss reports and keyframe/RFI asks).
    public var onFrameLost: (UInt32) -> Void = { _ in }
    /// Called once per AU when a block's last shard (index k + m − 1, parity is sent last)
    /// arrives and the block still holds fewer than k shards: the AU cannot be rebuilt from what
    /// was sent, so the client may ask at once instead of waiting for the loss window
    /// (data-plane.md §4.3 `tail_short`). `missing` is the block's shards missing beyond parity;
    /// for an AU of one block, `absent` lists its data shards not received (index within the AU,
    /// ≤ 16 — what a NACK names), else it is empty.
    public var onShortTail: (_ frame: UInt32, _ missing: Int, _ absent: [UInt16]) -> Void = { _, _, _ in }
    /// Called once per frame with the first of its shards to arrive: its pts (ns, the host's
    /// media clock) and the arrival (as passed to `handle`). Whether or not the frame completes
    /// later — a queue that drops enough completes none — the rate loop reads the path's delay
    /// from it.
    public var onFirstShard: (_ frame: UInt32, _ ptsNs: Int64, _ arrivalNs: UInt64) -> Void = { _, _, _ in }

    private let fec: LeopardFEC
    private var slots: [AUSlot] = []
    private var newestFrame: UInt32?
    private var newestPts: Int64 = .min
    /// Frames recently delivered or declared lost: `finished[f % 256].frame == f` marks f done.
    private var finished = [(frame: UInt32, delivered: Bool)](repeating: (.max, false), count: 256)
    private var bytesInFlight = 0
    /// The arrival time of the shard being handled.
    private var arrivalNs: UInt64 = 0

    public init(stream: MediaStream, limits: MediaLimits, fec: LeopardFEC = LeopardFEC()) {
        self.stream = stream
        self.limits = limits
        self.fec = fec
    }

    deinit {
        for s in slots { s.release() }
    }

    /// True when `a` is newer than `b` in the forward half of the u32 space (§1.6).
    @inline(__always)
    static func isNewer(_ a: UInt32, than b: UInt32) -> Bool {
        let d = a &- b
        return d != 0 && d < 0x8000_0000
    }

    /// Takes one decrypted shard. `shard` is the P bytes after the header; `ptsNs` is the
    /// header's pts already unwrapped onto the session clock; `arrivalNs` is when its datagram
    /// arrived (any monotone clock; 0 = unknown), handed back as the AU's first/last arrival.
    public func handle(header h: MediaHeader, shard: UnsafeRawBufferPointer, ptsNs: Int64,
                       arrivalNs: UInt64 = 0) throws(MediaError) {
        self.arrivalNs = arrivalNs
        do {
            try accept(h, shard, ptsNs)
        } catch {
            counters.count(error)
            throw error
        }
    }

    private func accept(_ h: MediaHeader, _ shard: UnsafeRawBufferPointer, _ ptsNs: Int64) throws(MediaError) {
        let p = shard.count
        guard p >= limits.minShardBytes, p <= MediaLimits.maxShardBytes, p % 2 == 0 else {
            throw .shardSize(expected: limits.shardBytes, found: p)
        }
        let k = Int(h.k), m = Int(h.m)
        guard k >= 1, k <= limits.maxDataPerBlock, k + m <= limits.maxShardsPerBlock else {
            throw .badGeometry("k \(k) m \(m) outside K \(limits.maxDataPerBlock)")
        }
        guard Int(h.shard) < k + m else { throw .badGeometry("shard \(h.shard) ≥ k+m \(k + m)") }
        let base = Int(h.base)
        let blockEnd = (base + k) * p
        if h.isLastBlock {
            let total = base + k
            let pad = Int(h.pad)
            guard pad <= p, pad < p || total == 1 else { throw .badGeometry("pad \(pad) with P \(p)") }
            guard total * p - pad <= limits.maxFrameBytes else { throw .overBudget }
        } else {
            guard h.pad == 0 else { throw .badGeometry("pad on a non-final block") }
            guard blockEnd <= limits.maxFrameBytes else { throw .overBudget }
        }
        switch finishedState(h.frame) {
        case .delivered:
            // Parity (or a duplicate) for an AU already rebuilt: expected, not an error.
            counters.redundant += 1
            return
        case .lost: throw .lateShard
        case nil: break
        }

        let slot = try slotFor(h, shardBytes: p, ptsNs: ptsNs)
        guard slot.shardBytes == p else { throw .shardSize(expected: slot.shardBytes, found: p) }
        let bi = try slot.block(for: h, reserve: { (bytes) throws(MediaError) in try reserve(bytes) })
        var block = slot.blocks[bi]
        guard Int(block.base) == base, Int(block.k) == k, Int(block.m) == m else {
            throw .badGeometry("block \(h.block) geometry changed mid-AU")
        }
        let idx = Int(h.shard)
        if slot.present[block.presentOffset + idx] { throw .duplicateShard }
        if block.complete {
            // The block was already rebuilt from other shards.
            counters.redundant += 1
            return
        }
        slot.present[block.presentOffset + idx] = true
        slot.packets += 1
        if slot.firstArrivalNs == 0 {
            slot.firstArrivalNs = arrivalNs
            onFirstShard(h.frame, slot.ptsNs, arrivalNs)
        }
        slot.lastArrivalNs = max(slot.lastArrivalNs, arrivalNs)
        if idx < k {
            (slot.data + (base + idx) * p).copyMemory(from: shard.baseAddress!, byteCount: p)
            block.dataCount += 1
        } else {
            (slot.parity + block.parityOffset + (idx - k) * p).copyMemory(from: shard.baseAddress!, byteCount: p)
            block.parityCount += 1
        }
        if !block.complete && block.dataCount + block.parityCount >= k {
            if block.dataCount < k {
                let missing = k - block.dataCount
                let ok: Bool = slot.present.withUnsafeBufferPointer { flags in
                    do {
                        try fec.reconstruct(k: k, m: m, shardBytes: p,
                                            data: slot.data + base * p, dataStride: p,
                                            parity: UnsafeRawPointer(slot.parity + block.parityOffset), parityStride: p,
                                            present: flags.baseAddress! + block.presentOffset)
                        return true
                    } catch {
                        return false
                    }
                }
                guard ok else {
                    slot.blocks[bi] = block
                    throw .badGeometry("FEC refused block geometry")
                }
                slot.recovered += missing
                counters.shardsRecovered += UInt64(missing)
                counters.blocksRecovered += 1
            }
            block.complete = true
            slot.completeBlocks += 1
        }
        slot.blocks[bi] = block
        if slot.isComplete {
            deliver(slot)
        } else if !block.complete, idx + 1 == k + m, !slot.shortTailReported {
            slot.shortTailReported = true
            var absent: [UInt16] = []
            if block.isLast, base == 0, k - block.dataCount <= FeedbackDatagram.Nack.maxShards {
                for i in 0..<k where !slot.present[block.presentOffset + i] { absent.append(UInt16(i)) }
            }
            onShortTail(slot.frame, k - block.dataCount - block.parityCount, absent)
        }
    }

    private enum Finished { case delivered, lost }

    private func finishedState(_ frame: UInt32) -> Finished? {
        let entry = finished[Int(frame % UInt32(finished.count))]
        if entry.frame == frame { return entry.delivered ? .delivered : .lost }
        if let newest = newestFrame, Self.isNewer(newest, than: frame), newest &- frame > Self.hardLossWindow {
            return .lost
        }
        return nil
    }

    private func markFinished(_ frame: UInt32, delivered: Bool) {
        finished[Int(frame % UInt32(finished.count))] = (frame, delivered)
    }

    private func reserve(_ bytes: Int) throws(MediaError) {
        guard bytesInFlight + bytes <= limits.inFlightBudgetBytes else { throw .overBudget }
        bytesInFlight += bytes
    }

    private func slotFor(_ h: MediaHeader, shardBytes: Int, ptsNs: Int64) throws(MediaError) -> AUSlot {
        for s in slots where s.inUse && s.frame == h.frame { return s }
        // A new AU: advance the window and age out what fell behind it.
        if newestFrame == nil || Self.isNewer(h.frame, than: newestFrame!) { newestFrame = h.frame }
        if ptsNs > newestPts { newestPts = ptsNs }
        ageOut()
        var free = slots.first { !$0.inUse }
        if free == nil {
            if slots.count < Self.maxSlots {
                free = AUSlot()
                slots.append(free!)
            } else {
                // Evict the oldest in-flight AU: it can no longer be waited for.
                let oldest = slots.min { Self.isNewer($1.frame, than: $0.frame) }!
                declareLost(oldest)
                free = oldest
            }
        }
        let s = free!
        s.begin(frame: h.frame, epoch: h.epoch, userFlags: h.userFlags, ptsNs: ptsNs, shardBytes: shardBytes)
        return s
    }

    private func ageOut() {
        guard let newest = newestFrame else { return }
        for s in slots where s.inUse {
            let behind = Self.isNewer(newest, than: s.frame) ? newest &- s.frame : 0
            if behind > Self.hardLossWindow || newestPts - s.ptsNs > Self.lossWindowNs {
                declareLost(s)
            }
        }
    }

    /// Counts the shards of `s` that never arrived by their place in the AU (head / mid / tail);
    /// `parityToo`: the AU is lost, so its missing parity counts as well.
    private func countLostPositions(_ s: AUSlot, parityToo: Bool) {
        let total = s.totalData
        for b in s.blocks where !(b.complete && b.dataCount == Int(b.k)) || parityToo {
            let k = Int(b.k), m = Int(b.m)
            for i in 0..<(parityToo ? k + m : k) where !s.present[b.presentOffset + i] {
                let d = Int(b.base) + i
                if i >= k || total.map({ d >= $0 - 12 }) == true { counters.lostTail += 1 }
                else if d < 12 { counters.lostHead += 1 }
                else { counters.lostMid += 1 }
            }
        }
    }

    private func declareLost(_ s: AUSlot) {
        counters.framesLost += 1
        countLostPositions(s, parityToo: true)
        markFinished(s.frame, delivered: false)
        finish(s)
        onFrameLost(s.frame)
    }

    private func finish(_ s: AUSlot) {
        bytesInFlight -= s.reservedBytes
        s.reset()
    }

    private func deliver(_ s: AUSlot) {
        // Blocks must tile [0, total): sorted by index, each base equals the data before it.
        s.blocks.sort { $0.index < $1.index }
        var next = 0
        for b in s.blocks {
            guard Int(b.base) == next else {
                counters.badGeometry += 1
                declareLost(s)
                return
            }
            next += Int(b.k)
        }
        let length = s.totalData! * s.shardBytes - s.pad
        if s.recovered > 0 { countLostPositions(s, parityToo: false) }
        markFinished(s.frame, delivered: true)
        if stream == .probe { counters.probeFramesDelivered += 1 } else { counters.framesDelivered += 1 }
        var au = AccessUnit(data: UnsafeRawBufferPointer(start: s.data, count: length), stream: stream,
                            frame: s.frame, epoch: s.epoch, userFlags: s.userFlags, ptsNs: s.ptsNs,
                            recoveredShards: s.recovered, packets: s.packets)
        au.firstArrivalNs = s.firstArrivalNs
        au.lastArrivalNs = s.lastArrivalNs
        onAccessUnit(au)
        finish(s)
    }

    /// Declares every in-flight AU lost (stream reset, epoch change, session end).
    public func flush() {
        for s in slots where s.inUse { declareLost(s) }
    }

    /// AUs currently being assembled.
    public var inFlight: Int { slots.reduce(0) { $0 + ($1.inUse ? 1 : 0) } }
}

/// One FEC block of an in-flight AU.
struct BlockState {
    var index: UInt16
    var base: UInt32
    var k: UInt16
    var m: UInt16
    var isLast: Bool
    /// Offset of this block's k + m presence flags in `AUSlot.present`.
    var presentOffset: Int
    /// Byte offset of this block's m parity shards in `AUSlot.parity`.
    var parityOffset: Int
    var dataCount = 0
    var parityCount = 0
    var complete = false
}

/// Reusable storage for one in-flight AU. Buffers only grow; `reset` keeps their capacity.
final class AUSlot {
    /// Blocks one AU may have: a 64 MiB AU streamed in the host's smallest blocks (16 shards
    /// of 1408 B) needs ~3000.
    static let maxBlocks = 4096

    var inUse = false
    var frame: UInt32 = 0
    var epoch: UInt8 = 0
    var userFlags: UInt32 = 0
    var ptsNs: Int64 = 0
    var shardBytes = 0
    var packets = 0
    var recovered = 0
    /// Arrival of the AU's first accepted shard and of its newest (0 = unknown).
    var firstArrivalNs: UInt64 = 0
    var lastArrivalNs: UInt64 = 0
    /// `onShortTail` was called for this AU.
    var shortTailReported = false
    var blocks: [BlockState] = []
    var present: [Bool] = []
    var completeBlocks = 0
    /// Set by the last block: `base + k` data shards in the AU and the final shard's padding.
    var totalData: Int?
    var pad = 0
    var lastBlockIndex: Int?

    private(set) var data: UnsafeMutableRawPointer
    private(set) var dataCapacity = 0
    private(set) var parity: UnsafeMutableRawPointer
    private(set) var parityCapacity = 0
    private var parityUsed = 0
    /// Highest data byte any block of this AU covers.
    private var dataExtent = 0
    /// Bytes charged against the reassembler's in-flight budget for this AU.
    private(set) var reservedBytes = 0

    init() {
        data = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 64)
        parity = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 64)
        blocks.reserveCapacity(4)
    }

    func release() {
        data.deallocate()
        parity.deallocate()
    }

    func begin(frame: UInt32, epoch: UInt8, userFlags: UInt32, ptsNs: Int64, shardBytes: Int) {
        inUse = true
        self.frame = frame
        self.epoch = epoch
        self.userFlags = userFlags
        self.ptsNs = ptsNs
        self.shardBytes = shardBytes
    }

    func reset() {
        inUse = false
        packets = 0
        recovered = 0
        firstArrivalNs = 0
        lastArrivalNs = 0
        shortTailReported = false
        blocks.removeAll(keepingCapacity: true)
        present.removeAll(keepingCapacity: true)
        completeBlocks = 0
        totalData = nil
        pad = 0
        lastBlockIndex = nil
        parityUsed = 0
        dataExtent = 0
        reservedBytes = 0
    }

    var isComplete: Bool {
        guard let last = lastBlockIndex else { return false }
        return completeBlocks == last + 1 && blocks.count == last + 1
    }

    /// The index in `blocks` of header `h`'s block, creating it (and growing the buffers,
    /// charging `reserve`) on its first shard.
    func block(for h: MediaHeader, reserve: (Int) throws(MediaError) -> Void) throws(MediaError) -> Int {
        if let i = blocks.firstIndex(where: { $0.index == h.block }) { return i }
        let p = shardBytes, k = Int(h.k), m = Int(h.m)
        if h.isLastBlock {
            guard lastBlockIndex == nil else { throw .badGeometry("two last blocks") }
            guard blocks.allSatisfy({ Int($0.index) < Int(h.block) && Int($0.base) + Int($0.k) <= Int(h.base) }) else {
                throw .badGeometry("last block \(h.block) not after the others")
            }
        } else if let last = lastBlockIndex {
            guard Int(h.block) < last, Int(h.base) + k <= totalData! else {
                throw .badGeometry("block \(h.block) beyond the last block")
            }
        }
        guard blocks.count < Self.maxBlocks else { throw .badGeometry("more than \(Self.maxBlocks) blocks") }
        let base = Int(h.base)
        for b in blocks where base < Int(b.base) + Int(b.k) && Int(b.base) < base + k {
            throw .badGeometry("block \(h.block) overlaps block \(b.index)")
        }
        let dataEnd = (base + k) * p
        let newParity = parityUsed + m * p
        // Charge what this AU newly occupies (not the reused capacity) against the budget:
        // data, parity and one presence flag per shard.
        let extra = max(0, dataEnd - dataExtent) + m * p + k + m
        try reserve(extra)
        reservedBytes += extra
        if dataEnd > dataCapacity { grow(&data, &dataCapacity, to: dataEnd, keep: dataExtent) }
        dataExtent = max(dataExtent, dataEnd)
        if newParity > parityCapacity { grow(&parity, &parityCapacity, to: newParity, keep: parityUsed) }
        let b = BlockState(index: h.block, base: h.base, k: h.k, m: h.m, isLast: h.isLastBlock,
                           presentOffset: present.count, parityOffset: parityUsed)
        present.append(contentsOf: repeatElement(false, count: k + m))
        parityUsed = newParity
        if h.isLastBlock {
            lastBlockIndex = Int(h.block)
            totalData = Int(h.base) + k
            pad = Int(h.pad)
        }
        blocks.append(b)
        return blocks.count - 1
    }

    private func grow(_ p: inout UnsafeMutableRawPointer, _ cap: inout Int, to need: Int, keep: Int) {
        let newCap = max(need, cap * 2)
        let n = UnsafeMutableRawPointer.allocate(byteCount: newCap, alignment: 64)
        if keep > 0 { n.copyMemory(from: p, byteCount: keep) }
        p.deallocate()
        p = n
        cap = newCap
    }
}
