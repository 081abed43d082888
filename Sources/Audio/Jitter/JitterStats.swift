/// Counters and levels of an `AudioJitterBuffer` (issue 13 item 6). Durations in ns of audio
/// (one packet = `frameNs`); counts since the buffer was made.
///
/// Accounting: every output period is one of `playedPackets`, `recoveredPackets`,
/// `concealedNs / frameNs` PLC frames, `mutedNs / frameNs` quiet frames or `idleNs / frameNs`
/// frames before playout started, and each PLC or quiet frame that stands for no lost packet is
/// inserted delay (`insertedNs`). Every lost packet (`lostPackets`) was concealed exactly once
/// — by PLC, or by a quiet frame once concealment ran past its bound.
public struct JitterStats: Sendable, Equatable {
    /// Audio held for playout: from the next packet to play to the newest one received, ns.
    public var queuedNs: Int64 = 0
    /// Playout delay of the last packet played, over the fastest recent packets: the level the
    /// buffer controls, ns.
    public var delayNs: Int64 = 0
    /// The delay the buffer steered to at the last poll, from measured arrival jitter, ns.
    public var targetNs: Int64 = 0
    /// Measured arrival jitter: the held peak of a packet's delay over the fastest, ns.
    public var jitterPeakNs: Int64 = 0

    /// Packets decoded and played.
    public var playedPackets: Int = 0
    /// Lost packets replaced by the RED copy in their successor.
    public var recoveredPackets: Int = 0
    /// DTX packets played as silence (a subset of `playedPackets`).
    public var silentPackets: Int = 0
    /// Packets that were never played: their frame was concealed (PLC or, past the bound, quiet).
    public var lostPackets: Int = 0
    /// PLC output, ns.
    public var concealedNs: Int64 = 0
    /// Quiet output after concealment ran past its bound (an outage), ns.
    public var mutedNs: Int64 = 0
    /// PLC or quiet output that stood for no lost packet (waiting for a late packet), ns.
    public var insertedNs: Int64 = 0
    /// Silence before playout started, or restarted after a resync, ns.
    public var idleNs: Int64 = 0
    /// Times the output found nothing to play and had to wait (underrun episodes, all concealed).
    public var underruns: Int = 0

    /// Packets that arrived after their playout time.
    public var latePackets: Int = 0
    /// Packets received twice.
    public var duplicatePackets: Int = 0
    /// Packets dropped unplayed to bring a far-too-deep buffer back to target, or pushed out of
    /// the window by a packet more than `capacity` ahead.
    public var overflowDrops: Int = 0
    /// Timing discontinuities: a sequence-number jump beyond `resyncDistance` (the stream
    /// restarted) or a packet later than `maxTargetNs + overflowNs` (a pause); playout then
    /// prefills again.
    public var resyncs: Int = 0

    /// Frames removed / repeated by `stretchFrames` (drift and target control).
    public var stretchDroppedFrames: Int = 0
    public var stretchInsertedFrames: Int = 0

    public init() {}
}
