/// The display's vblank grid as learned from page-flip events (timestamp + vblank sequence).
///
/// Each flip after the first yields one sample: the time since the previous flip divided by the
/// number of vblanks the sequence advanced, so flips that skip refreshes (a 30 fps stream, a
/// missed latch) still measure one refresh. The period is the median of the last
/// `sampleCapacity` samples and is published once `minimumSamples` exist. The grid's phase is
/// the newest flip timestamp; predictions extrapolate from it.
///
/// A flip whose sequence did not advance comes from a device without a vblank (bochs-drm and
/// virtio-gpu report sequence 0 and complete a flip as soon as the commit lands); one such flip
/// clears `hasRealVblank` until two advancing flips are seen again.
///
/// Pure: no clock reads, no allocation after `init`.
struct VblankClock: Sendable {
    static let sampleCapacity = 15
    static let minimumSamples = 3
    /// Plausible refresh periods: 10 Hz … 500 Hz. Samples outside are ignored.
    static let periodRangeNs: ClosedRange<UInt64> = 2_000_000...100_000_000
    /// A sequence step larger than this is a counter reset (modeset), not elapsed vblanks.
    static let maximumSequenceStep: UInt32 = 1 << 20

    private var samples: [UInt64]
    private var sampleCount = 0
    private var nextSlot = 0
    /// Timestamp (ns) and sequence of the newest flip.
    private(set) var anchorNs: UInt64?
    private(set) var anchorSequence: UInt32 = 0
    /// Consecutive flips whose sequence advanced.
    private(set) var advancingFlips = 0
    /// Flips whose sequence equalled the previous one (immediate-flip device evidence).
    private(set) var immediateFlips: UInt64 = 0
    /// Median per-vblank spacing of the recent samples, ns; nil until `minimumSamples` exist.
    private(set) var periodNs: UInt64?

    init() {
        samples = [UInt64](repeating: 0, count: Self.sampleCapacity)
    }

    var hasRealVblank: Bool { advancingFlips >= 2 }
    /// True once a flip arrived without the sequence advancing and none advanced since.
    var isImmediateFlipDevice: Bool { immediateFlips > 0 && advancingFlips == 0 }

    /// Records one flip; returns how many vblanks the sequence advanced since the previous flip
    /// (nil for the first flip, a non-advancing sequence, time going backwards or a reset).
    mutating func observe(timestampNs: UInt64, sequence: UInt32) -> UInt32? {
        defer {
            anchorNs = timestampNs
            anchorSequence = sequence
        }
        guard let previous = anchorNs else { return nil }
        let step = sequence &- anchorSequence
        if step == 0 {
            advancingFlips = 0
            immediateFlips &+= 1
            return nil
        }
        guard timestampNs > previous, step <= Self.maximumSequenceStep else { return nil }
        advancingFlips = min(advancingFlips + 1, 1 << 30)
        let spacing = (timestampNs - previous) / UInt64(step)
        if Self.periodRangeNs.contains(spacing) { record(spacing) }
        return step
    }

    /// The first grid vblank at or after `t` for the given period; nil before the first flip.
    func firstVblank(atOrAfter t: UInt64, periodNs period: UInt64) -> UInt64? {
        guard let anchor = anchorNs, period > 0 else { return nil }
        if t <= anchor { return anchor }
        let k = (t - anchor + period - 1) / period
        return anchor + k * period
    }

    private mutating func record(_ spacing: UInt64) {
        samples[nextSlot] = spacing
        nextSlot = (nextSlot + 1) % Self.sampleCapacity
        sampleCount = min(sampleCount + 1, Self.sampleCapacity)
        guard sampleCount >= Self.minimumSamples else { return }
        let count = sampleCount
        periodNs = samples.withUnsafeBufferPointer { source in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: Self.sampleCapacity) { sorted in
                for i in 0..<count {
                    // Insertion sort: at most 15 elements, on the stack.
                    var j = i
                    let value = source[i]
                    while j > 0 && sorted[j - 1] > value {
                        sorted[j] = sorted[j - 1]
                        j -= 1
                    }
                    sorted[j] = value
                }
                return count % 2 == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2
            }
        }
    }
}
