import PunktfunkWire

/// The host's answer to a mid-stream mode request (Reconfigured, control-plane.md §5.1).
public enum ModeAnswer: Sendable, Equatable {
    /// Pictures at `mode` follow, starting with an IDR (after a StreamConfig of a new epoch when
    /// the host has the feature); pictures of the old size may still arrive before it.
    case accepted(Mode)
    /// The host keeps `active`; its pictures are scaled onto the new display mode.
    case refused(requested: Mode, active: Mode)
}

/// Mid-stream Reconfigure requests, on the pump thread: the newest wish wins, and at most one
/// goes out per `minimumIntervalNs` (the client's self-limit of §5.1; the host rejects switches
/// less than 500 ms apart). Pure: the pump asks `due(nowNs:)` each pass.
public struct ModeRequests: Sendable {
    public static let minimumIntervalNs: UInt64 = 1_000_000_000
    /// Wanted and not sent yet.
    public private(set) var waiting: Mode?
    /// Sent and not answered yet.
    public private(set) var asked: Mode?
    private var lastSentNs: UInt64?

    public init() {}

    /// Replaces any wish not sent yet.
    public mutating func want(_ mode: Mode) { waiting = mode }

    /// The Reconfigure to send now: the waiting wish, unless one went out less than
    /// `minimumIntervalNs` ago.
    public mutating func due(nowNs: UInt64) -> Mode? {
        guard let mode = waiting else { return nil }
        if let last = lastSentNs, nowNs &- last < Self.minimumIntervalNs { return nil }
        waiting = nil
        asked = mode
        lastSentNs = nowNs
        return mode
    }

    /// A Reconfigured arrived. - Returns: the answer to our request; nil when none was open (a
    /// host's unsolicited correction is still passed on as a control message).
    public mutating func answered(_ reply: Reconfigured) -> ModeAnswer? {
        guard let mode = asked else { return nil }
        asked = nil
        return reply.accepted ? .accepted(reply.mode) : .refused(requested: mode, active: reply.mode)
    }
}
