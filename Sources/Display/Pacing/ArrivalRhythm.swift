/// The stream's arrival pattern as seen by the pacer: when the next frame can be expected, and
/// whether the stream was active at a given time (for counting repeats).
///
/// *Grid.* `gridNs` follows the leading edge of regular arrivals (spacing between half and one and
/// a half stream intervals): the grid point nearest a regular frame is pulled down to it when the
/// frame is early and creeps up by a sixteenth of the lateness otherwise, so a stream slightly
/// slower than configured (59.94 vs 60) is followed with a lag of about 15 × the per-frame drift.
/// Bursts and gaps do not move the grid; it is extrapolated by whole intervals.
///
/// `spreadNs` averages how far regular frames land behind the grid, a measure of the jitter.
///
/// *Expectation.* After a regular frame the next one is expected at the first grid point after
/// it. After a gap or a late frame (spacing above one and a half intervals) a backlog may follow,
/// so the next frame is expected at once; inside a burst (spacing under half an interval) after
/// the same spacing again — in both cases no later than the next grid point.
///
/// *Activity.* A run is a sequence of arrivals with gaps of at most `activeWindowNs` (two stream
/// intervals); the stream is active from a run's first arrival until `activeWindowNs` after its
/// last. The current and the previous run are kept, which is enough between two flips because
/// the first frame after a gap is committed at once or within one refresh.
struct ArrivalRhythm: Sendable {
    let intervalNs: UInt64
    /// A point of the leading-edge arrival grid.
    private(set) var gridNs: UInt64?
    /// The earliest time the frame after the newest one is expected; nil before any frame.
    private(set) var earliestNextNs: UInt64?
    /// Mean lateness of regular frames behind the grid (exponential average, weight 1/16), ns:
    /// about half the arrival jitter.
    private(set) var spreadNs: UInt64 = 0
    private(set) var lastArrivalNs: UInt64?
    private(set) var runStartNs: UInt64?
    private(set) var previousRunEndNs: UInt64?

    init(intervalNs: UInt64) {
        self.intervalNs = max(intervalNs, 1)
    }

    var activeWindowNs: UInt64 { 2 * intervalNs }

    mutating func observe(readyNs: UInt64) {
        guard let last = lastArrivalNs, let grid = gridNs else {
            lastArrivalNs = readyNs
            gridNs = readyNs
            runStartNs = readyNs
            earliestNextNs = readyNs + intervalNs
            return
        }
        let spacing = readyNs > last ? readyNs - last : 0
        if spacing > activeWindowNs {
            previousRunEndNs = last
            runStartNs = readyNs
        }
        lastArrivalNs = max(last, readyNs)
        if spacing >= intervalNs / 2 && spacing <= intervalNs + intervalNs / 2 {
            let nearest = nearestGridPoint(grid, to: readyNs)
            let lateness = readyNs > nearest ? readyNs - nearest : 0
            spreadNs = spreadNs - spreadNs / 16 + lateness / 16
            gridNs = readyNs <= nearest ? readyNs : nearest + (readyNs - nearest) / 16
            earliestNextNs = nextGridPoint(after: readyNs)
        } else if spacing > intervalNs {
            earliestNextNs = readyNs
        } else {
            earliestNextNs = min(readyNs + spacing, nextGridPoint(after: readyNs))
        }
    }

    /// The first grid point strictly after `t`.
    func nextGridPoint(after t: UInt64) -> UInt64 {
        guard let grid = gridNs else { return t + intervalNs }
        if grid > t { return grid }
        return grid + ((t - grid) / intervalNs + 1) * intervalNs
    }

    private func nearestGridPoint(_ grid: UInt64, to t: UInt64) -> UInt64 {
        if grid >= t { return grid }
        let below = grid + (t - grid) / intervalNs * intervalNs
        return t - below <= intervalNs / 2 ? below : below + intervalNs
    }

    /// How many of the grid points `startNs + j * stepNs`, j in 1..<steps, lie where the stream
    /// was active.
    func activePoints(startNs: UInt64, stepNs: UInt64, steps: UInt32) -> UInt64 {
        guard steps > 1, stepNs > 0 else { return 0 }
        var total: UInt64 = 0
        if let end = previousRunEndNs {
            total += points(startNs: startNs, stepNs: stepNs, steps: steps, low: 0, high: end + activeWindowNs)
        }
        if let start = runStartNs, let last = lastArrivalNs {
            total += points(startNs: startNs, stepNs: stepNs, steps: steps, low: start, high: last + activeWindowNs)
        }
        return total
    }

    private func points(startNs: UInt64, stepNs: UInt64, steps: UInt32, low: UInt64, high: UInt64) -> UInt64 {
        guard high > startNs, high >= low else { return 0 }
        let firstJ: UInt64 = low <= startNs ? 1 : max(1, (low - startNs + stepNs - 1) / stepNs)
        let lastJ = min(UInt64(steps) - 1, (high - startNs) / stepNs)
        return lastJ >= firstJ ? lastJ - firstJ + 1 : 0
    }
}
