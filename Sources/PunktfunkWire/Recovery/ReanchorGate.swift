/// The decoder-side freeze after a loss (data-plane.md §4.3, "decoder-side gate"), sans I/O:
/// once a loss is known, no decoded picture is shown until a proven clean re-anchor, and the last
/// good picture stays on the screen meanwhile.
///
/// - Armed by a loss: a frame-index gap, a decoder error, a picture the decoder marked damaged
///   while not frozen, or `noOutputStreak` access units in a row that gave no picture.
/// - Lifted only by a decoded picture that is a keyframe (user flag 0x04), an RFI anchor (0x20),
///   or the end of an intra-refresh wave begun after the arm: the first close (0x200, set beside
///   0x10) after a wave start (0x10 alone) seen since the arm on a host that marks closes, else the
///   second recovery point (0x10) since the arm. A damaged picture never lifts and never shows.
/// - While frozen, `poll` asks for a keyframe every `backstopNs` (never shows anything); a
///   recovery mark while frozen pushes that deadline to `markPatienceNs` (a wave is healing).
/// - Re-arming while frozen resets the mark count and the backstop.
///
/// Times are CLOCK_MONOTONIC ns passed in.
public struct ReanchorGate: Sendable {
    public static let backstopNs: UInt64 = 500_000_000
    public static let noOutputStreak = 3
    public static let marksToLift = 2
    public static let markPatienceNs: UInt64 = 1_500_000_000
    public static let keyframeFlag: UInt32 = 0x04
    public static let recoveryPointFlag: UInt32 = 0x10
    public static let recoveryAnchorFlag: UInt32 = 0x20
    public static let recoveryCloseFlag: UInt32 = 0x200

    public enum Verdict: Equatable, Sendable { case show, hold }

    /// Why the picture is held (said by the stats line and the overlay).
    public enum Reason: String, Equatable, Sendable {
        case frameLoss = "frame loss"
        case decoderError = "decoder error"
        case damagedPicture = "damaged picture"
        case noOutput = "no picture from the decoder"
    }

    /// What lifted a freeze.
    public enum Lift: String, Equatable, Sendable {
        case keyframe, anchor, wave
    }

    public private(set) var holding = false
    public private(set) var reason: Reason?
    /// When the current freeze began (nil when not frozen).
    public private(set) var heldSince: UInt64?
    /// Freezes so far, freezes lifted, total ns frozen (finished freezes), the last freeze's length.
    public private(set) var freezes = 0
    public private(set) var lifts = 0
    public private(set) var heldTotalNs: UInt64 = 0
    public private(set) var lastHoldNs: UInt64 = 0
    public private(set) var longestHoldNs: UInt64 = 0
    public private(set) var lastLift: Lift?
    /// Pictures held back, and keyframe asks the gate made (backstop, no-output streak).
    public private(set) var picturesHeld = 0
    public private(set) var keyframeAsks = 0

    private var marks = 0
    /// The host marks wave closes with 0x200 (latched on first sight).
    private var hostMarksCloses = false
    private var deadline: UInt64?
    private var noOutputRun = 0

    public init() {}

    /// A loss: hold from now on until a clean re-anchor.
    public mutating func arm(_ why: Reason, now: UInt64) {
        if !holding {
            holding = true
            heldSince = now
            freezes += 1
        }
        reason = why
        marks = 0
        deadline = now &+ Self.backstopNs
    }

    /// One decoded picture of an access unit with `userFlags`; `damaged` when the decoder knows it
    /// is inexact. Returns whether it may be shown.
    public mutating func decoded(userFlags flags: UInt32, damaged: Bool, now: UInt64) -> Verdict {
        noOutputRun = 0
        let keyframe = flags & Self.keyframeFlag != 0
        let anchor = flags & Self.recoveryAnchorFlag != 0
        let close = flags & Self.recoveryCloseFlag != 0
        let mark = flags & Self.recoveryPointFlag != 0 || close
        if close { hostMarksCloses = true }
        if damaged {
            // Whatever the wire says, a picture made from a concealed one is the artifact.
            if !holding { arm(.damagedPicture, now: now) }
            picturesHeld += 1
            return .hold
        }
        guard holding else { return .show }
        if mark { deadline = now &+ Self.markPatienceNs }
        var swept = false
        if hostMarksCloses {
            if close { swept = marks >= 1 } else if mark { marks += 1 }
        } else if mark {
            marks += 1
            swept = marks >= Self.marksToLift
        }
        if keyframe || anchor || swept {
            lift(keyframe ? .keyframe : anchor ? .anchor : .wave, now: now)
            return .show
        }
        picturesHeld += 1
        return .hold
    }

    /// An access unit the decoder took gave no picture. True when the streak asks for a keyframe
    /// (the freeze is armed then).
    public mutating func noOutput(now: UInt64) -> Bool {
        noOutputRun += 1
        guard noOutputRun >= Self.noOutputStreak else { return false }
        noOutputRun = 0
        arm(.noOutput, now: now)
        keyframeAsks += 1
        return true
    }

    /// The backstop: true when the freeze has waited `backstopNs` (or a wave's patience) for a
    /// re-anchor — ask for a keyframe and keep holding.
    public mutating func poll(now: UInt64) -> Bool {
        guard holding, let d = deadline, now >= d else { return false }
        deadline = now &+ Self.backstopNs
        keyframeAsks += 1
        return true
    }

    /// How long the current freeze has lasted, ns (0 when not frozen).
    public func heldFor(now: UInt64) -> UInt64 {
        guard let since = heldSince, now >= since else { return 0 }
        return now - since
    }

    private mutating func lift(_ by: Lift, now: UInt64) {
        let held = heldFor(now: now)
        heldTotalNs &+= held
        lastHoldNs = held
        longestHoldNs = max(longestHoldNs, held)
        lastLift = by
        lifts += 1
        holding = false
        heldSince = nil
        deadline = nil
        marks = 0
    }
}
