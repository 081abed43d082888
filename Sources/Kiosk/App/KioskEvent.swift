import PunktfunkSession

/// Everything that can happen to the kiosk, as values. The runner turns devices, threads, signals
/// and timers into these and hands each to `KioskMachine.handle(_:now:)` on one thread.
public enum KioskEvent: Sendable, Equatable {
    /// The runner opened the long-lived parts: the display (or why there is none), the identity
    /// and the trust store.
    case started(StartReport)
    /// A person did something (pad, keyboard, mouse, or the command line's job).
    case user(UserAction)
    /// A person moved or acted in the shell (pad, keyboard, mouse); the screen showing decides
    /// what it means.
    case navigate(NavigationInput)
    /// The runner resolved a host's address for `job`: `key` is the `ip:port` the trust store uses.
    case resolved(job: Int, key: String)
    /// The address could not be resolved.
    case unresolvable(job: Int, sentence: String)
    /// Progress of the stream started as `job`.
    case stream(job: Int, StreamEvent)
    /// Progress of the pairing started as `job`.
    case pairing(job: Int, PairingEvent)
    /// The pointer moved or clicked (panel pixels). The runner hit-tests it into `.navigate`
    /// events; the machine ignores it.
    case pointer(PointerEvent)
    /// The controllers in use now (replaces the previous list): pads came or went, or a battery
    /// changed (read at most every 30 s).
    case controllersChanged([ControllerInfo])
    /// Discovery's current view of the network (replaces the previous one).
    case hostsChanged([HostEntry])
    /// Progress of the wake or speed test started as `job` (a job the page no longer shows is
    /// ignored).
    case shell(job: Int, ShellOutcome)
    /// The trust store as it is on disk now (after a forget).
    case trustStoreChanged(KnownHosts)
    /// What the box found about itself after start (logind's power answers, the decoders).
    case boxChecked(BoxFacts)
    /// Something worth saying that changes nothing else: the trust store or an AU dump could not
    /// be written (the stream goes on), what became of a title the session asked for.
    case notice(sentence: String)
    /// Whether the host `hostID` gives this device the launch permission (GRANT_LAUNCH, from its
    /// ServerHello's grants, an AccessUpdate, or a close 0x6A): its page says so beside the titles.
    case launchGrant(hostID: String, granted: Bool)
    /// The display was unplugged, plugged back, or another one with another mode took its
    /// place; the runner already follows it on glass.
    case displayChanged(DisplayNews)
    /// SIGINT or SIGTERM.
    case signal(QuitSignal)
    /// `nextDeadline` passed (the runner calls with the current time).
    case timer
    /// The HDMI-CEC bus asks the box to go to standby (the TV's <Standby>, the remote's power
    /// keys): with *Sleep with the TV* (`cec-standby-ends-stream`) the box goes to standby — a
    /// running stream ends, nothing shows — else nothing changes.
    case tvStandby
    /// The HDMI-CEC bus asks the box to wake (<Set Stream Path> or routing naming our address,
    /// the remote's power keys): out of standby, back where the user was.
    case tvWake
}

public enum QuitSignal: Sendable, Equatable {
    case interrupt
    case terminate

    /// The shell convention: 128 + the signal number.
    public var exitCode: Int32 { self == .interrupt ? 130 : 143 }
}

/// What the runner found at start.
public struct StartReport: Sendable, Equatable {
    public enum Display: Sendable, Equatable {
        /// A KMS display is ours: `name` is what the start-up line names (connector and mode).
        case glass(name: String)
        /// Running without a display because the user asked for it (`--headless`).
        case headlessByRequest
        /// No display to open: the sentence says why (no DRM device with a connected display, the
        /// node cannot be opened).
        case unavailable(sentence: String)
        /// A display is there but cannot be used as asked: the sentence says why (no connector
        /// with modes, the requested mode is not offered, another session holds it).
        case unusable(sentence: String)

        /// Streams and the shell go to a display.
        public var isGlass: Bool { if case .glass = self { true } else { false } }

        /// Why there is no display to use; nil when streams go to glass or headless was asked for.
        public var problem: String? {
            switch self {
            case .unavailable(let s), .unusable(let s): s
            case .glass, .headlessByRequest: nil
            }
        }
    }

