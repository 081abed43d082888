import Audio

/// One output period as the simulation records it.
public struct SimPeriod: Sendable {
    public enum Kind: Sendable, Equatable {
        /// A packet, decoded.
        case play
        /// A lost packet from its successor's RED copy.
        case recover
        /// A DTX packet (silence on purpose).
        case dtx
        /// PLC.
        case conceal
        /// Silence where audio was due: past the concealment bound, or an output stall.
        case mute
        /// Silence before playout started.
        case idle
    }

    public var kind: Kind
    /// The packet played, recovered or concealed (nil for waiting concealment and idle).
    public var seq: UInt32?
    public var stretchFrames = 0
    /// Fate bookkeeping (adaptive buffer only): the sequence numbers `[decidedFirst,
    /// decidedFirst + decidedCount)` were settled since the previous poll — `seq` (if any), then
    /// `covered` lost packets that earlier waiting concealment stood for, and `dropped` packets
    /// dropped for room.
    public var decidedFirst: UInt32 = 0
    public var decidedCount = 0
    public var covered = 0
    public var dropped = 0
    /// Playout delay minus target, ns (baseline: queued audio minus its 60 ms).
    public var levelErrorNs: Int64?
    /// The payload handed back did not belong to `seq` (adaptive buffer only).
    public var payloadMismatch = false
    public var fade = PlayoutFade.none

    public init(kind: Kind, seq: UInt32? = nil) {
        self.kind = kind
        self.seq = seq
    }
}
