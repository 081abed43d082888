import Audio

/// `AudioJitterBuffer` as a `PlayoutModel`; the payload is the packet's own sequence number, so
/// every handed-back payload can be checked.
public struct AdaptiveModel: PlayoutModel {
    public private(set) var buffer: AudioJitterBuffer<UInt32>
    private var lastNext: UInt32?
    private var seen = JitterStats()

    public init(_ configuration: JitterConfiguration = .init()) {
        buffer = AudioJitterBuffer(configuration)
    }

    public var name: String { "adaptive" }
    public var lateCount: Int { buffer.stats.latePackets }
    public var duplicateCount: Int { buffer.stats.duplicatePackets }
    public var overflowCount: Int { buffer.stats.overflowDrops }
    public var muteAfterPeriods: Int? {
        Int((buffer.configuration.maxConcealNs + buffer.frameNs - 1) / buffer.frameNs)
    }

    public mutating func handle(seq: UInt32, ptsNs: UInt64, flags: AudioPacketFlags, nowNs: Int64) -> PacketVerdict? {
        buffer.handlePacket(seq: seq, ptsNs: ptsNs, payload: seq, flags: flags, nowNs: UInt64(nowNs))
    }

    public mutating func poll(nowNs: Int64) -> SimPeriod {
        let out = buffer.pollPlayout(nowNs: UInt64(nowNs))
        let s = buffer.stats
        var p: SimPeriod
        switch out.step {
        case .play(let seq, _, let payload):
            p = SimPeriod(kind: .play, seq: seq)
            p.payloadMismatch = payload != seq
        case .recover(let seq, _, let payload):
            p = SimPeriod(kind: .recover, seq: seq)
            p.payloadMismatch = payload != seq &+ 1
        case .conceal(let seq):
            p = SimPeriod(kind: .conceal, seq: seq)
        case .silence(let seq):
            if s.silentPackets > seen.silentPackets {
                p = SimPeriod(kind: .dtx, seq: seq)
            } else if s.mutedNs > seen.mutedNs {
                p = SimPeriod(kind: .mute, seq: seq)
            } else {
                p = SimPeriod(kind: .idle)
            }
        }
        p.stretchFrames = out.stretchFrames
        p.fade = out.fade
        p.covered = out.coveredLost
        p.dropped = s.overflowDrops - seen.overflowDrops
        if buffer.isPlaying {
            let next = buffer.nextSeq
            let first = lastNext ?? (p.seq ?? next)
            p.decidedFirst = first
            p.decidedCount = Int(next &- first)
            lastNext = next
        }
        if p.kind == .play || p.kind == .recover || p.kind == .dtx {
            p.levelErrorNs = s.delayNs - s.targetNs
        }
        seen = s
        return p
    }
}
