import Display

/// One stream/display situation for `PacerSimulation`.
public struct PacerScenario: Sendable {
    public var name: String
    public var frames: Int
    /// The host's true frame interval, ns.
    public var streamIntervalNs: UInt64
    /// The interval the pacer is configured with (the mode the client asked for), ns.
    public var configuredStreamIntervalNs: UInt64
    /// The display's true refresh period, ns; nil = a device that flips immediately.
    public var refreshNs: UInt64?
    /// Whether the pacer is told the mode's refresh (`Configuration.nominalRefreshNs`).
    public var tellNominalRefresh = true
    /// Fixed production-to-ready delay (encode, network, decode), ns.
    public var pipelineDelayNs: UInt64 = 4_000_000
    /// Uniform extra delay per frame, 0...jitterNs.
    public var jitterNs: UInt64
    public var lateFraction: Double = 0
    public var lateRangeNs: ClosedRange<UInt64> = 0...0
    /// Probability per frame that a stall of `stallNs` starts (network hiccup, decoder stall).
    public var stallFraction: Double = 0
    public var stallNs: UInt64 = 0
    /// Probability that a commit latches one refresh later than it should (vkms under load).
    public var missedVblankFraction: Double = 0
    /// How late the presenter thread runs after the event that woke it.
    public var wake = WakeModel.realtimeBusy
    /// The commit-to-latch requirement, ns; the pacer is configured with it as its latch margin.
    public var latchMarginNs: UInt64 = 1_000_000

    public init(name: String, frames: Int, streamIntervalNs: UInt64, configuredStreamIntervalNs: UInt64? = nil,
                refreshNs: UInt64?, jitterNs: UInt64) {
        self.name = name
        self.frames = frames
        self.streamIntervalNs = streamIntervalNs
        self.configuredStreamIntervalNs = configuredStreamIntervalNs ?? streamIntervalNs
        self.refreshNs = refreshNs
        self.jitterNs = jitterNs
    }

    public static let hz60: UInt64 = 16_666_667
    public static let hz120: UInt64 = 8_333_333
    public static let hz59_94: UInt64 = 16_683_350

    /// The pacer configured as a presenter would for this scenario.
    public func flipPacer() -> FlipPacer {
        FlipPacer(.init(streamIntervalNs: configuredStreamIntervalNs,
                        nominalRefreshNs: tellNominalRefresh ? refreshNs : nil,
                        latchMarginNs: latchMarginNs))
    }

    /// The benchmark's scenarios; `frames` per seed.
    public static func standard(frames: Int) -> [PacerScenario] {
        var list: [PacerScenario] = []
        list.append(.init(name: "60 fps on 60 Hz, jitter 0-2 ms", frames: frames, streamIntervalNs: hz60, refreshNs: hz60, jitterNs: 2_000_000))
        list.append(.init(name: "120 fps on 120 Hz, jitter 0-1 ms", frames: frames, streamIntervalNs: hz120, refreshNs: hz120, jitterNs: 1_000_000))
        list.append(.init(name: "60 fps on 120 Hz, jitter 0-2 ms", frames: frames, streamIntervalNs: hz60, refreshNs: hz120, jitterNs: 2_000_000))
        list.append(.init(name: "120 fps on 60 Hz, jitter 0-1 ms", frames: frames, streamIntervalNs: hz120, refreshNs: hz60, jitterNs: 1_000_000))
        list.append(.init(name: "59.94 fps on 60 Hz (asked 60)", frames: frames, streamIntervalNs: hz59_94, configuredStreamIntervalNs: hz60, refreshNs: hz60, jitterNs: 1_000_000))
        list.append(.init(name: "60 fps on 59.94 Hz", frames: frames, streamIntervalNs: hz60, refreshNs: hz59_94, jitterNs: 1_000_000))
        var late = PacerScenario(name: "60/60, 3 % frames late 2-25 ms", frames: frames, streamIntervalNs: hz60, refreshNs: hz60, jitterNs: 1_000_000)
        late.lateFraction = 0.03
        late.lateRangeNs = 2_000_000...25_000_000
        list.append(late)
        var burst = PacerScenario(name: "60/60, 1 % stalls of 50 ms then burst", frames: frames, streamIntervalNs: hz60, refreshNs: hz60, jitterNs: 1_000_000)
        burst.stallFraction = 0.01
        burst.stallNs = 50_000_000
        list.append(burst)
        var vkms = PacerScenario(name: "60/60, vkms: 1 % missed vblanks", frames: frames, streamIntervalNs: hz60, refreshNs: hz60, jitterNs: 2_000_000)
        vkms.missedVblankFraction = 0.01
        vkms.tellNominalRefresh = false
        list.append(vkms)
        var coarse = PacerScenario(name: "60/60, wake-ups 0-1 ms late (ms poll)", frames: frames, streamIntervalNs: hz60, refreshNs: hz60, jitterNs: 2_000_000)
        coarse.wake = .millisecondPoll
        list.append(coarse)
        list.append(.init(name: "60 fps, immediate flips (bochs)", frames: frames, streamIntervalNs: hz60, refreshNs: nil, jitterNs: 2_000_000))
        var bochsBurst = PacerScenario(name: "60 fps, immediate flips, stalls+bursts", frames: frames, streamIntervalNs: hz60, refreshNs: nil, jitterNs: 2_000_000)
        bochsBurst.stallFraction = 0.01
        bochsBurst.stallNs = 50_000_000
        list.append(bochsBurst)
        return list
    }
}
