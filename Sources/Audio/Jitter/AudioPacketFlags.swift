/// Facts about a packet the caller knows from its tag and payload (data-plane.md §5).
public struct AudioPacketFlags: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Empty payload: DTX, "nothing to play". Played as silence, never as PLC (§5.1).
    public static let silent = AudioPacketFlags(rawValue: 1 << 0)
    /// The payload carries a redundant copy of packet `seq - 1` (RED, tag 0xD2, non-empty
    /// previous part, §5.2).
    public static let carriesPrevious = AudioPacketFlags(rawValue: 1 << 1)
}
