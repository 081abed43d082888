import PunktfunkSession

/// The whole state of the box's life: which phase it is in, the hosts it knows about, and the
/// settings that outlive one stream. A value: `KioskMachine` replaces it event by event, and a
/// screen is drawn from it alone.
public struct KioskState: Sendable, Equatable {
    public var phase: KioskPhase = .starting
    /// Hosts to choose from: the command line's, then discovery's (by id, first wins).
    public var hosts: [HostEntry] = []
    /// The trust store as last loaded or written.
    public var knownHosts = KnownHosts()
    /// What the runner found at start (nil until `.started`).
    public var display: StartReport.Display?
    /// Why hosts cannot be dialled (identity or trust store unusable); nil when they can.
    public var profileProblem: String?
    /// The stats overlay on the stream.
    public var statsOverlay = false
    /// A passing message that does not change the phase (a toast on the shell, a line on stderr).
    public var notice: String?
    /// Hosts known not to give this device the launch permission (their latest session said so).
    public var launchNotGranted: Set<String> = []
    /// The shell's pages, focus, typed drafts and settings.
    public var shell = ShellState()
    /// The controllers in use, by slot (the settings' controllers page).
    public var controllers: [ControllerInfo] = []
    /// On, or in standby (`BoxPower`): the TV's standby, the box's own idle standby.
    public var power = BoxPower.on

    public init() {}

    /// The host with `id`, if listed.
    public func host(_ id: String) -> HostEntry? { hosts.first { $0.id == id } }
}

/// The phases of the box's life. Every phase except `leaving` has a way forward and a way back.
public enum KioskPhase: Sendable, Equatable {
    /// The runner opens the display and the stores.
    case starting
    /// The host list. `focus` is the host the cursor is on (nil: none listed).
    case choosingHost(focus: String?)
    case pairing(PairingProgress)
    case connecting(ConnectProgress)
    case streaming(StreamProgress)
    /// The in-stream menu over the stream, which keeps playing underneath.
    case inStreamMenu(StreamProgress, selection: MenuChoice)
    /// Something went wrong: the sentence, and the host to retry (nil: back to the list only).
    case error(sentence: String, retry: String?)
    /// Ending the process once the running job has stopped, or its deadline passed.
    case leaving(Leaving)
}

/// The way out: the status to end with, why (said once, nil for a plain end), and the stream
/// still being stopped.
public struct Leaving: Sendable, Equatable {
    public var code: Int32
    public var reason: String?
    /// The stream whose end is awaited (nil: nothing runs).
    public var job: Int?
    /// End regardless at this time (CLOCK_MONOTONIC ns); `UInt64.max` once the exit was issued.
    public var deadlineNs: UInt64

    public init(code: Int32, reason: String?, job: Int?, deadlineNs: UInt64) {
        self.code = code; self.reason = reason; self.job = job; self.deadlineNs = deadlineNs
    }
}

/// A stream being started: which job, of what, and the step it has reached.
public struct ConnectProgress: Sendable, Equatable {
    public var job: Int
    public var target: StreamTarget
    public var step: ConnectStep

    public init(job: Int, target: StreamTarget, step: ConnectStep) {
        self.job = job; self.target = target; self.step = step
    }
}

/// Where a stream comes from.
public enum StreamTarget: Sendable, Equatable {
    /// A host, and the title its session starts (nil: its desktop).
    case host(HostEntry, launch: String? = nil)
    case file(FilePlayback)

    /// The host's id (nil for a file).
    public var hostID: String? {
        if case .host(let h, _) = self { return h.id }
        return nil
    }
}

/// The visible steps of starting a stream, in order.
public enum ConnectStep: Sendable, Equatable {
    /// Looking up the host's address.
    case resolving
    /// Dialling and the handshake (QUIC, TLS, ClientHello → ServerHello).
    case dialing(key: String, trust: TrustDecision)
    /// The host's console has to approve this device first (Pending frames so far).
    case waitingForApproval(key: String, trust: TrustDecision, count: Int)
    /// Established; waiting for the first decodable picture.
    case awaitingPicture
    /// Lost before the first picture; the session is being resumed (attempt from 1).
    case resuming(attempt: Int)
}

/// A running stream.
public struct StreamProgress: Sendable, Equatable {
    public var job: Int
    public var target: StreamTarget
    /// When the first picture arrived (CLOCK_MONOTONIC ns).
    public var sinceNs: UInt64
    /// Set while a lost connection is being resumed (attempt from 1).
    public var resuming: Int?

    public init(job: Int, target: StreamTarget, sinceNs: UInt64, resuming: Int? = nil) {
        self.job = job; self.target = target; self.sinceNs = sinceNs; self.resuming = resuming
    }
}

/// A pairing in progress.
public struct PairingProgress: Sendable, Equatable {
    public var job: Int
    public var host: HostEntry
    /// The PIN to use, or nil to ask the host's console.
    public var pin: String?
    public var step: PairingStep

    public init(job: Int, host: HostEntry, pin: String?, step: PairingStep) {
        self.job = job; self.host = host; self.pin = pin; self.step = step
    }
}

public enum PairingStep: Sendable, Equatable {
    case resolving
    /// The ceremony runs with the host at `key`.
    case exchanging(key: String)
    /// The host's console has to approve (request access; Pending frames so far).
    case waitingForApproval(key: String, count: Int)
}
