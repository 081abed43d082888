import Foundation

/// What the gatherer saw of the screen: the DRM cards (read-only), the video planes' TEST_ONLY
/// verdicts and the flip run (`--display` only), and whether a compositor owns the screen.
public struct DisplayObservation: Sendable {
    public struct Mode: Sendable, Equatable {
        public var name: String
        public var refreshMilliHz: Int
        public var preferred: Bool
        public init(name: String, refreshMilliHz: Int, preferred: Bool) {
            self.name = name; self.refreshMilliHz = refreshMilliHz; self.preferred = preferred
        }
    }

    public struct Connector: Sendable {
        public var name: String
        public var connected: Bool
        public var modes: [Mode]
        public var hdrOutputMetadata: Bool
        public var colorspace: Bool
        /// Bit i: the CRTC with index i can drive it.
        public var possibleCRTCs: UInt32
        public init(name: String, connected: Bool, modes: [Mode], hdrOutputMetadata: Bool, colorspace: Bool,
                    possibleCRTCs: UInt32 = 1) {
            self.name = name; self.connected = connected; self.modes = modes
            self.hdrOutputMetadata = hdrOutputMetadata; self.colorspace = colorspace; self.possibleCRTCs = possibleCRTCs
        }
    }

    /// A plane and the video formats (NV12, P010) it lists, with their modifiers.
    public struct Plane: Sendable {
        public var id: UInt32
        /// "primary", "overlay", "cursor".
        public var kind: String
        public var possibleCRTCs: UInt32
        /// Format name ("NV12", "P010") → modifiers.
        public var videoFormats: [String: [UInt64]]
        public init(id: UInt32, kind: String, possibleCRTCs: UInt32, videoFormats: [String: [UInt64]]) {
            self.id = id; self.kind = kind; self.possibleCRTCs = possibleCRTCs; self.videoFormats = videoFormats
        }
    }

    public struct Card: Sendable {
        public var path: String
        public var driver: String?
        public var openError: String?
        public var connectors: [Connector]
        public var planes: [Plane]
        public init(path: String, driver: String? = nil, openError: String? = nil, connectors: [Connector] = [],
                    planes: [Plane] = []) {
            self.path = path; self.driver = driver; self.openError = openError
            self.connectors = connectors; self.planes = planes
        }
    }

    /// The kernel's TEST_ONLY verdict on a decoded surface of one format.
    public struct PlaneTest: Sendable, Equatable {
        public enum Outcome: Sendable, Equatable {
            /// A plane took it: which, and with which modifier.
            case accepted(plane: UInt32, kind: String, modifier: UInt64)
            /// No plane took it: frames take the CPU conversion into an XRGB primary.
            case cpuFallback(reason: String)
            /// The test could not run (no surface of that format, no master …).
            case notRun(reason: String)
        }
        /// "NV12", "P010".
        public var format: String
        /// Where the surface came from, e.g. "an exported VA-API surface", "a linear dumb buffer".
        public var source: String
        public var outcome: Outcome
        public init(format: String, source: String, outcome: Outcome) { self.format = format; self.source = source; self.outcome = outcome }
    }

    /// Page-flip completion times of a run on the real panel.
    public struct FlipRun: Sendable, Equatable {
        /// Monotonic ns of every flip event, in order.
        public var timestampsNs: [UInt64]
        /// The mode's refresh period in ns.
        public var periodNs: UInt64
        public init(timestampsNs: [UInt64], periodNs: UInt64) { self.timestampsNs = timestampsNs; self.periodNs = periodNs }
    }

    public enum Compositor: Sendable, Equatable {
        case none
        /// `WAYLAND_DISPLAY` is set: a compositor owns the screen; what the probe saw of it.
        case wayland(WaylandObservation)
        /// `DISPLAY` is set (and `WAYLAND_DISPLAY` is not): what the X11 probe saw of the server.
        case x11(X11Observation)
    }

    public var compositor: Compositor
    public var cards: [Card]
    public var planeTests: [PlaneTest]
    /// nil: no flip run (read-only, or it could not start: see `flipRunError`).
    public var flipRun: FlipRun?
    public var flipRunError: String?
    /// The flip run was asked for (`--display`).
    public var displayRequested: Bool
    /// The surfaces the VA-API devices exported while decoding (for the compositor's dma-buf
    /// verdict); empty: see `vaUnavailable`.
    public var vaExports: [VAExport]
    /// Why there is no exported surface (no VA-API device, no driver, nothing decoded).
    public var vaUnavailable: String?

