import VideoFrames

/// `Screen` — the one seam between the application and "the screen": what it shows at, the
/// shell's canvas, a panel over the stream, a stream's pictures on glass and when they got there,
/// what changed, giving it back and taking it again. Two backends implement it: KMS (`Display`,
/// a DRM device owned from a TTY) and Wayland (`WaylandDisplay`, a fullscreen toplevel under a
/// compositor). The runner names no type of either.
///
/// Threading: every call is made on the thread that opened the screen (the presenting thread).
/// Frame ids are the caller's and unique over the process (canvas and video share them).
public protocol Screen: AnyObject {
    /// The start-up line's name for what runs on glass (`HDMI-A-1 1920x1080@60`,
    /// `wayland sway HEADLESS-1 1280x720@60`).
    var name: String { get }
    /// `kms` or `wayland` (the JSON stats and the start-up line).
    var backendName: String { get }
    /// The mode pictures are laid out for now (pixels, scale applied).
    var mode: ScreenMode { get }
    /// The modes a user may choose from (settings); the current one when the screen has no list.
    var modes: [ScreenMode] { get }
    /// The DRM node the screen scans out from or the compositor composites on (a VA-API device
    /// on the same GPU is preferred; the sound's ELD is matched against it). nil: unknown.
    var deviceNode: String? { get }
    /// The output's connector name (`HDMI-A-1`) when known: the sound's ELD match.
    var connectorName: String? { get }
    /// Whether frames can reach glass now (not given away to another VT, an output attached).
    var isActive: Bool { get }
    /// true under a compositor: keyboards and mice are its devices and reach the kiosk through
    /// its seat, not evdev (pads stay on evdev either way).
    var keyboardsAndMiceAreTheScreens: Bool { get }

    // MARK: Waiting between streams

    /// Descriptors the runner polls while no stream is on glass, in a fixed order; called right
    /// before each poll (a Wayland backend flushes and prepares its read here).
    func prepareWait() -> [Int32]
    /// After the poll: `readable[i]` for `prepareWait()`'s descriptor `i` (a Wayland backend
    /// reads or cancels its prepared read here). Completed canvas commits, hot-plugs and resizes
    /// are taken in; what the rest of the application must hear is returned.
    func finishWait(readable: [Bool]) -> [ScreenChange]
    /// When `finishWait` wants to run again without any descriptor (a retry), CLOCK_MONOTONIC ns.
    var nextDeadlineNs: UInt64? { get }
    /// A VT switch request or a quit signal, while no stream presents.
    func handle(_ signal: SignalWatch.Event)
    /// Ctrl+Alt+F`n` typed on a grabbed keyboard: the switch the console would have made. The
    /// one member any thread may call (the input thread does). nil under a compositor, which
    /// sees its own keys.
    var consoleSwitch: ((Int) -> Void)? { get }

    // MARK: The shell's canvas

    /// Whether a canvas commit can go out now (active and none in flight).
    var canCommitCanvas: Bool { get }
    /// Whether the last commit that reached glass (or is on its way) was a canvas.
    var showsCanvas: Bool { get }
    /// A free canvas buffer of the whole mode for frame `id` (nil: none free yet).
    func canvas(id: UInt64) throws(ScreenError) -> ScreenCanvas?
    /// Puts canvas `id` on glass (its pixels drawn; `damage`: what changed in it, or nil for all).
    func commitCanvas(id: UInt64, damage: [PixelRect]?) throws(ScreenError)
    /// Gives frame `id`'s buffer back (a canvas that was replaced, or one that could not be committed).
    func release(frame id: UInt64)
    /// Takes the time the newest canvas commit reached glass, once (CLOCK_MONOTONIC ns; nil: none
    /// arrived since the last call, or one is still in flight).
    func takeCanvasShown() -> UInt64?

    // MARK: Over the stream

    /// The panel over the stream (stats overlay, in-stream menu, toasts): premultiplied ARGB at
    /// its position, shown with the next frame (or re-committed by itself when no frame comes).
    func setPanel(_ image: OverlayImage?)
    /// The panel image on glass now (its generation says which).
    var panelOnGlass: OverlayImage? { get }
    /// One line on stderr naming how the panel is shown (`{"overlay":"plane 40"}`, `"subsurface"`,
    /// `"composited"` or `"none (why)"`).
    func reportPanelRoute()

    // MARK: A stream on glass

