/// What the read-only X11 probe saw of the X server (`X11Probe` in X11Display; the gatherer
/// copies its result here, so this module stays free of libxcb).
public struct X11Observation: Sendable, Equatable {
    /// An extension's version as the server answered.
    public struct Version: Sendable, Equatable, Comparable, CustomStringConvertible {
        public var major: UInt32
        public var minor: UInt32
        public init(_ major: UInt32, _ minor: UInt32) { self.major = major; self.minor = minor }
        public var description: String { "\(major).\(minor)" }
        public static func < (a: Version, b: Version) -> Bool { (a.major, a.minor) < (b.major, b.minor) }
    }

    /// An active RandR CRTC.
    public struct Output: Sendable, Equatable {
        /// Its outputs' names joined ("HDMI-1"; Xvfb: "screen"), or "CRTC <id>" when it names none.
        public var name: String
        public var x: Int, y: Int, width: Int, height: Int
        /// mHz; 0: the mode gives no refresh (Xvfb's modes have no dot clock).
        public var refreshMilliHz: Int
        public init(name: String, x: Int = 0, y: Int = 0, width: Int, height: Int, refreshMilliHz: Int) {
            self.name = name; self.x = x; self.y = y; self.width = width; self.height = height; self.refreshMilliHz = refreshMilliHz
        }
    }

    public enum WindowManager: Sendable, Equatable {
        /// No `_NET_SUPPORTING_WM_CHECK` on the root.
        case none
        /// The root's check window is gone or does not name itself (a manager that exited).
        case stale
        /// An EWMH manager; nil: it gives no `_NET_WM_NAME`.
        case running(name: String?)
    }

    /// `DISPLAY`.
    public var display: String
    /// Why the probe could not connect or finish (nil: it did).
    public var error: String?
    public var vendor: String
    public var release: UInt32
    /// The root window, pixels.
    public var rootWidth: Int, rootHeight: Int
    public var outputs: [Output]
    public var present: Version?
    public var shm: Version?
    public var dri3: Version?
    public var xinput: Version?
    public var xtest: Version?
    public var xfixes: Version?
    public var randr: Version?
    /// An MIT-SHM segment passed by fd could be attached; else `shmAttachError` says why (nil: not tried).
    public var shmAttachWorks: Bool
    public var shmAttachError: String?
    /// The server is Xwayland (the `XWAYLAND` extension, or RandR outputs named `XWAYLAND<n>`).
    public var xwayland: Bool
    public var windowManager: WindowManager
    /// gamescope runs the server: how that was seen (nil: it does not).
    public var gamescope: String?
    /// Steam's focus list on the root (`GAMESCOPECTRL_BASELAYER_APPID`; nil: not set).
    public var steamFocusAppIDs: [UInt32]?
    /// What the kiosk would set on its window for gamescope, from this process's environment
    /// (`GamescopeProperties.sentence`), and whether it has a Steam app id to set.
    public var gamescopeProperties: String?
    public var steamAppID: UInt32?
    /// The picture path (`X11PicturePath`): "mit-shm" or "put-image", whether DRI3 is offered (unused), one summary line.
    public var pixels: String
    public var dri3Offered: Bool
    public var pictureSummary: String

    public init(display: String, error: String? = nil, vendor: String = "", release: UInt32 = 0, rootWidth: Int = 0,
                rootHeight: Int = 0, outputs: [Output] = [], present: Version? = nil, shm: Version? = nil,
                dri3: Version? = nil, xinput: Version? = nil, xtest: Version? = nil, xfixes: Version? = nil,
                randr: Version? = nil, shmAttachWorks: Bool = false, shmAttachError: String? = nil, xwayland: Bool = false,
                windowManager: WindowManager = .none, gamescope: String? = nil, steamFocusAppIDs: [UInt32]? = nil,
                gamescopeProperties: String? = nil, steamAppID: UInt32? = nil, pixels: String = "put-image",
                dri3Offered: Bool = false, pictureSummary: String = "") {
        self.display = display; self.error = error; self.vendor = vendor; self.release = release
        self.rootWidth = rootWidth; self.rootHeight = rootHeight; self.outputs = outputs
        self.present = present; self.shm = shm; self.dri3 = dri3; self.xinput = xinput; self.xtest = xtest
        self.xfixes = xfixes; self.randr = randr; self.shmAttachWorks = shmAttachWorks; self.shmAttachError = shmAttachError
        self.xwayland = xwayland; self.windowManager = windowManager; self.gamescope = gamescope
        self.steamFocusAppIDs = steamFocusAppIDs; self.gamescopeProperties = gamescopeProperties; self.steamAppID = steamAppID
        self.pixels = pixels; self.dri3Offered = dri3Offered; self.pictureSummary = pictureSummary
    }

    /// The X11 backend can start: the server answered and offers Present.
    public var usable: Bool { error == nil && present != nil }
    /// XInput at the 2.2 the seat needs.
    public var xinputUsable: Bool { (xinput ?? Version(0, 0)) >= Version(2, 2) }
}
