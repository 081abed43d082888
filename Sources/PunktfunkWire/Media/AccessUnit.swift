/// One complete, FEC-recovered, authenticated access unit as the reassembler hands it out.
///
/// `data` borrows the reassembler's buffer: it is valid only inside the delivery callback
/// (copy it to keep it). It is never partial and never corrupt: an AU that cannot be rebuilt
/// exactly is declared lost instead.
public struct AccessUnit {
    public let data: UnsafeRawBufferPointer
    public let stream: MediaStream
    /// `frame_index` from the header (video and probe count separately).
    public let frame: UInt32
    public let epoch: UInt8
    /// AU-level flags (data-plane.md §1.5): 0x04 keyframe, 0x10 recovery point, 0x20 anchor, …
    public let userFlags: UInt32
    /// Host capture time on the session media clock, Unix ns (§8.6).
    public let ptsNs: Int64
    /// Data shards this AU needed rebuilt from parity.
    public let recoveredShards: Int
    /// Media packets that carried this AU (data + parity received).
    public let packets: Int
    /// When this AU's first and its completing packet arrived, in the receiver's arrival clock
    /// (the pump: CLOCK_MONOTONIC ns); 0 when the caller gave no arrival times.
    public var firstArrivalNs: UInt64 = 0
    public var lastArrivalNs: UInt64 = 0

    public init(data: UnsafeRawBufferPointer, stream: MediaStream, frame: UInt32, epoch: UInt8, userFlags: UInt32,
                ptsNs: Int64, recoveredShards: Int, packets: Int) {
        self.data = data
        self.stream = stream
        self.frame = frame
        self.epoch = epoch
        self.userFlags = userFlags
        self.ptsNs = ptsNs
        self.recoveredShards = recoveredShards
        self.packets = packets
    }

    public static let keyframeFlag: UInt32 = 0x04
    public var isKeyframe: Bool { userFlags & Self.keyframeFlag != 0 }
}
