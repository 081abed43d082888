/// Why a media datagram or shard was not used. Every case is counted in `MediaCounters`;
/// none ever reaches the decoder as a corrupt or partial AU.
public enum MediaError: Error, Equatable, Sendable {
    /// Shorter than header + AEAD tag (46 bytes), or than a header.
    case tooShort(Int)
    /// Longer than `MediaLimits.maxDatagramBytes`.
    case tooLong(Int)
    /// Tag byte with reserved bits set or a stream other than video/probe (§8.3).
    case badTag(UInt8)
    /// Packet number more than one key epoch ahead or a replay window behind (§3.2 `plausible`).
    case implausibleSequence(UInt64)
    /// AEAD open failed: forged, corrupted or sealed under another key.
    case authenticationFailed
    /// Packet number already seen or older than the replay window (§3.2).
    case replayed(UInt64)
    /// Epoch 1…128 behind the newest seen (§4.4).
    case staleEpoch(UInt8)
    /// Header geometry the firewall refuses (§1.9 / §8.3): k = 0, shard ≥ k + m, pad too large, …
    case badGeometry(String)
    /// Shard payload size differs from the AU's other packets or the session's bounds.
    case shardSize(expected: Int, found: Int)
    /// This shard index of this block already arrived.
    case duplicateShard
    /// A shard of an AU already delivered or declared lost.
    case lateShard
    /// The AU would exceed `MediaLimits.maxFrameBytes` or the in-flight buffer budget.
    case overBudget
}

/// Counters kept by the receive path; monotonically increasing over a session.
public struct MediaCounters: Equatable, Sendable {
    public var packetsReceived: UInt64 = 0
    public var bytesReceived: UInt64 = 0
    public var tooShort: UInt64 = 0
    public var tooLong: UInt64 = 0
    public var badTag: UInt64 = 0
    public var implausible: UInt64 = 0
    public var authFailed: UInt64 = 0
    public var replayed: UInt64 = 0
    public var staleEpoch: UInt64 = 0
    public var badGeometry: UInt64 = 0
    public var shardSize: UInt64 = 0
    public var duplicates: UInt64 = 0
    public var late: UInt64 = 0
    public var overBudget: UInt64 = 0
    /// Shards that arrived after their AU was already rebuilt (unneeded parity); not a drop.
    public var redundant: UInt64 = 0
    /// Data shards rebuilt from parity.
    public var shardsRecovered: UInt64 = 0
    /// Blocks that needed FEC recovery.
    public var blocksRecovered: UInt64 = 0
    public var framesDelivered: UInt64 = 0
    /// AUs declared lost (aged out incomplete).
    public var framesLost: UInt64 = 0
    public var probeFramesDelivered: UInt64 = 0
    /// Shards lost on the path by their place in the AU (Feedback tags 9/10/11, data-plane.md
    /// §8.7): the first 12 data shards / the middle / the last 12 data shards and parity. Counted
    /// when an AU finishes: its data shards that had to be rebuilt, and for an AU declared lost
    /// every shard of its seen blocks that never came.
    public var lostHead: UInt64 = 0
    public var lostMid: UInt64 = 0
    public var lostTail: UInt64 = 0

    public init() {}

    /// Packets dropped for any reason before reaching a block.
    public var packetsDropped: UInt64 {
        tooShort + tooLong + badTag + implausible + authFailed + replayed + staleEpoch + badGeometry
            + shardSize + duplicates + late + overBudget
    }

    mutating func count(_ e: MediaError) {
        switch e {
        case .tooShort: tooShort += 1
        case .tooLong: tooLong += 1
        case .badTag: badTag += 1
        case .implausibleSequence: implausible += 1
        case .authenticationFailed: authFailed += 1
        case .replayed: replayed += 1
        case .staleEpoch: staleEpoch += 1
        case .badGeometry: badGeometry += 1
        case .shardSize: shardSize += 1
        case .duplicateShard: duplicates += 1
        case .lateShard: late += 1
        case .overBudget: overBudget += 1
        }
    }
}
