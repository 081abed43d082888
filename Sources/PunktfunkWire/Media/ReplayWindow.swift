/// Sliding anti-replay window over 64-bit packet numbers (data-plane.md §3.2).
///
/// Invariant: bit `seq % windowSize` of `bitmap` is set iff `seq` was accepted and
/// `highest − seq < windowSize`. Applied only after a successful AEAD open, so forged packets
/// never move it. Fixed 16 KiB of storage; no allocation after init.
public struct ReplayWindow: Sendable {
    /// 131072 packet numbers: the 120 ms loss window at ≈1.09 M packets/s (≈12 Gbps).
    public static let windowSize: UInt64 = 131_072
    private static let words = Int(windowSize / 64)

    private var bitmap: [UInt64]
    /// Highest accepted packet number; nil before the first packet.
    public private(set) var highest: UInt64?

    public init() {
        bitmap = [UInt64](repeating: 0, count: Self.words)
    }

    /// The reference for `expand` / `plausible`: highest accepted, 0 before any.
    public var reference: UInt64 { highest ?? 0 }

    @inline(__always)
    private func slot(_ seq: UInt64) -> (word: Int, bit: UInt64) {
        let i = seq % Self.windowSize
        return (Int(i / 64), 1 << (i % 64))
    }

    /// Whether `seq` would be accepted, without recording it.
    public func wouldAccept(_ seq: UInt64) -> Bool {
        guard let h = highest else { return true }
        if seq > h { return true }
        if h - seq >= Self.windowSize { return false }
        let s = slot(seq)
        return bitmap[s.word] & s.bit == 0
    }

    /// Records `seq`; returns false for a replay or a number older than the window.
    public mutating func accept(_ seq: UInt64) -> Bool {
        guard let h = highest else {
            highest = seq
            let s = slot(seq)
            bitmap[s.word] |= s.bit
            return true
        }
        if seq > h {
            if seq - h >= Self.windowSize {
                for i in bitmap.indices { bitmap[i] = 0 }
            } else {
                var n = h &+ 1
                // Clear slots between the old high-water mark and seq, a word at a time where possible.
                while n < seq {
                    let s = slot(n)
                    if n % 64 == 0 && seq - n >= 64 {
                        bitmap[s.word] = 0
                        n += 64
                    } else {
                        bitmap[s.word] &= ~s.bit
                        n += 1
                    }
                }
                let s = slot(seq)
                bitmap[s.word] &= ~s.bit
            }
            highest = seq
            let s = slot(seq)
            bitmap[s.word] |= s.bit
            return true
        }
        if h - seq >= Self.windowSize { return false }
        let s = slot(seq)
        if bitmap[s.word] & s.bit != 0 { return false }
        bitmap[s.word] |= s.bit
        return true
    }

    /// punktfunk/2's pre-open check: at most one key epoch ahead of the reference (so a forged
    /// number cannot force key derivations) and not older than the window.
    public func plausible(_ seq: UInt64) -> Bool {
        let r = reference
        let shift = MediaKeySchedule.keyIndexShift
        guard seq >> shift <= (r >> shift) + 1 else { return false }
        let behind = r > seq ? r - seq : 0
        return behind < Self.windowSize
    }

    /// The full packet number nearest `reference` whose low 32 bits are `low`
    /// (`expand_seq`, data-plane.md §8.4); falls back to `low` on underflow.
    public static func expand(reference r: UInt64, low: UInt32) -> UInt64 {
        let delta = Int64(Int32(bitPattern: low &- UInt32(truncatingIfNeeded: r)))
        if delta < 0 {
            let back = UInt64(-delta)
            return back > r ? UInt64(low) : r - back
        }
        return r &+ UInt64(delta)
    }
}
