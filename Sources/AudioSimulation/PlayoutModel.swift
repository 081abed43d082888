import Audio

/// A playout policy the simulation drives: packets in, one output period per poll.
public protocol PlayoutModel {
    var name: String { get }
    /// Packets arrive (any order, duplicates), at `nowNs` of the client's clock.
    /// - Returns: the verdict, for policies that give one.
    mutating func handle(seq: UInt32, ptsNs: UInt64, flags: AudioPacketFlags, nowNs: Int64) -> PacketVerdict?
    /// The DAC needs its next period, which starts playing at `nowNs`.
    mutating func poll(nowNs: Int64) -> SimPeriod
    /// Packets dropped on arrival as late, as duplicates, and for lack of room.
    var lateCount: Int { get }
    var duplicateCount: Int { get }
    var overflowCount: Int { get }
    /// Consecutive concealment periods after which the policy goes quiet; nil = never quiet.
    var muteAfterPeriods: Int? { get }
}
