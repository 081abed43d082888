/// One output period: the step, plus how to shape the PCM it produced.
public struct Playout<Payload> {
    public var step: PlayoutStep<Payload>
    /// Frames (per channel) to remove (< 0) or repeat (> 0) in this period's PCM to hold the
    /// buffer at its target against clock drift and target changes; apply with
    /// `TimeStretch` (whole pitch periods, once enough is owed; `FrameStretch.apply` splices them
    /// into this period instead).
    public var stretchFrames: Int
    /// A gain ramp over this period's PCM: `.out` on the last concealment frame before the
    /// output goes quiet, `.in` on the first real frame after it (`FrameStretch.fade`).
    public var fade: PlayoutFade
    /// Packets found lost at this pull whose time the preceding `.conceal(seq: nil)` /
    /// `.silence(seq: nil)` periods already filled: `coveredLost` of the sequence numbers
    /// settled since the previous poll: these and any dropped for room
    /// (`JitterStats.overflowDrops`) come first, this step's last. Nothing for the decoder to do;
    /// accounting only.
    public var coveredLost: Int
    /// The delay this period was judged at minus the target, ns (> 0: above it), for a real
    /// period; 0 otherwise. `TimeStretch` lets a pitch seam land the delay up to half a period
    /// below the target (not below the owed stretch), so a debt need not wait for half a period
    /// while the delay is that far above the target.
    public var delayErrorNs: Int64

    public init(step: PlayoutStep<Payload>, stretchFrames: Int = 0, fade: PlayoutFade = .none, coveredLost: Int = 0,
                delayErrorNs: Int64 = 0) {
        self.step = step
        self.stretchFrames = stretchFrames
        self.fade = fade
        self.coveredLost = coveredLost
        self.delayErrorNs = delayErrorNs
    }
}

extension Playout: Sendable where Payload: Sendable {}
extension Playout: Equatable where Payload: Equatable {}
