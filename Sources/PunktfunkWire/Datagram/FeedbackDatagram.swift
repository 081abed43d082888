/// The client's receive state, punktfunk/2 kind 0x03 (data-plane.md §8.7, control-plane.md
/// §5.2): tagged fields replacing v1 LossReport / DeliveryReport / RfiRequest /
/// RequestKeyframe. Sent at each report-window close (~750 ms), every frame interval while an
/// ask is open, and after each cleanly decoded frame; every datagram repeats the last closed
/// window. The host acts on a window or ask number once (`isNewer(_:than:max:)`).
///
/// Encoding follows the "when written" column: window fields only with a window (9–12 only
/// when ≠ 0), levels 8/16 only when ≠ 0, ask fields only with an ask, ACK when set. Decoding
/// skips unknown tags, ignores fields whose anchor (1 or 4) is absent or 0, and rejects a
/// repeated single-valued tag, more than 16 NACK shards, or NACK shards without their frame.
public struct FeedbackDatagram: Hashable, Sendable {
    /// A closed report window (tags 1, 2, 3, 9–12).
    public struct Window: Hashable, Sendable {
        /// Window number from 1 (tag 1). 0 means "no window" and is not written.
        public var number: UInt32
        /// Shards repaired by parity over the window, ppm (tag 2).
        public var lossPPM: UInt32
        /// Cumulative media packets this session (tag 3).
        public var packetsReceived: UInt64
        /// Lost shards by position: first 12 data / middle / last 12 + parity (tags 9/10/11).
        public var head: UInt32
        public var mid: UInt32
        public var tail: UInt32
        /// Client socket / demux drops in the window (tag 12).
        public var socketDrops: UInt32

        public init(number: UInt32, lossPPM: UInt32, packetsReceived: UInt64, head: UInt32 = 0,
                    mid: UInt32 = 0, tail: UInt32 = 0, socketDrops: UInt32 = 0) {
            self.number = number
            self.lossPPM = lossPPM
            self.packetsReceived = packetsReceived
            self.head = head
            self.mid = mid
            self.tail = tail
            self.socketDrops = socketDrops
        }
    }

    /// Shards of one frame asked for again (tags 17 + repeated 13).
    public struct Nack: Hashable, Sendable {
        public static let maxShards = 16
        /// Frame index (tag 17).
        public var frame: UInt32
        /// 1…16 shard indices within the AU, data first then parity (tag 13 each).
        /// Encoding writes at most `maxShards`.
        public var shards: [UInt16]
        public init(frame: UInt32, shards: [UInt16]) { self.frame = frame; self.shards = shards }
    }

    /// Frames to invalidate, `first` through `last` in wrapping frame order (an RFI range may
    /// cross the u32 wrap, so `first > last` is legal).
    public struct Invalidation: Hashable, Sendable {
        public var first: UInt32
        public var last: UInt32
        public init(first: UInt32, last: UInt32) { self.first = first; self.last = last }
    }

    /// An open recovery ask (tags 4–7, 13, 17).
    public struct Ask: Hashable, Sendable {
        /// Ask number from 1, wrapping, never 0 (tag 4). 0 means "no ask" and is not written.
        public var number: UInt16
        /// Reference-frame invalidation (tags 5/6; written together, read only together).
        public var invalidate: Invalidation?
        /// Ask for a keyframe whatever else the ask says (tag 7).
        public var keyframe: Bool
        public var nack: Nack?

        public init(number: UInt16, invalidate: Invalidation? = nil, keyframe: Bool = false, nack: Nack? = nil) {
            self.number = number
            self.invalidate = invalidate
            self.keyframe = keyframe
            self.nack = nack
        }
    }

    /// The newest completed frame and the 16 before it (tags 14/15).
    public struct Ack: Hashable, Sendable {
        public var lastFrame: UInt32
        /// Bit i = frame `lastFrame − 1 − i` completed. 0 when tag 15 is absent.
        public var mask: UInt16
        public init(lastFrame: UInt32, mask: UInt16) { self.lastFrame = lastFrame; self.mask = mask }
    }

    public var window: Window?
    /// The rate the client holds the link to carry, kbps (tag 8); 0 = not measured, not written.
    public var linkKbps: UInt32
    /// Desired frame shaping (tag 16); 0 = host default, not written.
    public var shape: UInt8
    public var ask: Ask?
    public var ack: Ack?

