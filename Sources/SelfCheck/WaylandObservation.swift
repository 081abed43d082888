/// What the read-only Wayland probe saw of the compositor (`WaylandProbe` in WaylandDisplay; the
/// gatherer copies its result here, so this module stays free of the Wayland libraries).
public struct WaylandObservation: Sendable, Equatable {
    public struct Global: Sendable, Equatable {
        public var interface: String
        public var version: UInt32
        public init(_ interface: String, _ version: UInt32) { self.interface = interface; self.version = version }
    }

    /// One global the kiosk's Wayland backend looks for (WaylandDisplay's `KioskProtocols.all`).
    public struct KioskProtocol: Sendable, Equatable {
        public var interface: String
        /// The version the backend binds at most.
        public var version: UInt32
        /// Below this advertised version it counts as missing.
        public var minimum: UInt32
        public var required: Bool
        /// Required: why the backend cannot start without it; optional: the backend's notice.
        public var without: String
        public init(interface: String, version: UInt32, minimum: UInt32 = 1, required: Bool, without: String) {
            self.interface = interface; self.version = version; self.minimum = minimum; self.required = required
            self.without = without
        }
    }

    public struct Output: Sendable, Equatable {
        public var name: String
        public var scale: Int
        /// (width, height, mHz, current, preferred).
        public var modes: [DisplayObservation.Mode]
        /// The current mode's name and refresh (nil: none marked current).
        public var current: DisplayObservation.Mode?
        public init(name: String, scale: Int, modes: [DisplayObservation.Mode], current: DisplayObservation.Mode?) {
            self.name = name; self.scale = scale; self.modes = modes; self.current = current
        }
    }

    public struct Seat: Sendable, Equatable {
        public var name: String
        /// wl_seat capabilities: pointer 1, keyboard 2, touch 4.
        public var capabilities: UInt32
        public init(name: String, capabilities: UInt32) { self.name = name; self.capabilities = capabilities }
    }

    /// A DRM fourcc and modifier.
    public struct Pair: Sendable, Equatable, Hashable {
        public var fourcc: UInt32
        public var modifier: UInt64
        public init(fourcc: UInt32, modifier: UInt64) { self.fourcc = fourcc; self.modifier = modifier }
    }

    public struct Tranche: Sendable, Equatable {
        /// A dev_t.
        public var targetDevice: UInt64
        public var pairs: [Pair]
        public var scanout: Bool
        public init(targetDevice: UInt64, pairs: [Pair], scanout: Bool) {
            self.targetDevice = targetDevice; self.pairs = pairs; self.scanout = scanout
        }
    }

    /// linux-dmabuf v4's default feedback.
    public struct Feedback: Sendable, Equatable {
        /// A dev_t.
        public var mainDevice: UInt64
        public var tranches: [Tranche]
        public init(mainDevice: UInt64, tranches: [Tranche]) { self.mainDevice = mainDevice; self.tranches = tranches }
    }

    /// `WAYLAND_DISPLAY`.
    public var display: String
    /// Why the probe could not connect or finish (nil: it did).
    public var error: String?
    /// The compositor's process name (nil: not learnt) and how it was learnt, or why not.
    public var name: String?
    public var nameSource: String
    public var globals: [Global]
    public var kioskProtocols: [KioskProtocol]
    /// wl_shm format codes (0 = ARGB8888, 1 = XRGB8888, else fourcc).
    public var shmFormats: [UInt32]
    /// `wp_presentation.clock_id`.
    public var presentationClockID: Int32?
    public var outputs: [Output]
    public var seats: [Seat]
    public var feedback: Feedback?
    public var feedbackError: String?

    public init(display: String, error: String? = nil, name: String? = nil, nameSource: String = "", globals: [Global] = [],
                kioskProtocols: [KioskProtocol] = [], shmFormats: [UInt32] = [], presentationClockID: Int32? = nil,
                outputs: [Output] = [], seats: [Seat] = [], feedback: Feedback? = nil, feedbackError: String? = nil) {
        self.display = display; self.error = error; self.name = name; self.nameSource = nameSource; self.globals = globals
        self.kioskProtocols = kioskProtocols; self.shmFormats = shmFormats; self.presentationClockID = presentationClockID
        self.outputs = outputs; self.seats = seats; self.feedback = feedback; self.feedbackError = feedbackError
    }

    /// The advertised version of `interface` (the highest, when announced more than once).
    public func version(of interface: String) -> UInt32? {
        globals.filter { $0.interface == interface }.map(\.version).max()
    }

    /// The kiosk's protocols that are absent or below their minimum.
    public var missing: [KioskProtocol] {
        kioskProtocols.filter { p in (version(of: p.interface) ?? 0) < p.minimum }
    }
}

/// A decoded surface the VA-API device exported in the decode section (its first picture of a
/// profile): what a dma-buf import would be asked to take.
public struct VAExport: Sendable, Equatable {
    /// The render node, e.g. /dev/dri/renderD128.
    public var node: String
    /// Its dev_t (nil: not known).
    public var device: UInt64?
    /// "NV12", "P010".
    public var format: String
    public var fourcc: UInt32
    public var modifier: UInt64
    public init(node: String, device: UInt64?, format: String, fourcc: UInt32, modifier: UInt64) {
        self.node = node; self.device = device; self.format = format; self.fourcc = fourcc; self.modifier = modifier
    }
}
