/// How late the presenter's timed wake-ups run: `nowNs − deadline` at the first `next` call at or
/// after a hold deadline. A held commit is issued `guardNs` before the latch point; the guard is
/// the largest lateness of the last `window` holds plus an eighth plus `slackNs`, clamped to
/// `minimumNs...maximumNs` (the maximum, `Configuration.wakeGuardNs`, is used until
/// `minimumSamples` samples exist).
///
/// The window is long (1024 holds, about 17 s of holding at 60 fps) because the guard must cover
/// the rare slow wake-up, not the typical one: a held frame is on time, and one wake-up later than
/// the guard costs it its refresh. A larger lateness raises the guard at once; it falls only
/// when that sample has left the window. Lateness above `maximumNs` is a stall no allowed guard
/// can cover: it is counted in `stalls` and not learned, so one stall does not hold the guard at
/// its maximum for the next thousand holds.
///
/// Storage: 16 buckets of 64 samples, each remembered by its maximum. O(1) per sample, no
/// allocation after `init`.
struct WakeLatency: Sendable {
    static let bucketSamples = 64
    static let buckets = 16
    static var window: Int { bucketSamples * buckets }
    static let minimumSamples = 16
    static let slackNs: UInt64 = 50_000
    static let minimumNs: UInt64 = 100_000

    private var bucketMaxima: [UInt64]
    private var currentBucket = 0
    private var inCurrentBucket = 0
    private var samples = 0
    private(set) var guardNs: UInt64
    /// Wake-ups later than `maximumNs`.
    private(set) var stalls: UInt64 = 0
    let maximumNs: UInt64

    init(maximumNs: UInt64) {
        self.maximumNs = max(maximumNs, Self.minimumNs)
        guardNs = self.maximumNs
        bucketMaxima = [UInt64](repeating: 0, count: Self.buckets)
    }

    mutating func observe(latenessNs: UInt64) {
        guard latenessNs <= maximumNs else {
            stalls += 1
            return
        }
        if inCurrentBucket == Self.bucketSamples {
            currentBucket = (currentBucket + 1) % Self.buckets
            bucketMaxima[currentBucket] = 0
            inCurrentBucket = 0
        }
        bucketMaxima[currentBucket] = max(bucketMaxima[currentBucket], latenessNs)
        inCurrentBucket += 1
        samples += 1
        guard samples >= Self.minimumSamples else { return }  // too few samples for a tail: keep the maximum
        var largest: UInt64 = 0
        for m in bucketMaxima { largest = max(largest, m) }
        guardNs = min(max(largest + largest / 8 + Self.slackNs, Self.minimumNs), maximumNs)
    }
}