    public init(window: Window? = nil, linkKbps: UInt32 = 0, shape: UInt8 = 0, ask: Ask? = nil, ack: Ack? = nil) {
        self.window = window
        self.linkKbps = linkKbps
        self.shape = shape
        self.ask = ask
        self.ack = ack
    }

    /// The tagged-field body (without the kind byte), in the reference encoder's field order.
    public var body: [UInt8] {
        var f = FieldWriter()
        if let w = window, w.number != 0 {
            f.uint(1, w.number)
            f.uint(2, w.lossPPM)
            f.uint(3, w.packetsReceived)
            for (tag, v) in [(UInt64(9), w.head), (10, w.mid), (11, w.tail), (12, w.socketDrops)] where v != 0 {
                f.uint(tag, v)
            }
        }
        if linkKbps != 0 { f.uint(8, linkKbps) }
        if shape != 0 { f.uint(16, shape) }
        if let a = ask, a.number != 0 {
            f.uint(4, a.number)
            if let r = a.invalidate {
                f.uint(5, r.first)
                f.uint(6, r.last)
            }
            if a.keyframe { f.bool(7, true) }
            if let n = a.nack, !n.shards.isEmpty {
                f.uint(17, n.frame)
                for s in n.shards.prefix(Nack.maxShards) { f.uint(13, s) }
            }
        }
        if let ack {
            f.uint(14, ack.lastFrame)
            f.uint(15, ack.mask)
        }
        return f.bytes
    }

    public init(fields f: TaggedFields) throws(WireError) {
        self.init(linkKbps: try f.uint(8, default: 0), shape: try f.uint(16, default: 0))
        let number: UInt32 = try f.uint(1, default: 0)
        let window = Window(number: number, lossPPM: try f.uint(2, default: 0),
                            packetsReceived: try f.uint(3, default: 0), head: try f.uint(9, default: 0),
                            mid: try f.uint(10, default: 0), tail: try f.uint(11, default: 0),
                            socketDrops: try f.uint(12, default: 0))
        self.window = number != 0 ? window : nil

        let shardValues = f.values(13)
        guard shardValues.count <= Nack.maxShards else {
            throw .malformed("NACK names \(shardValues.count) shards, at most \(Nack.maxShards)")
        }
        var shards: [UInt16] = []
        for v in shardValues { shards.append(try TaggedFields.decodeUInt(v, tag: 13)) }
        let nackFrame: UInt32? = try f.uint(17)
        if !shards.isEmpty && nackFrame == nil { throw .missingField(tag: 17) }
        let first: UInt32? = try f.uint(5), last: UInt32? = try f.uint(6)
        let invalidate = first.flatMap { first in last.map { Invalidation(first: first, last: $0) } }
        let askNumber: UInt16 = try f.uint(4, default: 0)
        if askNumber != 0 {
            ask = Ask(number: askNumber, invalidate: invalidate, keyframe: try f.bool(7) ?? false,
                      nack: nackFrame.flatMap { shards.isEmpty ? nil : Nack(frame: $0, shards: shards) })
        }
        if let lastFrame: UInt32 = try f.uint(14) {
            ack = Ack(lastFrame: lastFrame, mask: try f.uint(15, default: 0))
        }
    }

    public init(body: [UInt8]) throws(WireError) {
        try self.init(fields: try TaggedFields(body))
    }

    /// Largest window number (u32).
    public static let windowMax = UInt64(UInt32.max)
    /// Largest ask number (u16).
    public static let askMax = UInt64(UInt16.max)

    /// The host's de-duplication rule: `n` is newer than `last` iff `n ≠ 0` and
    /// `0 < (n − last) mod (max + 1) ≤ max / 2` (data-plane.md §8.7). `max` is `windowMax` for
    /// windows and `askMax` for asks; `n` and `last` are taken mod `max + 1`.
    public static func isNewer(_ n: UInt64, than last: UInt64, max: UInt64) -> Bool {
        guard n != 0 else { return false }
        let ahead: UInt64
        if max == .max {
            ahead = n &- last
        } else {
            let m = max + 1, a = n % m, b = last % m
            ahead = a >= b ? a - b : m - (b - a)
        }
        return ahead > 0 && ahead <= max / 2
    }
}
