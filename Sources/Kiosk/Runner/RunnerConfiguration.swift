import VideoFrames
import Screen
import VideoDecode
import Input

/// What the runner opens and how it runs streams; the command-line adapters fill it from their
/// options (one option group per concern).
public struct RunnerConfiguration {
    /// The display: none (`--headless`) or a screen (KMS or Wayland, the command line's choice)
    /// opened once for the whole process.
    public enum DisplayChoice {
        case headless
        /// Opens the screen; `reason` says on the start-up line why this backend was chosen (unless
        /// `open` tried several and names the one that opened in `OpenedScreen.reason`).
        /// `required` (a backend named with `--display kms|wayland|x11`): a screen that cannot be
        /// opened ends the process (exit 2) instead of running headless, as only `auto` may.
        case screen(reason: String, required: Bool = false, open: () throws(ScreenError) -> OpenedScreen)
    }

    /// A screen `DisplayChoice.screen`'s `open` made, and why it is the one (nil: the choice's reason).
    public struct OpenedScreen {
        public var screen: any Screen
        public var reason: String?
        public init(_ screen: any Screen, reason: String? = nil) { self.screen = screen; self.reason = reason }
    }

    /// Whose identity dials hosts.
    public enum Profile {
        /// The client identity and trust store in the XDG config directory (created on first use).
        case configDirectory
        /// No client certificate and an empty trust store (the embedded demo host, pinned by its
        /// given fingerprint); nothing is read or written.
        case anonymous
    }

    /// When the per-second session stats go to stdout as JSON lines.
    public enum StatsLines {
        case always
        case whenHeadless
        case never
    }

    public var display: DisplayChoice
    /// How pictures whose size differs from the screen's are shown (`--scaling`, config
    /// `scaling`, the shell's settings for the next stream).
    public var scaling: PictureScaling = .fit
    public var profile: Profile
    /// Decoder rungs for live sessions, tried in order.
    public var decoder: [DecoderRungKind]
    /// The VA-API rung's sync path (the config's `decode-sync`).
    public var decodeSync: DecodeSyncSetting = .auto
    /// Decode a headless session too (pictures are counted and released; a line at the end says
    /// how many); otherwise a headless session only moves access units.
    public var decodeWhenHeadless: Bool
    /// Session length after establishment, seconds (nil: until the host ends it or the user quits).
    public var sessionSeconds: Double?
    public var statsLines: StatsLines
    /// Write every complete AU as `DIR/<frame>.au`.
    public var dumpAccessUnits: String?
    /// `--picture-log FILE`: every decoded picture's frame, MD5 and whether it was shown (`PictureLog`).
    public var pictureLog: String?
    /// A speed test one second in: this many kbit/s of probe filler for 1 s, the result as a JSON line.
    public var probeKbps: UInt32?
    /// The name a host shows for this device when pairing.
    public var deviceName: String
    /// What a session's hello may ask for (the config's `hdr`, `audio-channels`, …), narrowed to
    /// what the box can do by `HelloPlan`.
    public var hello = HelloSettings()
    /// Test-harness hooks; the product leaves them empty.
    public var harness: HarnessHooks
    /// The video bitrate the host is asked for, kbit/s (nil: the host's choice); in `.auto` mode
    /// also the rate loop's ceiling.
    public var bitrateKbps: UInt32?
    /// `.auto`: the rate follows the line (`RateLoop`); `.fixed`: it never moves.
    public var bitrateMode: BitrateMode = .auto
    /// `--rate-log FILE`: one JSON line per Feedback window of the rate loop (`RateLoop.logLine`).
    public var rateLog: String?
    /// Read keyboards, mice and pads into live sessions (nil: no input, `--input none`).
    public var input: InputService.Options?
    /// Where a live session's sound goes: nowhere (the default here), the HDMI/DP output of the
    /// display (else ALSA's `default`), or a named ALSA PCM.
    public var audio: AudioChoice = .none
    /// SCHED_FIFO priority of the audio sink thread (0: SCHED_OTHER); below the present thread's.
    public var audioRealtimePriority: Int32 = 5
    /// ALSA capture device for the mic uplink (nil: none); used when the host grants the mic.
    public var micDevice: String?
    /// Opens the screen's own keyboard and mouse (a compositor's seat) delivering into the input
    /// service; nil for a screen that has none. Set by the executable, which knows the backends.
    public var openSeat: ((any Screen, InputService) -> SeatLink?)?
    /// One JSON line per shell screen that reached glass, on stdout: `{"shell":"home","flip":N}`
    /// (the VM harness waits on these before its screendumps).
    public var shellTrace = false

    public enum AudioChoice: Equatable {
        case none
        case automatic
        case device(String)
    }

    public init(display: DisplayChoice, profile: Profile = .configDirectory, decoder: [DecoderRungKind] = [.software],
                decodeWhenHeadless: Bool = false, sessionSeconds: Double? = nil, statsLines: StatsLines = .always,
                dumpAccessUnits: String? = nil, probeKbps: UInt32? = nil, deviceName: String = "punktfunk-kiosk",
                harness: HarnessHooks = HarnessHooks()) {
        self.display = display; self.profile = profile; self.decoder = decoder
        self.decodeWhenHeadless = decodeWhenHeadless; self.sessionSeconds = sessionSeconds
        self.statsLines = statsLines; self.dumpAccessUnits = dumpAccessUnits; self.probeKbps = probeKbps
        self.deviceName = deviceName; self.harness = harness
    }
}

/// The seam where a test harness reaches into a run. Nothing in the product sets these; the
/// `KioskHarness` target builds them from options that `--help` does not show.
public struct HarnessHooks {
    /// Rewrites each picture of a file before it is presented (the vgem dma-buf exporter).
    public var filePicture: ((DecodedPicture) throws -> DecodedPicture)?

    public init(filePicture: ((DecodedPicture) throws -> DecodedPicture)? = nil) {
        self.filePicture = filePicture
    }
}