    /// How pictures whose size differs from the screen's are shown (`PlaneGeometry.place`), from
    /// the next picture on.
    var scaling: PictureScaling { get set }
    /// The screen's own counters for the per-second JSON stats line, as one JSON object member
    /// (`"display":{…}`); nil when it keeps none there (KMS: its flip log). Presenting thread.
    var statsMember: String? { get }
    /// Whether this screen can draw the host's pointer over a stream (the hello's
    /// CLIENT_CAP_CURSOR): KMS with a cursor plane on its CRTC; a compositor's seat (its cursor
    /// surface); an X server with RENDER's ARGB cursors and XInput 2.2 (the window's cursor).
    var canDrawPointer: Bool { get }
    /// How the pointer is drawn, or why not (`plane 33 (64x64)`, `none (…)`).
    var pointerRoute: String { get }
    /// The host's pointer over the stream from the next commit on (nil: none drawn); a change
    /// while no picture comes goes out by itself. KMS draws it at its place; a windowed screen
    /// makes it the system cursor, whose place is the local pointer's. Presenting thread.
    func setPointer(_ pointer: ScreenPointer?)
    /// The host's HDR static metadata for the next commits (nil: SDR).
    func setHDRMetadata(_ metadata: HDRStaticMetadata?)
    /// Whether this screen can show HDR10 now, with the panel's metadata (ClientHello tag 13),
    /// or why not. Read when a hello is built; KMS: the connector's HDR properties and EDID.
    var hdrCapability: ScreenHDRCapability { get }
    /// Presents a stream from `first` until `steps` says `.end`, a quit signal, or the screen is
    /// lost. - Throws: `ScreenError` when the stream cannot be shown at all (its first picture
    /// refused); the picture is released by the screen in every case.
    func present(first: DecodedPicture, _ presentation: StreamPresentation,
                 steps: () throws -> StreamStep) throws -> StreamOutcome

    // MARK: Leaving

    /// Restores what was there before (KMS: the saved CRTC state, the VT; Wayland: disconnects).
    /// Idempotent.
    func close()
}

extension Screen {
    public var keyboardsAndMiceAreTheScreens: Bool { false }
    public var statsMember: String? { nil }
    public var canDrawPointer: Bool { false }
    public var pointerRoute: String { "none (this screen cannot draw it)" }
    public func setPointer(_ pointer: ScreenPointer?) {}
    public var hdrCapability: ScreenHDRCapability { .none(reason: "this screen cannot tell whether the panel shows HDR") }
}

/// What a stream source yields on each call of the present loop.
public enum StreamStep {
    case frame(SourcedFrame)
    /// Nothing ready yet (a live source); the loop sleeps until a wake descriptor is readable, a
    /// picture reached glass, a signal or a deadline.
    case notYet
    case end
}

/// How `Screen.present` runs one stream, and what it tells its owner while it does.
public struct StreamPresentation {
    /// A file's picture rate (frame k is due at start + k/fps when `followSchedule`); a live
    /// stream paces itself and passes the screen's refresh.
    public var fps: Double
    public var followSchedule: Bool
    /// Readable when the source has a new picture or the owner has news (eventfds; at most three).
    public var wakeDescriptors: [Int32]
    /// Once per pass of the loop, whatever woke it (keep it to a flag check when idle).
    public var onPass: (() -> Void)?
    /// Frame `id` reached glass at `glassNs` (CLOCK_MONOTONIC); `readyNs`: when it was ready.
    public var onShown: ((_ id: UInt64, _ glassNs: UInt64, _ readyNs: UInt64) -> Void)?
    /// What changed on the screen while the stream runs (the loop has followed it already).
    public var onChange: ((ScreenChange) -> Void)?
    /// SIGINT/SIGTERM end the stream (`.interrupted`); VT switches are the KMS loop's own.
    public var signals: SignalWatch?

    public init(fps: Double, followSchedule: Bool, wakeDescriptors: [Int32] = [], signals: SignalWatch?) {
        self.fps = fps; self.followSchedule = followSchedule; self.wakeDescriptors = wakeDescriptors
        self.signals = signals
    }
}

/// How a stream on glass ended.
public enum StreamOutcome: Sendable, Equatable {
    /// The source ended (and its last picture reached glass).
    case finished
    /// SIGINT / SIGTERM.
    case interrupted(SignalWatch.Event)
    /// The screen went away (the compositor closed): `sentence` says why.
    case lost(sentence: String)
}
