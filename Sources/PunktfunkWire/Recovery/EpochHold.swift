/// Frames of a stream-configuration epoch whose StreamConfig has not arrived yet
/// (data-plane.md §4.4), sans I/O: with FEATURE_STREAM_CONFIG in force the client holds them —
/// their mode, codec and colour are unknown — and hands them on, in arrival order, when the
/// config arrives.
///
/// Bounded: at most `maxFrames` frames and `maxBytes` bytes wait. A frame beyond either bound
/// drops the whole held batch (counted); the decoder then needs a keyframe of that epoch, which
/// `releaseOnConfig` reports so the caller can ask for one.
public struct EpochHold<Unit>: Sendable where Unit: Sendable {
    public static var maxFrames: Int { 48 }
    public static var maxBytes: Int { 64 << 20 }

    /// Epochs whose StreamConfig arrived.
    private var configured = Set<UInt8>()
    private var held: [(epoch: UInt8, unit: Unit, bytes: Int)] = []
    private var heldBytes = 0
    /// The held batch overflowed since the last config: a keyframe is needed.
    private var overflowed = false
    /// Whether the host sends StreamConfig per epoch (FEATURE_STREAM_CONFIG, bit 32 of its features).
    public let active: Bool

    /// Frames held so far, and frames dropped because the hold overflowed.
    public private(set) var framesHeld = 0
    public private(set) var framesDropped = 0

    public init(active: Bool) { self.active = active }

    /// Frames waiting now.
    public var waiting: Int { held.count }

    /// Whether a frame of `epoch` must wait for its config.
    public func mustHold(epoch: UInt8) -> Bool { active && !configured.contains(epoch) }

    /// Holds `unit` (a frame of an unconfigured `epoch`, `bytes` long).
    public mutating func hold(_ unit: Unit, epoch: UInt8, bytes: Int) {
        if held.count >= Self.maxFrames || heldBytes + bytes > Self.maxBytes {
            framesDropped += held.count + 1
            held.removeAll()
            heldBytes = 0
            overflowed = true
            return
        }
        held.append((epoch, unit, bytes))
        heldBytes += bytes
        framesHeld += 1
    }

    /// StreamConfig for `epoch` arrived: its held frames, in arrival order, and whether the hold
    /// overflowed meanwhile (ask for a keyframe). Frames of other epochs keep waiting.
    public mutating func releaseOnConfig(epoch: UInt8) -> (units: [Unit], needsKeyframe: Bool) {
        configured.insert(epoch)
        // Epochs far behind this one will never be used again (the receiver drops them).
        configured = configured.filter { (epoch &- $0) <= 128 }
        var out: [Unit] = []
        var kept: [(epoch: UInt8, unit: Unit, bytes: Int)] = []
        for entry in held {
            if entry.epoch == epoch { out.append(entry.unit); heldBytes -= entry.bytes } else { kept.append(entry) }
        }
        held = kept
        defer { overflowed = false }
        return (out, overflowed)
    }
}
