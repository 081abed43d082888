/// The stall ledger (issue 41), sans I/O: every stall of the stream — a frozen picture (frames
/// stopped arriving), a loss burst (frames lost for good), a one-way-delay step — with the nearest
/// cause within ±`nearNs` (a scan, a roam, a channel switch, a beacon loss, a waking receiver's head
/// loss) or none seen, and the period when stalls repeat. All times are CLOCK_MONOTONIC ns passed
/// in, never going backwards.
///
/// - A stall begins at an observation over `thresholdNs` (50 ms: a frame that much later after
///   the previous one than the host's frame spacing says, a first shard that much over the rolling
///   minimum delay, a frame lost for good); observations within `mergeNs` of its end extend it (one scan's off-channel dwells, a
///   gap and the delayed burst after it, are one stall).
/// - A stall is settled `nearNs` after its end, when every event that can be near it is in: its
///   cause is the event nearest to it (a scan spans its trigger to its results; the others are
///   instants), distance 0 when they overlap, none seen when nothing is within `nearNs`.
/// - A Wi-Fi cause (scan, roam, channel switch, beacon loss) is an outage for the rate loop, not a
///   lower capacity: `takeOutageNews` turns true once per such stall — as soon as the event is
///   known (an open scan, an event before the stall), else when it settles.
/// - A period: at least `periodStalls` (3) settled stalls of one cause spaced by one spacing ±
///   `periodToleranceNs` (2 s); only spacings over twice the tolerance count (stalls closer than
///   that are one burst).
///
/// Storage is fixed (`capacity` stalls and events, oldest dropped); the per-frame path allocates
/// nothing.
public struct StallLedger: Sendable {
    public enum Cause: Int, Sendable, CaseIterable {
        case scan, roam, channelSwitch, beaconLoss, wakingReceiver, none

        /// JSON key.
        public var key: String {
            switch self {
            case .scan: "scan"
            case .roam: "roam"
            case .channelSwitch: "channel_switch"
            case .beaconLoss: "beacon_loss"
            case .wakingReceiver: "waking_receiver"
            case .none: "none"
            }
        }

        /// Words for a sentence or the overlay.
        public var words: String {
            switch self {
            case .scan: "a scan"
            case .roam: "a roam or reconnect"
            case .channelSwitch: "a channel switch"
            case .beaconLoss: "a beacon loss"
            case .wakingReceiver: "a waking receiver's head loss"
            case .none: "none seen"
            }
        }

        /// The overlay's short name.
        public var shortWords: String {
            switch self {
            case .scan: "scan"
            case .roam: "roam"
            case .channelSwitch: "channel switch"
            case .beaconLoss: "beacon loss"
            case .wakingReceiver: "waking receiver"
            case .none: "none seen"
            }
        }

        /// A Wi-Fi event that takes the radio away: an outage, not a capacity.
        public var isOutage: Bool { self == .scan || self == .roam || self == .channelSwitch || self == .beaconLoss }
    }

    public struct Symptoms: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let frozen = Symptoms(rawValue: 1)
        public static let lossBurst = Symptoms(rawValue: 2)
        public static let delayStep = Symptoms(rawValue: 4)