    public var display: Display
    /// The hosts the trust store pins, by `ip:port`.
    public var knownHosts: KnownHosts
    /// Set when the identity or trust store cannot be used: connecting to a host is then refused
    /// with this sentence (a file or the demo host still plays).
    public var profileProblem: String?
    /// The connector's modes, `WxH@Hz` (empty without a display).
    public var displayModes: [String]
    /// ALSA playback PCMs the settings page offers.
    public var audioDevices: [String]
    /// The saved settings (display mode, bitrate, decoder, audio device); nil: none saved.
    public var config: KioskConfig?
    /// Where the config is kept (nil: nowhere).
    public var configPath: String?

    public init(display: Display, knownHosts: KnownHosts, profileProblem: String? = nil, displayModes: [String] = [],
                audioDevices: [String] = [], config: KioskConfig? = nil, configPath: String? = nil) {
        self.display = display; self.knownHosts = knownHosts; self.profileProblem = profileProblem
        self.displayModes = displayModes; self.audioDevices = audioDevices; self.config = config; self.configPath = configPath
    }
}

/// A person's action. The shell maps pad buttons, keys and clicks onto these; the command-line
/// adapters issue one at start.
public enum UserAction: Sendable, Equatable {
    /// Stream from a host (also: retry after an error), starting the title `launch` names (a
    /// library id, ClientHello tag 8; nil: the host's desktop).
    case connect(hostID: String, launch: String? = nil)
    /// Show a local file on the display (`present`).
    case play(FilePlayback)
    /// Pair with a host: the four-digit PIN it shows, or nil to ask its console for approval.
    case pair(hostID: String, pin: String?)
    /// Stop what is in progress (dialling, waiting for approval, pairing) and go back.
    case cancel
    /// Leave the current screen (an error, the in-stream menu).
    case back
    /// The escape chord while streaming: the in-stream menu over the running stream.
    case openMenu
    /// An input escape chord fired (keyboard Ctrl+Alt+Shift+Q, pad Start+Select+L1+R1, on
    /// release): on glass the in-stream menu opens (or closes); headless it ends the stream like
    /// the menu's "disconnect".
    case escapeChord
    case menu(MenuChoice)
    /// Leave the kiosk.
    case quit
}

/// The in-stream menu's entries, in display order.
public enum MenuChoice: Sendable, Equatable, CaseIterable {
    case resume
    case toggleStats
    case disconnect
    case quit
}

/// A local Annex-B HEVC file shown at a fixed rate (`present FILE`).
public struct FilePlayback: Sendable, Equatable {
    public var path: String
    public var fps: Double
    /// How many times the file plays.
    public var passes: Int
    /// Stop after this long (nil: when the last pass ends).
    public var seconds: Double?

    public init(path: String, fps: Double, passes: Int, seconds: Double?) {
        self.path = path; self.fps = fps; self.passes = passes; self.seconds = seconds
    }
}

/// Progress of one stream, in the order it usually happens.
public enum StreamEvent: Sendable, Equatable {
    /// The host holds the connection until its console approves this device (Pending frames so far).
    case waitingForApproval(count: Int)
    /// The handshake finished. `peerFingerprint` is the host certificate seen in TLS; `redirected`
    /// when the session runs on another host than the one dialled (control-plane.md §3.4).
    case established(peerFingerprint: String?, redirected: Bool)
    /// The first picture was decoded: the stream can take the display.
    case firstPicture
    /// The connection was lost; the session is being resumed (attempt from 1).
    case resuming(attempt: Int)
    case ended(StreamEnd)
}

public enum StreamEnd: Sendable, Equatable {
    /// It ran its course: the requested time passed, the file played, or it was asked to stop.
    case finished
    /// It could not start or broke off: the host refused or closed with a code, the network
    /// failed, nothing could be decoded. The sentence is for the screen.
    case failed(sentence: String)
}

/// Progress of one pairing.
public enum PairingEvent: Sendable, Equatable {
    case waitingForApproval(count: Int)
    /// The host is trusted: pin this fingerprint from now on.
    case paired(fingerprint: String)
    /// The sentence says what went wrong (a wrong PIN says that the guess was used).
    case failed(sentence: String)
}
