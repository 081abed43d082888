/// How a wake or speed test started as a job goes (`KioskEvent.shell(job:_:)`).
public enum ShellOutcome: Sendable, Equatable {
    /// Magic packets went out: `sent` of `destinations` sends the kernel took.
    case wakeSent(sent: Int, destinations: Int)
    /// Seconds since the packets went out (once a second while waiting).
    case waited(seconds: Int)
    /// `WakeProgress.limitSeconds` passed without the host showing.
    case wakeTimedOut
    /// Nothing could be sent (no MAC known, every send refused): the sentence says why.
    case wakeFailed(sentence: String)
    /// The speed test's session reached a step.
    case speedTestStep(SpeedTestStep)
    case speedTestDone(SpeedTestResult)
    case speedTestFailed(sentence: String)
}

/// What a speed test measured.
public struct SpeedTestResult: Sendable, Equatable {
    /// Probe throughput on arrival, kbit/s.
    public var throughputKbps: Double
    /// Probe packets the host sent that did not arrive, percent.
    public var lossPercent: Double
    /// Smoothed round-trip time of the session, ms (nil: not measured yet).
    public var rttMs: Double?
    /// The probe rate asked for, kbit/s (a throughput near it means the link may carry more).
    public var targetKbps: UInt32

    public init(throughputKbps: Double, lossPercent: Double, rttMs: Double?, targetKbps: UInt32) {
        self.throughputKbps = throughputKbps; self.lossPercent = lossPercent; self.rttMs = rttMs; self.targetKbps = targetKbps
    }

    /// The video bitrate to ask for, kbit/s: 70 % of what arrived (headroom for FEC, audio and
    /// the link's bad moments), rounded down to 1 Mbit/s, at least 2 Mbit/s. Loss during the burst
    /// is expected when the target exceeds the link; what arrived is what the link carries.
    public var suggestedKbps: UInt32 {
        let kbps = UInt32(max(0, min(throughputKbps * 0.7, 4_000_000)))
        return max(2_000, kbps / 1_000 * 1_000)
    }
}

public enum SpeedTestStep: Sendable, Equatable {
    /// Resolving, dialling and the handshake.
    case connecting
    /// The probe burst runs.
    case measuring
}

/// The wake page: which job, which host, how far the wait is.
public struct WakeProgress: Sendable, Equatable {
    /// How long the wait lasts, seconds.
    public static let limitSeconds = 60

    public var job: Int
    public var hostID: String
    public var seconds = 0
    /// Sends the kernel took (nil until the packets went out), of `destinations`.
    public var sent: Int?
    public var destinations = 0
    /// Set when the wait ended without the host: the sentence says why.
    public var failure: String?

    public init(job: Int, hostID: String) { self.job = job; self.hostID = hostID }
}

/// The speed test page: its job, host and where it is.
public struct SpeedTestProgress: Sendable, Equatable {
    public enum Stage: Sendable, Equatable {
        case running(SpeedTestStep)
        case done(SpeedTestResult)
        case failed(sentence: String)
    }

    public var job: Int
    public var hostID: String
    public var stage: Stage = .running(.connecting)
    /// With a result: whether "Use N Mbit/s" has the focus (else "Back").
    public var useFocused = true

    public init(job: Int, hostID: String) { self.job = job; self.hostID = hostID }

    public var isRunning: Bool { if case .running = stage { true } else { false } }

    /// The result, once measured.
    public var result: SpeedTestResult? { if case .done(let r) = stage { r } else { nil } }
}

/// What the box found about itself once it was up (off the runner's thread).
public struct BoxFacts: Sendable, Equatable {
    public var power: PowerAbility
    /// One line on what can decode HEVC here (VA-API nodes and profiles, else software only).
    public var decoders: String

    public init(power: PowerAbility, decoders: String) { self.power = power; self.decoders = decoders }
}

/// Whether logind lets this user power off or restart the box without anyone authenticating
/// (CanPowerOff / CanReboot answered "yes"; "challenge" would need a password nobody can type on
/// a kiosk, so it counts as not allowed).
public struct PowerAbility: Sendable, Equatable {
    public var canPowerOff: Bool
    public var canRestart: Bool
    /// Why one or both are not offered (nil when both are).
    public var sentence: String?

    public init(canPowerOff: Bool, canRestart: Bool, sentence: String?) {
        self.canPowerOff = canPowerOff; self.canRestart = canRestart; self.sentence = sentence
    }
}