    public init(compositor: Compositor = .none, cards: [Card], planeTests: [PlaneTest] = [], flipRun: FlipRun? = nil,
                flipRunError: String? = nil, displayRequested: Bool = false, vaExports: [VAExport] = [],
                vaUnavailable: String? = nil) {
        self.compositor = compositor; self.cards = cards; self.planeTests = planeTests; self.flipRun = flipRun
        self.flipRunError = flipRunError; self.displayRequested = displayRequested
        self.vaExports = vaExports; self.vaUnavailable = vaUnavailable
    }
}

/// Refresh interval, jitter and missed vblanks of a flip run.
public struct FlipStatistics: Sendable, Equatable {
    public var flips: Int
    public var meanIntervalNs: Double
    /// Standard deviation of the intervals.
    public var jitterNs: Double
    /// Vblanks that passed without a flip: for each interval, round(interval / period) − 1.
    public var missedVblanks: Int

    public init(_ run: DisplayObservation.FlipRun) {
        let t = run.timestampsNs
        let intervals = zip(t.dropFirst(), t).map { Double($0 &- $1) }
        flips = t.count
        let mean = intervals.isEmpty ? 0 : intervals.reduce(0, +) / Double(intervals.count)
        meanIntervalNs = mean
        let variance = intervals.isEmpty ? 0 : intervals.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(intervals.count)
        jitterNs = variance.squareRoot()
        let period = Double(max(run.periodNs, 1))
        missedVblanks = intervals.map { max(0, Int(($0 / period).rounded()) - 1) }.reduce(0, +)
    }
}

public enum DisplayJudge {
    /// Missed vblanks (a share of the flips) a run may have and still be "ok".
    public static let missedShareOK = 0.01

    public static func judge(_ o: DisplayObservation) -> Section {
        var findings: [Finding] = []
        var presentsThroughCompositor = false
        switch o.compositor {
        case .wayland(let w):
            findings += wayland(w, vaExports: o.vaExports, vaUnavailable: o.vaUnavailable)
            presentsThroughCompositor = w.error == nil && !w.missing.contains(where: \.required)
        case .x11(let x):
            findings += x11(x)
            presentsThroughCompositor = x.usable
        case .none:
            break
        }
        let session: Fact
        switch o.compositor {
        case .none: session = Fact("session", "not under a compositor: the kiosk drives KMS from this console")
        case .wayland where presentsThroughCompositor:
            session = Fact("session", "under a Wayland compositor: the kiosk shows a fullscreen window there (--display auto); KMS is used from a text console")
        case .x11 where presentsThroughCompositor:
            session = Fact("session", "under an X server: the kiosk shows a fullscreen X11 window there (--display auto); KMS is used from a text console")
        default: session = Fact("session", "under a compositor (see above)")
        }
        let usable = o.cards.filter { $0.openError == nil }
        if o.cards.isEmpty {
            findings.append(Finding("KMS", .notAvailable, "no DRM/KMS device: /dev/dri has no card node.",
                                    action: "The kiosk needs a GPU driver with KMS (e.g. i915, amdgpu, nouveau, vc4) loaded.",
                                    facts: [session], informational: presentsThroughCompositor))
            return Section(.display, findings)
        }
        for card in o.cards {
            guard let error = card.openError else { continue }
            if error.contains("capability") && error.contains("refused") {
                // vgem, a render-only or legacy-only driver: not a display the kiosk can drive.
                findings.append(Finding(card.path, .notAvailable, "\(card.path) is not an atomic KMS display device (\(error)).",
                                        informational: !usable.isEmpty))
            } else if error.hasPrefix("not a DRM card") {
                findings.append(Finding(card.path, .failed, "\(card.path) is \(error).",
                                        action: "Name one of the listed cards with --drm-device, or leave it out."))
            } else {
                findings.append(Finding(card.path, usable.isEmpty ? .failed : .notAvailable, "cannot open \(card.path): \(error).",
                                        action: "Run as a user in the video group, or from the systemd unit the package installs.",
                                        informational: !usable.isEmpty))
            }
        }
        guard let (card, connector) = chosenConnector(o.cards) else {
            if !usable.isEmpty {
                findings.append(Finding("connector", .failed, "no connector of \(usable.map(\.path).joined(separator: ", ")) has a display connected.",
                                        action: "Connect the TV or monitor (and switch it on), then run the check again."))
            }
            return Section(.display, findings)
        }
        var connectorFinding = connectorFinding(card, connector)
        connectorFinding.facts.append(session)
        findings.append(connectorFinding)
        findings.append(hdrFinding(connector))
        for format in ["NV12", "P010"] { findings.append(planeFinding(format: format, card: card, connector: connector, tests: o.planeTests)) }
        findings.append(flipFinding(o))
        return Section(.display, findings)
    }

