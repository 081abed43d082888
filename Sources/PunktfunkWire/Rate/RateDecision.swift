/// What the rate loop decided and why: the stats line, the overlay and the `--rate-log` file say
/// it. A value type without strings, so a decision taken on the per-frame path allocates nothing;
/// `reason.text` builds the sentence fragment when someone reads it.
public struct RateDecision: Equatable, Sendable {
    public enum Kind: String, Equatable, Sendable {
        /// The asked rate went down.
        case cut
        /// The asked rate went up.
        case climb
        /// A window judged and nothing moved (the reason says what held it).
        case hold
        /// Frame shaping asked for (Feedback tag 16).
        case shape
        /// A wall re-tried above its learned rate.
        case probe
        /// The bring-up ramp set the start.
        case ramp
        /// The host's answer moved the rate or a ceiling (an ack, not an ask).
        case adopt
    }

    /// Why, with the numbers that decided it.
    public enum Reason: Equatable, Sendable {
        /// The per-frame detector: the delay rose by `ms` over the minimum across `frames` frames.
        case delayRose(ms: Int, frames: Int)
        /// The delay stood `ms` over the minimum for `windows` windows without draining.
        case delayStanding(ms: Int, windows: Int)
        /// Loss past FEC's comfort at once (ppm of shards).
        case loss(ppm: UInt32)
        /// Loss with frames lost for good, `windows` windows in a row.
        case lossWithLostFrames(ppm: UInt32, frames: UInt32, windows: Int)
        case headLoss
        case outage
        case outageNamed
        case pipelineGap
        /// Climbs.
        case cleanProbe(percent: Int)
        case cleanUnderWall
        case wallRetry(percent: Int)
        case wallRetryRefused
        case wallGone
        /// Holds.
        case ceiling
        case appLimited
        case decoderBusy
        case encoderBusy
        case draining
        case notClean
        case waitingForWall
        case asksUnanswered
        case silent
        /// Host answers.
        case granted
        case encoderLimit
        case cadence
        case governor
        case governorReleased
        case pinned
        case ramp(wallKbps: UInt32?)

        /// A short lowercase sentence fragment.
        public var text: String {
            switch self {
            case let .delayRose(ms, frames): return "delay rose \(ms) ms over \(frames) frames"
            case let .delayStanding(ms, windows): return "delay \(ms) ms over the minimum for \(windows) windows"
            case let .loss(ppm): return "loss \(Self.percent(ppm)) %"
            case let .lossWithLostFrames(ppm, frames, windows):
                return "loss \(Self.percent(ppm)) % with \(frames) lost frames, \(windows) windows"
            case .headLoss: return "head loss: waking receiver"
            case .outage: return "outage: not a capacity verdict"
            case .outageNamed: return "named outage: its cut undone"
            case .pipelineGap: return "pipeline gap: window discarded"
            case let .cleanProbe(p): return "clean: +\(p) %"
            case .cleanUnderWall: return "clean: back under the wall"
            case let .wallRetry(p): return "wall retry +\(p) %"
            case .wallRetryRefused: return "wall held: retry refused"
            case .wallGone: return "wall gone: probing"
            case .ceiling: return "ceiling"
            case .appLimited: return "delivered under 3/4 of the rate"
            case .decoderBusy: return "decoder at its frame budget"
            case .encoderBusy: return "host encoder at its frame budget"
            case .draining: return "queue draining"
            case .notClean: return "window not clean"
            case .waitingForWall: return "under the wall, retry pending"
            case .asksUnanswered: return "asks unanswered"
            case .silent: return "no acks for 10 s: silent"
            case .granted: return "host retarget"
            case .encoderLimit: return "encoder limit"
            case .cadence: return "encoder behind"
            case .governor: return "shared path"
            case .governorReleased: return "shared path released"
            case .pinned: return "pinned"
            case let .ramp(wall):
                if let wall { return "ramp: wall \(wall) kbps" }
                return "ramp: no wall"
            }
        }

        /// ppm as a percentage with one decimal ("7.1").
        static func percent(_ ppm: UInt32) -> String {
            let tenths = (UInt64(ppm) + 500) / 1000
            return "\(tenths / 10).\(tenths % 10)"
        }
    }

    public var kind: Kind
    public var reason: Reason
    /// The asked rate before and after, kbps (equal for holds and shapes).
    public var fromKbps: UInt32
    public var toKbps: UInt32
    /// The delivered wire rate the decision saw, kbps (0 = none measured).
    public var deliveredKbps: UInt32
    /// When, CLOCK_MONOTONIC ns.
    public var atNs: UInt64

    public init(kind: Kind, reason: Reason, fromKbps: UInt32, toKbps: UInt32, deliveredKbps: UInt32 = 0, atNs: UInt64) {
        self.kind = kind
        self.reason = reason
        self.fromKbps = fromKbps
        self.toKbps = toKbps
        self.deliveredKbps = deliveredKbps
        self.atNs = atNs
    }
}
