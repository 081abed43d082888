import Audio

/// The baseline the benchmark measures against: a fixed 60 ms buffer as moonlight-embedded
/// plays audio (couch-io.md §2: a 3 × 20 ms ALSA buffer, no drift handling, PLC from
/// moonlight-common-c as decode(NULL) when a sequence gap shows).
///
/// - Playout starts once 60 ms (12 packets) are queued, and starts again that way after every
///   underrun (an xrun: the period is silence, `.mute`).
/// - A packet whose sequence number jumps ahead queues one PLC period per missing packet at
///   once (up to the room left); an older one is dropped (late or duplicate).
/// - No adaptation and no drift control; a packet arriving when 65 ms are queued (the 60 ms
///   buffer plus the packet being written) is dropped (`overflowCount`).
public struct FixedDelayBaseline: PlayoutModel {
    public let prefillPackets = 12
    public let capacityPackets = 13
    /// Queued periods: a sequence number, or nil for PLC.
    private var queue: [UInt32?]
    private var head = 0
    private var count = 0
    private var expected: UInt32?
    private var playing = false
    private var everPlayed = false
    public private(set) var lateCount = 0
    public private(set) var overflowCount = 0
    public private(set) var underruns = 0

    public init() { queue = [UInt32?](repeating: nil, count: 16) }

    public var name: String { "fixed 60 ms" }
    public var duplicateCount: Int { 0 }  // counted with the late ones
    public var muteAfterPeriods: Int? { nil }

    public mutating func handle(seq: UInt32, ptsNs: UInt64, flags: AudioPacketFlags, nowNs: Int64) -> PacketVerdict? {
        if let e = expected {
            let gap = Int32(bitPattern: seq &- e)
            if gap < 0 {
                lateCount += 1
                return nil
            }
            for _ in 0..<min(Int(gap), capacityPackets) { push(nil) }
        }
        push(seq)
        expected = seq &+ 1
        return nil
    }

    public mutating func poll(nowNs: Int64) -> SimPeriod {
        if !playing {
            guard count >= prefillPackets else { return SimPeriod(kind: everPlayed ? .mute : .idle) }
            playing = true
            everPlayed = true
        }
        guard count > 0 else {
            playing = false
            underruns += 1
            return SimPeriod(kind: .mute)
        }
        let level = Int64(count) * 5_000_000 - 60_000_000
        let entry = queue[head]
        head = (head + 1) % queue.count
        count -= 1
        var p = entry.map { SimPeriod(kind: .play, seq: $0) } ?? SimPeriod(kind: .conceal)
        p.levelErrorNs = level
        return p
    }

    private mutating func push(_ entry: UInt32?) {
        guard count < capacityPackets else {
            overflowCount += 1
            return
        }
        queue[(head + count) % queue.count] = entry
        count += 1
    }
}
