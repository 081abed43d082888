/// Joins 0xCF host-timing datagrams to the access units they describe, by `pts_ns`
/// (data-plane.md §7.5), and says where each frame's time went before it reached the client:
/// on the host (`host_us`: capture → sent) and on the network (the AU's last packet's arrival −
/// (pts + host_us), both on the session media clock).
///
/// Either side may come first (the 0xCF travels in a QUIC datagram, the AU on the raw media
/// path). Each waits in a ring of `slots` entries; an AU whose 0xCF has not come when `slots`
/// newer AUs arrived is reported without one, and so is every AU before the first 0xCF of the
/// session (a host that never sends them costs no delay). Pure and allocation-free after init:
/// every time is a parameter.
public struct HostTimingJoin: Sendable {
    /// One frame's pre-client split. Times are session-media-clock ns (§8.6) except where noted.
    public struct Frame: Sendable, Equatable {
        public var frame: UInt32
        public var ptsNs: Int64
        /// The host's 0xCF for this pts (nil: none came).
        public var host: HostTiming?
        /// The AU's first and last packet arrival on the session clock.
        public var firstArrivalNs: Int64
        public var lastArrivalNs: Int64

        public init(frame: UInt32, ptsNs: Int64, host: HostTiming?, firstArrivalNs: Int64, lastArrivalNs: Int64) {
            self.frame = frame; self.ptsNs = ptsNs; self.host = host
            self.firstArrivalNs = firstArrivalNs; self.lastArrivalNs = lastArrivalNs
        }
        /// Last arrival − (pts + host_us): the network's share. Without a 0xCF the host's share
        /// cannot be told apart, so it is last arrival − pts (capture → arrival).
        public var networkNs: Int64 { lastArrivalNs - ptsNs - Int64(host?.hostUs ?? 0) * 1000 }
        /// First → last packet arrival: how long the AU was on its way in.
        public var spreadNs: Int64 { lastArrivalNs - firstArrivalNs }
    }

    public static let slots = 64
    /// AUs waiting for their 0xCF, and 0xCFs waiting for their AU; `used` marks a live entry.
    private var frames: [(used: Bool, frame: Frame)]
    private var timings: [(used: Bool, timing: HostTiming)]
    private var nextFrame = 0
    private var nextTiming = 0
    /// A 0xCF has come in this session: AUs wait for theirs from now on.
    public private(set) var hostSendsTiming = false

    public init() {
        let empty = Frame(frame: 0, ptsNs: 0, host: nil, firstArrivalNs: 0, lastArrivalNs: 0)
        frames = Array(repeating: (false, empty), count: Self.slots)
        timings = Array(repeating: (false, HostTiming(ptsNs: 0, hostUs: 0)), count: Self.slots)
    }

    /// A complete AU. `emit` gets every frame whose split is now known: this one if its 0xCF
    /// came already (or none are sent), and an older one pushed out of the ring without one.
    public mutating func accessUnit(_ f: Frame, emit: (Frame) -> Void) {
        var f = f
        for i in timings.indices where timings[i].used && Int64(bitPattern: timings[i].timing.ptsNs) == f.ptsNs {
            timings[i].used = false
            f.host = timings[i].timing
            emit(f)
            return
        }
        guard hostSendsTiming else { emit(f); return }
        if frames[nextFrame].used { emit(frames[nextFrame].frame) }
        frames[nextFrame] = (true, f)
        nextFrame = (nextFrame + 1) % Self.slots
    }

    /// A 0xCF datagram. `emit` gets the frame it completes, if its AU came already.
    public mutating func hostTiming(_ t: HostTiming, emit: (Frame) -> Void) {
        hostSendsTiming = true
        for i in frames.indices where frames[i].used && frames[i].frame.ptsNs == Int64(bitPattern: t.ptsNs) {
            frames[i].used = false
            var f = frames[i].frame
            f.host = t
            emit(f)
            return
        }
        // Its AU is still on the way (or was lost): the oldest waiting timing makes room.
        timings[nextTiming] = (true, t)
        nextTiming = (nextTiming + 1) % Self.slots
    }
}
