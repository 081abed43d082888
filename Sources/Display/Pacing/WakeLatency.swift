/// How late the presenter's timed wake-ups run: `nowNs − deadline` at the first `next` call at or
/// after a hold deadline, for the last `capacity` holds. A held commit is issued `guardNs` before
/// the latch point; the guard is the largest recent lateness plus an eighth plus `slackNs`, clamped to
/// `minimumNs...maximumNs` (the maximum, `Configuration.wakeGuardNs`, is used until `capacity`
/// samples exist).
/// A smaller guard lets a held frame wait longer for a newer one; one wake-up later than the
/// guard costs a refresh, and widens the guard for the next `capacity` holds.
struct WakeLatency: Sendable {
    static let capacity = 16
    static let slackNs: UInt64 = 50_000
    static let minimumNs: UInt64 = 100_000

    private var samples: [UInt64]
    private var count = 0
    private var nextSlot = 0
    private(set) var guardNs: UInt64
    let maximumNs: UInt64

    init(maximumNs: UInt64) {
        self.maximumNs = max(maximumNs, Self.minimumNs)
        guardNs = self.maximumNs
        samples = [UInt64](repeating: 0, count: Self.capacity)
    }

    mutating func observe(latenessNs: UInt64) {
        samples[nextSlot] = latenessNs
        nextSlot = (nextSlot + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
        guard count == Self.capacity else { return }  // too few samples for a tail: keep the maximum
        var largest: UInt64 = 0
        for sample in samples { largest = max(largest, sample) }
        guardNs = min(max(largest + largest / 8 + Self.slackNs, Self.minimumNs), maximumNs)
    }
}