        public var names: [String] {
            (contains(.frozen) ? ["frozen"] : []) + (contains(.lossBurst) ? ["loss"] : []) + (contains(.delayStep) ? ["delay"] : [])
        }
    }

    public struct Stall: Sendable, Equatable {
        public var startNs: UInt64
        public var endNs: UInt64
        public var symptoms: Symptoms
        /// The longest frozen time or largest delay rise in it, ms.
        public var worstMs: Int
        /// nil until settled.
        public var cause: Cause?
        /// The named event's start minus the stall's start, ns (nil for none seen).
        public var causeOffsetNs: Int64?
        var toldOutage = false

        public var lengthMs: Int { Int((endNs - startNs) / 1_000_000) }
    }

    public struct Period: Sendable, Equatable {
        public var spacingNs: UInt64
        public var stalls: Int
        /// The cause its stalls share.
        public var cause: Cause

        public var seconds: Double { Double(spacingNs) / 1e9 }

        /// One sentence: the period, its cause and what to do about it.
        public var advice: String {
            let every = seconds >= 10 ? "\(Int(seconds.rounded())) s" : "\(StallLedger.tenths(seconds)) s"
            switch cause {
            case .scan:
                let nm = abs(seconds - 300) <= 2 || abs(seconds - 30) <= 2
                return "stalls every \(every) follow background scans"
                    + (nm ? ": NetworkManager scans every 5 min when it sees two access points for the network (every 30 s under −65 dBm)" : "")
                    + ". Lock the connection to one access point (nmcli connection modify NAME 802-11-wireless.bssid XX:XX:XX:XX:XX:XX) or stop what asks for the scans."
            case .roam:
                return "stalls every \(every) follow roams between access points. Lock the connection to one access point (its BSSID) or move the box nearer to one."
            case .channelSwitch:
                return "stalls every \(every) follow channel switches. Give the access point a fixed channel (outside DFS channels on 5 GHz)."
            case .beaconLoss:
                return "stalls every \(every) follow lost beacons. Move the box or the access point nearer, or use a cable."
            case .wakingReceiver:
                return "stalls every \(every) follow a dozing radio's head loss. Turn power save off (the kiosk does while streaming when it has CAP_NET_ADMIN)."
            case .none:
                return "stalls every \(every) with no Wi-Fi event near them: something else on the path pauses on a schedule (the host, the router, another device)."
            }
        }
    }

    // MARK: Constants (the issue's text)

    public static let thresholdNs: UInt64 = 50_000_000
    public static let nearNs: UInt64 = 1_000_000_000
    public static let mergeNs: UInt64 = 500_000_000
    public static let periodStalls = 3
    public static let periodToleranceNs: UInt64 = 2_000_000_000
    /// A scan without its results event ends this long after its trigger (a full 2.4 + 5 GHz scan
    /// takes about 11 s in hwsim).
    public static let scanLimitNs: UInt64 = 15_000_000_000
    public static let capacity = 32
    /// A frame number this far ahead of the previous one is another numbering (a new epoch).
    static let maxFrameStep: UInt32 = 100_000
    /// The delay minimum is the lower of two buckets of this length (a rolling minimum of 5–10 s).
    static let minimumBucketNs: UInt64 = 5_000_000_000

    // MARK: State

    /// Settled stalls, oldest first (at most `capacity`).
    public private(set) var settled: [Stall] = []
    /// Settled stalls by cause (`Cause.rawValue`), all of the stream.
    public private(set) var counts = [Int](repeating: 0, count: Cause.allCases.count)
    public private(set) var period: Period?
    /// Stalls being built or waiting to settle (each observation settles the due ones first, so
    /// at most the stalls of the last `nearNs`).
    private var pending: [Stall] = []
    private var events: [(cause: Cause, startNs: UInt64, endNs: UInt64)] = []
    private var lastFrame: (frame: UInt32, arrivalNs: UInt64, ptsNs: Int64)?
    private var minimumNow: Int64 = .max, minimumBefore: Int64 = .max
    private var bucketStart: UInt64 = 0
    private var outageNews = false

    public init() {
        settled.reserveCapacity(Self.capacity + 1)
        pending.reserveCapacity(8)
        events.reserveCapacity(Self.capacity + 1)
    }

    public var total: Int { counts.reduce(0, +) }

    // MARK: Inputs

    /// Frame `frame`'s first shard arrived at `now`, its capture time `ptsNs` on the host's clock:
    /// its one-way delay is `now − ptsNs` up to a constant (only its rise over the rolling minimum
    /// is read), and the picture froze when it came `thresholdNs` later after the previous frame
    /// than the host's frame spacing says — the capture times' distance over the frame numbers'
    /// (frames that never came, in an outage, are frozen time too; a host that sends frames only
    /// on change spaces its numbers as its captures). O(1).
    public mutating func frameArrived(frame: UInt32, ptsNs: Int64, now: UInt64) {
        let owdNs = Int64(bitPattern: now) &- ptsNs
        if now &- bucketStart >= Self.minimumBucketNs {
            minimumBefore = minimumNow
            minimumNow = .max
            bucketStart = now
        }
        minimumNow = min(minimumNow, owdNs)
        let floor = min(minimumNow, minimumBefore)
        if let last = lastFrame, now > last.arrivalNs, ptsNs > last.ptsNs {
            // A new epoch numbers from 0 again, and a frame may overtake another: those count as
            // one step.
            let steps = frame &- last.frame
            let spacing = UInt64(ptsNs - last.ptsNs) / UInt64(steps == 0 || steps > Self.maxFrameStep ? 1 : steps)
            let gap = now - last.arrivalNs
            if gap >= spacing &+ Self.thresholdNs {
                observe(.frozen, startNs: last.arrivalNs &+ spacing, endNs: now, ms: Int((gap - spacing) / 1_000_000))
            }
        }
        lastFrame = (frame, now, ptsNs)
        let rise = owdNs &- floor
        if floor != .max, rise >= Int64(Self.thresholdNs) {
            observe(.delayStep, startNs: now &- UInt64(rise), endNs: now, ms: Int(rise / 1_000_000))
        }
    }

    /// A frame was lost for good at `now`.
    public mutating func frameLost(now: UInt64) {
        observe(.lossBurst, startNs: now, endNs: now, ms: 0)
    }

    /// A Wi-Fi instant (roam, channel switch, beacon loss) or a window with a waking receiver's
    /// head-loss signature.
    public mutating func event(_ cause: Cause, at: UInt64) {
        guard cause != .scan, cause != .none else { return }
        remember((cause, at, at))
    }

    /// A scan began (NL80211_CMD_TRIGGER_SCAN).
    public mutating func scanStarted(at: UInt64) {
        remember((.scan, at, at &+ Self.scanLimitNs))
    }

    /// A scan ended (NEW_SCAN_RESULTS or SCAN_ABORTED): the newest open scan ends at `at`; with no
    /// scan open (the trigger came before the ledger listened) one of unknown start ends here.
    public mutating func scanEnded(at: UInt64) {
        if let i = events.lastIndex(where: { $0.cause == .scan && $0.endNs > at && $0.startNs <= at }) {
            events[i].endNs = at
        } else {
            remember((.scan, at, at))
        }
    }

    /// Settles the stalls whose ±`nearNs` has passed (`.max`: every one, with the events known —
    /// the stream's end); returns how many settled now.
    @discardableResult
    public mutating func settle(now: UInt64) -> Int {
        var n = 0
        while let first = pending.first, now >= first.endNs &+ Self.nearNs || now == .max {
            var s = pending.removeFirst()
            if let (cause, offset) = nearest(s) {
                s.cause = cause
                s.causeOffsetNs = offset
            } else {
                s.cause = Cause.none
            }
            if s.cause!.isOutage, !s.toldOutage {
                s.toldOutage = true
                outageNews = true
            }
            counts[s.cause!.rawValue] += 1
            if settled.count == Self.capacity { settled.removeFirst() }
            settled.append(s)
            n += 1
        }
        if n > 0 { period = Self.findPeriod(settled) ?? period }
        return n
    }

    /// True once for each stall with a Wi-Fi cause (as soon as it is known): the rate loop's
    /// `outageNamed`.
    public mutating func takeOutageNews() -> Bool {
        defer { outageNews = false }
        return outageNews
    }

    // MARK: Reading

    /// The newest settled stall.
    public var last: Stall? { settled.last }

    /// One JSON object for the stats line.
    public var json: String {
        var members = ["\"count\":\(total)"] + Cause.allCases.map { "\"\($0.key)\":\(counts[$0.rawValue])" }
        if let s = last {
            members.append("\"last\":{\"cause\":\"\(s.cause?.key ?? "none")\",\"ms\":\(s.lengthMs),\"worst_ms\":\(s.worstMs)}")
        }
        if let p = period {
            members.append("\"period_s\":\(Self.tenths(p.seconds)),\"period_cause\":\"\(p.cause.key)\",\"period_stalls\":\(p.stalls)")
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// The overlay's words: how many stalls and their causes, the period.
    public var summary: String {
        guard total > 0 else { return "no stalls" }
        let named = Cause.allCases.filter { counts[$0.rawValue] > 0 }
            .map { "\($0.shortWords) \(counts[$0.rawValue])" }
        var text = "stalls \(total): " + named.joined(separator: ", ")
        if let p = period { text += ", every \(Self.tenths(p.seconds)) s" }
        return text
    }

    // MARK: Internals

    /// `x` with one decimal, rounded ("6.0").
    static func tenths(_ x: Double) -> String {
        let t = Int((x * 10).rounded())
        return "\(t / 10).\(abs(t % 10))"
    }

    /// `endNs` is the observation's time (now).
    private mutating func observe(_ symptom: Symptoms, startNs: UInt64, endNs: UInt64, ms: Int) {
        settle(now: endNs)
        if var open = pending.last, startNs <= open.endNs &+ Self.mergeNs {
            open.endNs = max(open.endNs, endNs)
            open.startNs = min(open.startNs, startNs)
            open.symptoms.insert(symptom)
            open.worstMs = max(open.worstMs, ms)
            pending[pending.count - 1] = open
        } else {
            if pending.count == 8 { pending.removeFirst() }
            pending.append(Stall(startNs: startNs, endNs: endNs, symptoms: symptom, worstMs: ms, cause: nil, causeOffsetNs: nil))
        }
        tellEarly(pending.count - 1)
    }

    /// An outage already explained (a Wi-Fi event at or before the stall within `nearNs`) is told
    /// at once: the rate loop must not read the window holding it as capacity.
    private mutating func tellEarly(_ index: Int) {
        let s = pending[index]
        guard !s.toldOutage, let (cause, _) = nearest(s), cause.isOutage else { return }
        pending[index].toldOutage = true
        outageNews = true
    }

    private mutating func remember(_ e: (cause: Cause, startNs: UInt64, endNs: UInt64)) {
        if events.count == Self.capacity { events.removeFirst() }
        events.append(e)
        for i in pending.indices { tellEarly(i) }
    }

    /// The event nearest to `s` within `nearNs` (distance 0 when they overlap; of two at one
    /// distance, the one that began nearer the stall's start — a disconnect that began a long
    /// outage, not the scan that came during it) and its start's offset from the stall's start.
    private func nearest(_ s: Stall) -> (Cause, Int64)? {
        var best: (cause: Cause, distance: UInt64, offset: Int64)?
        for e in events {
            let distance: UInt64 = e.endNs < s.startNs ? s.startNs - e.endNs : e.startNs > s.endNs ? e.startNs - s.endNs : 0
            guard distance <= Self.nearNs else { continue }
            let offset = Int64(bitPattern: e.startNs &- s.startNs)
            if best == nil || distance < best!.distance || (distance == best!.distance && offset.magnitude < best!.offset.magnitude) {
                best = (e.cause, distance, offset)
            }
        }
        return best.map { ($0.cause, $0.offset) }
    }

    /// The longest chain of stalls of one cause spaced by one spacing (± the tolerance), at least
    /// `periodStalls` long; the newest of equal length wins. (Stalls of different causes that
    /// happen to fall in step are no schedule: each cause's stalls are chained on their own.)
    static func findPeriod(_ stalls: [Stall]) -> Period? {
        let n = stalls.count
        guard n >= periodStalls else { return nil }
        var best: (count: Int, first: Int, last: Int)?
        for i in 0..<n {
            for j in (i + 1)..<n where stalls[j].cause == stalls[i].cause {
                let spacing = stalls[j].startNs - stalls[i].startNs
                guard spacing > 2 * periodToleranceNs else { continue }
                var members = [i, j]
                var k = j + 1
                while k < n {
                    guard stalls[k].cause == stalls[i].cause else { k += 1; continue }
                    let step = stalls[k].startNs - stalls[members.last!].startNs
                    if step + periodToleranceNs < spacing { k += 1; continue }
                    if step > spacing + periodToleranceNs { break }
                    members.append(k)
                    k += 1
                }
                guard members.count >= periodStalls else { continue }
                if best == nil || members.count > best!.count || (members.count == best!.count && members.last! > best!.last) {
                    best = (members.count, i, members.last!)
                }
            }
        }
        guard let b = best else { return nil }
        let cause = stalls[b.first].cause ?? .none
        let spacing = (stalls[b.last].startNs - stalls[b.first].startNs) / UInt64(b.count - 1)
        return Period(spacingNs: spacing, stalls: b.count, cause: cause)
    }
}