    /// The connector the kiosk would use: the first connected one, cards in node order.
    public static func chosenConnector(_ cards: [DisplayObservation.Card]) -> (DisplayObservation.Card, DisplayObservation.Connector)? {
        for card in cards where card.openError == nil {
            if let c = card.connectors.first(where: \.connected) { return (card, c) }
        }
        return nil
    }

    static func connectorFinding(_ card: DisplayObservation.Card, _ c: DisplayObservation.Connector) -> Finding {
        let preferred = c.modes.first(where: \.preferred) ?? c.modes.first
        var facts = [Fact("device", "\(card.path) (\(card.driver ?? "unknown driver"))"),
                     Fact("modes", "\(c.modes.count)")]
        if let p = preferred { facts.append(Fact("preferred mode", describe(p))) }
        let list = c.modes.prefix(8).map(describe).joined(separator: ", ") + (c.modes.count > 8 ? ", …" : "")
        facts.append(Fact("mode list", list))
        guard let p = preferred else {
            return Finding(c.name, .failed, "\(c.name) is connected but offers no mode.",
                           action: "Check the cable and the display's input; a broken EDID can be overridden with drm.edid_firmware.",
                           facts: facts)
        }
        return Finding(c.name, .ok, "\(c.name) is connected; preferred mode \(describe(p)).", facts: facts)
    }

    static func hdrFinding(_ c: DisplayObservation.Connector) -> Finding {
        let facts = [Fact("HDR_OUTPUT_METADATA", c.hdrOutputMetadata ? "yes" : "no"), Fact("Colorspace", c.colorspace ? "yes" : "no")]
        if c.hdrOutputMetadata && c.colorspace {
            return Finding("HDR", .ok, "\(c.name) has HDR_OUTPUT_METADATA and Colorspace: HDR10 streams can signal the TV.", facts: facts)
        }
        let missing = [c.hdrOutputMetadata ? nil : "HDR_OUTPUT_METADATA", c.colorspace ? nil : "Colorspace"].compactMap { $0 }
        return Finding("HDR", .notAvailable, "\(c.name) lacks \(missing.joined(separator: " and ")): HDR streams are shown in SDR.",
                       action: "HDR output needs a driver and connector (HDMI 2.0+/DP) that expose both properties.", facts: facts,
                       informational: true)
    }

    /// Planes that can drive the connector's CRTCs and list `format`.
    public static func offers(format: String, card: DisplayObservation.Card, connector: DisplayObservation.Connector)
        -> [DisplayObservation.Plane] {
        card.planes.filter { $0.possibleCRTCs & connector.possibleCRTCs != 0 && !($0.videoFormats[format] ?? []).isEmpty && $0.kind != "cursor" }
    }

