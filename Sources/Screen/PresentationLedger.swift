/// The bookkeeping of presentation answers — `wp_presentation` feedback under Wayland, Present's
/// CompleteNotify under X11; the analogue of the KMS pacer's flip accounting. Pure: no I/O, no clock reads (times are CLOCK_MONOTONIC ns passed in), no
/// allocation per frame (a fixed ring of outstanding commits).
///
/// Driving it (the presenting thread): `handleCommit` for every surface commit that requested a
/// feedback object (returns the token the feedback's listener carries), then `handlePresented` /
/// `handleDiscarded` when the compositor answers. Commit on arrival means most superseded commits
/// come back `discarded`; a compositor that answers nothing (headless sway 1.7 presents without
/// feedback, a hidden surface) is `isStalled` — which says nothing about what is on screen
/// (`VisibilityWatch` does). The stream keeps running either way (the kiosk never waits for
/// feedback).
///
/// Invariants: every token is answered at most once; at most `capacity` commits are outstanding
/// (the oldest is forgotten as `unanswered` when more are made); counts only grow.
public struct PresentationLedger: Sendable {
    /// `wp_presentation_feedback.kind` flags (presentation-time.xml).
    public struct Flags: OptionSet, Sendable, Equatable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let vsync = Flags(rawValue: 0x1)
        public static let hwClock = Flags(rawValue: 0x2)
        public static let hwCompletion = Flags(rawValue: 0x4)
        public static let zeroCopy = Flags(rawValue: 0x8)
    }

    /// A commit that reached glass.
    public struct Shown: Sendable, Equatable {
        public var frameID: UInt64
        /// When it turned into light, CLOCK_MONOTONIC ns.
        public var glassNs: UInt64
        /// When the frame was ready to present (decoded / drawn), CLOCK_MONOTONIC ns.
        public var readyNs: UInt64
        public var commitNs: UInt64
        public var flags: Flags
        /// The output's refresh at that moment, ns (0: unknown, VRR or a virtual output).
        public var refreshNs: UInt64

        public init(frameID: UInt64, glassNs: UInt64, readyNs: UInt64, commitNs: UInt64, flags: Flags, refreshNs: UInt64) {
            self.frameID = frameID; self.glassNs = glassNs; self.readyNs = readyNs; self.commitNs = commitNs
            self.flags = flags; self.refreshNs = refreshNs
        }
    }

    /// Counts and commit → present latency, for the JSON stats.
    public struct Stats: Sendable, Equatable {
        public var committed: UInt64 = 0
        public var presented: UInt64 = 0
        public var discarded: UInt64 = 0
        /// Of `discarded`, commits a newer commit had replaced before the answer came (newest
        /// wins: the compositor latched the newer one); the rest were not shown for another reason.
        public var superseded: UInt64 = 0
        public var zeroCopy: UInt64 = 0
        /// Forgotten without an answer (more than `capacity` outstanding: a hidden surface).
        public var unanswered: UInt64 = 0
        /// Commit → presented, ns: last, minimum, maximum and the sum over `presented`.
        public var lastLatencyNs: UInt64 = 0
        public var minLatencyNs: UInt64 = .max
        public var maxLatencyNs: UInt64 = 0
        public var latencySumNs: UInt64 = 0
        public init() {}
        /// Mean commit → presented, ns (0 before the first).
        public var meanLatencyNs: UInt64 { presented == 0 ? 0 : latencySumNs / presented }
    }

    private struct Outstanding: Sendable {
        var token: UInt64 = 0
        var frameID: UInt64 = 0
        var commitNs: UInt64 = 0
        var readyNs: UInt64 = 0
    }

    public let capacity: Int
    /// Outstanding this long without any answer ⇒ the surface is hidden, ns.
    public let stallNs: UInt64
    public private(set) var stats = Stats()
    /// The latest refresh the compositor reported, ns (0: unknown).
    public private(set) var refreshNs: UInt64 = 0
    /// The last answer of any kind, CLOCK_MONOTONIC ns (0: none yet).
    public private(set) var lastAnswerNs: UInt64 = 0

    private var ring: [Outstanding]
    private var head = 0     // index of the oldest outstanding
    private var count = 0
    private var nextToken: UInt64 = 1

    public init(capacity: Int = 32, stallNs: UInt64 = 1_000_000_000) {
        precondition(capacity > 0)
        self.capacity = capacity
        self.stallNs = stallNs
        ring = Array(repeating: Outstanding(), count: capacity)
    }

    /// Commits not answered yet.
    public var outstanding: Int { count }

    /// A commit of frame `frameID` went out at `now` (ready since `readyNs`). - Returns: the token
    /// for its feedback's answers.
    public mutating func handleCommit(frameID: UInt64, readyNs: UInt64, now: UInt64) -> UInt64 {
        if count == capacity {  // forget the oldest: its feedback will never be matched
            head = (head + 1) % capacity
            count -= 1
            stats.unanswered += 1
        }
        let token = nextToken
        nextToken += 1
        ring[(head + count) % capacity] = Outstanding(token: token, frameID: frameID, commitNs: now, readyNs: readyNs)
        count += 1
        stats.committed += 1
        return token
    }

    /// The compositor presented commit `token` at `glassNs` (already on CLOCK_MONOTONIC).
    /// - Returns: what reached glass; nil for an unknown or already answered token.
    public mutating func handlePresented(token: UInt64, glassNs: UInt64, refreshNs: UInt64, flags: Flags,
                                         now: UInt64) -> Shown? {
        guard let entry = take(token) else { return nil }
        lastAnswerNs = now
        self.refreshNs = refreshNs
        stats.presented += 1
        if flags.contains(.zeroCopy) { stats.zeroCopy += 1 }
        let latency = glassNs > entry.commitNs ? glassNs - entry.commitNs : 0
        stats.lastLatencyNs = latency
        stats.minLatencyNs = min(stats.minLatencyNs, latency)
        stats.maxLatencyNs = max(stats.maxLatencyNs, latency)
        stats.latencySumNs &+= latency
        return Shown(frameID: entry.frameID, glassNs: glassNs, readyNs: entry.readyNs, commitNs: entry.commitNs,
                     flags: flags, refreshNs: refreshNs)
    }

    /// The compositor never showed commit `token` (superseded before its repaint, or the surface
    /// is not visible). - Returns: the frame id, nil for an unknown or already answered token.
    @discardableResult
    public mutating func handleDiscarded(token: UInt64, now: UInt64) -> UInt64? {
        guard let entry = take(token) else { return nil }
        lastAnswerNs = now
        stats.discarded += 1
        if entry.token < nextToken - 1 { stats.superseded += 1 }
        return entry.frameID
    }


    /// Whether the oldest outstanding commit has waited `stallNs` without any answer since: the
    /// surface is hidden (or the compositor stopped presenting it). Keep streaming.
    public func isStalled(now: UInt64) -> Bool {
        guard count > 0 else { return false }
        let since = max(ring[head].commitNs, lastAnswerNs)
        return now > since && now - since >= stallNs
    }

    /// Removes `token` from the ring (keeping order), returning its entry.
    private mutating func take(_ token: UInt64) -> Outstanding? {
        for i in 0..<count where ring[(head + i) % capacity].token == token {
            let entry = ring[(head + i) % capacity]
            if i == 0 {  // the usual case: answers come in commit order
                head = (head + 1) % capacity
                count -= 1
                return entry
            }
            // Shift the newer entries down over the hole (the ring is small).
            var j = i
            while j + 1 < count {
                ring[(head + j) % capacity] = ring[(head + j + 1) % capacity]
                j += 1
            }
            count -= 1
            return entry
        }
        return nil
    }
}