    static func planeFinding(format: String, card: DisplayObservation.Card, connector: DisplayObservation.Connector,
                             tests: [DisplayObservation.PlaneTest]) -> Finding {
        let offering = offers(format: format, card: card, connector: connector)
        let offerText = offering.map { p in "plane \(p.id) (\(p.kind)): " + (p.videoFormats[format] ?? []).map(modifierName).joined(separator: " ") }
        var facts = [Fact("offered by", offerText.isEmpty ? "no plane" : offerText.joined(separator: "; "))]
        let subject = "\(format) plane"
        if let t = tests.first(where: { $0.format == format }) {
            facts.append(Fact("tested with", t.source))
            switch t.outcome {
            case .accepted(let plane, let kind, let modifier):
                return Finding(subject, .ok, "\(t.source) is accepted on plane \(plane) (\(kind)) with modifier \(modifierName(modifier)) by a TEST_ONLY commit.",
                               facts: facts)
            case .cpuFallback(let reason):
                return Finding(subject, .degraded, "no plane accepts \(t.source) (\(reason)): frames take the CPU conversion path.",
                               action: "Expect higher CPU load and latency; a driver whose planes scan out \(format) avoids the copy.", facts: facts)
            case .notRun(let reason):
                facts.append(Fact("TEST_ONLY", "not run: \(reason)"))
            }
        }
        if offering.isEmpty {
            return Finding(subject, .degraded, "no plane on \(connector.name)'s CRTCs lists \(format): \(format == "P010" ? "10-bit" : "8-bit") frames take the CPU conversion into an XRGB primary.",
                           action: "Expect higher CPU load and latency; a driver whose planes scan out \(format) avoids the copy.", facts: facts)
        }
        return Finding(subject, .notAvailable,
                       "\(offering.count == 1 ? "a plane lists" : "\(offering.count) planes list") \(format), but no TEST_ONLY commit of a decoded surface confirmed it.",
                       action: "Run `punktfunk-kiosk check --display` on a box with VA-API to have the kernel judge a real surface.", facts: facts,
                       informational: true)
    }

    static func flipFinding(_ o: DisplayObservation) -> Finding {
        guard o.displayRequested else {
            return Finding("flip run", .notAvailable, "not run: it takes the screen for a few seconds.",
                           action: "Run `punktfunk-kiosk check --display` from a text console to measure the refresh on the panel.",
                           informational: true)
        }
        guard let run = o.flipRun else {
            return Finding("flip run", .failed, "the flip run on the panel failed: \(o.flipRunError ?? "no page-flip events").",
                           action: "Run the check from a text console (no other program holding the display).")
        }
        let s = FlipStatistics(run)
        let facts = [Fact("flips", "\(s.flips)"), Fact("mode period", ms(Double(run.periodNs))),
                     Fact("mean interval", ms(s.meanIntervalNs)), Fact("jitter (standard deviation)", ms(s.jitterNs)),
                     Fact("missed vblanks", "\(s.missedVblanks)")]
        guard s.flips >= 2 else {
            return Finding("flip run", .failed, "only \(s.flips) page flip completed.", facts: facts)
        }
        let hz = s.meanIntervalNs > 0 ? 1e9 / s.meanIntervalNs : 0
        if s.meanIntervalNs < 0.75 * Double(run.periodNs) {
            return Finding("flip run", .notAvailable,
                           "flips complete every \(ms(s.meanIntervalNs)), faster than the mode's \(ms(Double(run.periodNs))): the driver has no real vblank (a virtual GPU), so pacing cannot be measured.",
                           facts: facts)
        }
        if Double(s.missedVblanks) > missedShareOK * Double(s.flips) {
            return Finding("flip run", .degraded,
                           "\(s.missedVblanks) missed vblanks in \(s.flips) flips: refresh interval \(ms(s.meanIntervalNs)) (\(hz1(hz)) Hz), jitter \(ms(s.jitterNs)).",
                           action: "Something delays page flips (load, power saving, a slow driver); expect judder.", facts: facts)
        }
        return Finding("flip run", .ok,
                       "\(s.flips) flips: refresh interval \(ms(s.meanIntervalNs)) (\(hz1(hz)) Hz), jitter \(ms(s.jitterNs)), \(s.missedVblanks) missed vblanks.",
                       facts: facts)
    }

    public static func describe(_ m: DisplayObservation.Mode) -> String {
        "\(m.name)@\(hz1(Double(m.refreshMilliHz) / 1000))"
    }

    /// DRM format modifier names for the common ones, else hex.
    public static func modifierName(_ m: UInt64) -> String {
        switch m {
        case 0: "linear"
        case 0x00FF_FFFF_FFFF_FFFF: "implicit"
        case 0x0100_0000_0000_0001: "I915_X_TILED"
        case 0x0100_0000_0000_0002: "I915_Y_TILED"
        case 0x0100_0000_0000_0009: "I915_4_TILED"
        default: "0x" + String(m, radix: 16)
        }
    }

    static func ms(_ ns: Double) -> String {
        let hundredths = Int((ns / 10_000).rounded())
        let frac = hundredths % 100
        return "\(hundredths / 100).\(frac < 10 ? "0" : "")\(frac) ms"
    }

    static func hz1(_ hz: Double) -> String {
        let tenths = Int((hz * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }
}
