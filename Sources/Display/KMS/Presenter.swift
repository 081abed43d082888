internal import CDRM
import VideoFrames
import Screen
import SystemClock
#if canImport(Glibc)
import Glibc
#endif

/// The KMS side of presenting: owns the device, the chosen connector/CRTC/mode, the plane plan,
/// the ring of frame buffers and the saved start-up state.
///
/// Buffer states (weston/wlroots terms): a ring slot is *free*, *filled* (holds frame `id`, not
/// committed), *queued* (committed, flip pending — `inFlight`) or *current* (on screen). A slot
/// becomes free only when the owner releases its id and it is neither queued nor current, so a
/// buffer is never rewritten while it may be scanned out. At most one commit is in flight.
///
/// Every exit path must end in `shutdown()` (also run by deinit): it waits for the in-flight flip,
/// writes the saved connector/CRTC/plane state back (HDR properties cleared), then frees buffers.
public final class Presenter {
    public let device: DRMDevice
    /// The connector as last read (its modes change with the display attached; `switchMode`).
    public private(set) var connector: ConnectorInfo
    public let crtc: UInt32
    public let crtcIndex: Int
    /// The mode driven from the next commit on.
    public private(set) var mode: DisplayMode
    /// Counts `switchMode` calls: a present loop built for an older mode rebuilds its pacing.
    public private(set) var modeGeneration = 0

    /// Planes usable on the CRTC and not busy on another CRTC (the ones we may touch).
    public let planes: [PlaneDescription]
    /// The plan in use (nil until `configure`).
    public private(set) var plan: PlanePlan?

    private var modeBlob: UInt32
    private var saved = SavedState()
    /// Our copy of the start-up mode, restored as MODE_ID; destroyed at shutdown.
    private var savedModeBlob: UInt32?
    private let connectorProps: ObjectProperties
    private let crtcProps: ObjectProperties
    private var planeProps: [UInt32: ObjectProperties] = [:]
    /// HDR10 or SDR signalling on the connector (HDROutput.swift).
    private var hdr: HDROutput

    /// One ring entry: a dumb buffer of ours (CPU route), or an imported dma-buf picture whose
    /// surface lease is given back when the slot is freed (after the flip that replaced it).
    private final class Slot {
        let buffer: DumbBuffer?
        let framebuffer: UInt32
        var picture: DMABufFrame?
        var frame: UInt64?
        var releaseRequested = false
        /// Where the last XRGB conversion drew (the rest of the buffer is black).
        var drawn: PixelRect?
        /// The stats overlay blended into the buffer (compositing route).
        var overlay: OverlayImage?
        /// Where the picture in it lands on the CRTC and how (set when filled).
        var placed: (picture: String, place: PixelRect, route: FitRoute)?
        init(_ b: DumbBuffer) { buffer = b; framebuffer = b.framebuffer }
        init(imported framebuffer: UInt32, picture: DMABufFrame?) {
            buffer = nil; self.framebuffer = framebuffer; self.picture = picture
        }
    }

    /// Buffers and geometry for one frame layout, or for the canvas (`key` nil).
    private struct Pipeline {
        var key: LayoutKey?
        var plan: PlanePlan
        /// How the picture reaches `destination` (XRGB: `drawRect`).
        var route: FitRoute = .unscaled
        var slots: [Slot]
        var background: DumbBuffer?
        /// Plane source (16.16, in buffer pixels) and destination on the CRTC.
        var source: FixedPointRect
        var destination: PixelRect
        /// XRGB path: where the picture goes inside the mode-sized buffer.
        var drawRect: PixelRect
        /// nil on the canvas (nothing is converted there).
        var converter: YUVToRGBConverter?
        var colour: (encoding: UInt64?, range: UInt64?)
        /// Import route: framebuffers of the decoder's surfaces; `slots` holds one per picture
        /// between fill and release (at most `ringSize`). nil on the CPU route.
        var imports: PrimeFramebufferCache?
        /// A slot showing one imported surface without a picture, for TEST_ONLY commits.
        var probe: Slot?
    }

    /// Frames with the same key share a pipeline.
    struct LayoutKey: Equatable {
        var format: DecodedPixelFormat
        var width: Int, height: Int
        var crop: FrameCrop
        var colour: FrameColour
        /// nil: CPU planes; else an imported surface pool (its modifier and decoder generation).
        var imported: ImportedPool?
        /// The scaling rule, and whether the CPU may scale (it may not once over its budget).
        var scaling: PictureScaling = .fit
        var cpuFit: FitAttempts.CPUFit = .allowed

        /// `WxH` of the visible window.
        var visibleSize: String { "\(width - crop.left - crop.right)x\(height - crop.top - crop.bottom)" }
    }

    struct ImportedPool: Equatable { var modifier: UInt64; var generation: Int }

    private var pipeline: Pipeline?
    /// The stats overlay and its route (OverlayLayer.swift).
    private let overlay = OverlayLayer()
    /// The host's pointer on the cursor plane (CursorLayer.swift); set at the end of `init`.
    private var cursor: CursorLayer?
    /// The pointer to draw (nil: none), in the video mode's pixels.
    private var pointer: ScreenPointer?
    /// The pointer's image at the scale last drawn (made again only when the shape or the scale changes).
    private var scaledPointer: (serial: UInt32, source: CursorImage, scale: Double, image: CursorImage)?
    /// Slots of a replaced pipeline, kept until the next flip completes (one of them may be on screen).
    private var retired: [Slot] = []
    private var retiredBackground: DumbBuffer?
    private var retiredImports: PrimeFramebufferCache?
    /// Why dma-buf pictures of a decoder generation are copied through the CPU instead of
    /// imported (no plane takes them, the import failed); nil while importing works.
    private var importRefusal: (generation: Int, reason: String)?
    private var needsModeset = true
    private var currentSlot: Slot?
    private var queuedSlot: Slot?
    private var isShutDown = false
    /// False while the VT is switched away (master dropped) or nothing is attached to the
    /// connector: no commits.
    public var isActive: Bool { holdsMaster && attached }
    /// False while the VT is switched away (master dropped).
    private var holdsMaster = true
    /// False while the connector reports nothing attached (`outputDetached`).
    public private(set) var attached = true

    /// Ring size: current + queued + one waiting in the pacer + one being filled.
    public static let ringSize = 4

    /// How pictures whose size differs from the mode are shown (from the next picture on).
    public var scaling: PictureScaling = .fit

    /// The CPU scale's cost, measured over the pipeline in use when its route is `.cpu`.
    private var cpuFitTiming = CPUFitBudget(budgetNs: 0)
    /// Layouts (picture size on a mode) whose CPU scale went over budget: the mean measured.
    private var cpuFitRefusals: [CPUFitLayout: UInt64] = [:]
    struct CPUFitLayout: Hashable { var width: Int, height: Int, modeWidth: Int, modeHeight: Int }
    /// What one CPU scale may take on average: half the mode's refresh period.
    var cpuFitBudgetNs: UInt64 { mode.screenMode.refreshIntervalNs / 2 }
    /// Pictures filled since the pipeline in use was made (the fallback's "after N pictures").
    public private(set) var picturesInLayout = 0
    /// Said once per fallback: the sentence for stderr, taken by `takeFitNews`.
    private var fitNews: String?

    /// Opens the device (`devicePath`, else the first card with a connected connector), picks the
    /// connector (first connected with modes), its CRTC (the one driving it now, else the first
    /// possible) and the mode, and records the state to restore.
    public init(devicePath: String?, modeRequest: ModeRequest?) throws(KMSError) {
        let device: DRMDevice
        if let devicePath { device = try DRMDevice(path: devicePath) } else { device = try DRMDevice.openFirstConnected() }
        self.device = device
        guard let conn = device.connectors.lazy.compactMap({ device.connector($0) })
            .first(where: { $0.connected && !$0.modes.isEmpty }) else { throw .noConnector }
        connector = conn
        guard let index = Self.crtcIndex(for: conn, crtcs: device.crtcs) else { throw .noCRTC(connector: conn.id) }
        crtcIndex = index
        crtc = device.crtcs[index]
        guard let m = ModeChoice.choose(from: conn.modes, request: modeRequest) else {
            throw .modeUnavailable(requested: modeRequest?.description ?? "preferred",
                                   offered: conn.modes.filter { !$0.interlaced }.map(\.name))
        }
        mode = m
        connectorProps = device.connectorProperties(conn.id)
        crtcProps = device.crtcProperties(crtc)
        hdr = HDROutput(connector: conn.id, properties: connectorProps)
        let bit = UInt32(1) << UInt32(index)
        var usable: [PlaneDescription] = []
        var props: [UInt32: ObjectProperties] = [:]
        for id in device.planes {
            guard let p = device.plane(id), p.possibleCRTCs & bit != 0 else { continue }
            let pp = device.planeProperties(id)
            let on = pp["CRTC_ID"]?.value ?? 0
            guard on == 0 || on == UInt64(crtc) else { continue }
            usable.append(p); props[id] = pp
        }
        planes = usable
        planeProps = props
        modeBlob = try device.createModeBlob(connector: conn.id, index: m.index)
        saved.note(connectorProps, SavedState.connectorProperties)
        saved.note(crtcProps, SavedState.crtcProperties)
        for p in usable { saved.note(props[p.id]!, SavedState.planeProperties) }
        // The start-up mode survives in a blob of ours (the kernel frees the original with our
        // first modeset); an "off" CRTC keeps MODE_ID 0.
        if let original = crtcProps["MODE_ID"], original.value != 0, let copy = device.createBlobForCurrentMode(crtc: crtc) {
            savedModeBlob = copy
            saved.replaceValue(object: crtc, property: original.id, with: UInt64(copy))
        }
        cursor = CursorLayer(device: device, planes: usable, crtcIndex: index, planeProps: props)
    }

    deinit { shutdown() }

    /// The CRTC (its index in `crtcs`) the kiosk drives `connector` with: the one driving it now,
    /// else the first it may use. nil when it may use none.
    static func crtcIndex(for connector: ConnectorInfo, crtcs: [UInt32]) -> Int? {
        let usable = { (i: Int) in connector.possibleCRTCs & (1 << UInt32(i)) != 0 }
        return crtcs.firstIndex(of: connector.currentCRTC).flatMap { usable($0) ? $0 : nil } ?? crtcs.indices.first(where: usable)
    }

    // MARK: configuration

    /// Sets up buffers and a confirmed plane plan for `frame`'s layout (no-op when unchanged).
    /// Tries each plan of `PlaneAssignment.plans` with a TEST_ONLY modeset commit and keeps the
    /// first the kernel accepts. - Returns: the plan in use.
    @discardableResult
    public func configure(for frame: DecodedFrame) throws(KMSError) -> PlanePlan {
        let layout = CPUFitLayout(width: frame.visibleWidth, height: frame.visibleHeight, modeWidth: mode.width,
                                  modeHeight: mode.height)
        let cpuFit: FitAttempts.CPUFit = cpuFitRefusals[layout].map { .overBudget(meanNs: $0, budgetNs: cpuFitBudgetNs) } ?? .allowed
        let key = LayoutKey(format: frame.pixelFormat, width: frame.width, height: frame.height,
                            crop: frame.crop, colour: frame.colour, scaling: scaling, cpuFit: cpuFit)
        setHDRMetadata(frame.hdr)
        if let p = pipeline, p.key == key { return p.plan }
        guard frame.visibleWidth > 0, frame.visibleHeight > 0 else { throw .badFrame("empty visible window") }
        let yuv: FourCC = frame.pixelFormat == .nv12 ? .nv12 : .p010
        let plans = PlaneAssignment.plans(planes: planes, crtcIndex: crtcIndex,
                                          wanted: [(yuv, FormatModifier.linear), (.xrgb8888, FormatModifier.linear)])
        _ = hdr.select(for: key.colour)
        let attempts = try fitAttempts(plans, width: frame.visibleWidth, height: frame.visibleHeight, cpuFit: cpuFit)
        return try adoptFirstAccepted(attempts, ifNone: .noPlane(format: "\(yuv) or XR24")) { attempt throws(KMSError) in
            let candidate = try makePipeline(attempt, key: key, frame: frame)
            return (candidate, candidate.slots[0])
        }
    }

    /// The attempts for a `width` × `height` picture on the mode under `scaling` (`FitAttempts`).
    private func fitAttempts(_ plans: [PlanePlan], width: Int, height: Int,
                             cpuFit: FitAttempts.CPUFit) throws(KMSError) -> [FitAttempt] {
        guard let place = PlaneGeometry.place(width: width, height: height, screenWidth: mode.width,
                                              screenHeight: mode.height, scaling: scaling),
              let oneToOne = PlaneGeometry.place(width: width, height: height, screenWidth: mode.width,
                                                 screenHeight: mode.height, scaling: .native) else {
            throw .badFrame("no place for \(width)x\(height) on \(mode.name)")
        }
        return FitAttempts.attempts(plans: plans, picture: (width, height), place: place, oneToOne: oneToOne, cpuFit: cpuFit)
    }

    /// Builds each plan's pipeline (`make`: the pipeline and a slot to show in the test) and
    /// adopts the first whose TEST_ONLY modeset the kernel accepts — in SDR when only the HDR10
    /// state is refused. The replaced pipeline retires until the next flip; the next commit is a
    /// modeset. - Throws: the last refusal, or `ifNone` when there is no plan.
    private func adoptFirstAccepted(_ attempts: [FitAttempt], ifNone: KMSError,
                                    make: (FitAttempt) throws(KMSError) -> (Pipeline, Slot)) throws(KMSError) -> PlanePlan {
        var lastError = ifNone
        for attempt in attempts {
            let plan = attempt.plan
            do throws(KMSError) {
                let (candidate, slot) = try make(attempt)
                var req = try AtomicRequest()
                try addState(to: &req, pipeline: candidate, slot: slot, modeset: true)
                do throws(KMSError) { try req.test(on: device, flags: CommitFlags.allowModeset) } catch {
                    // A driver that refuses the HDR10 state still gets the picture, in SDR.
                    guard hdr.signal.isHDR else { throw error }
                    hdr.refuse(because: error)
                    var sdr = try AtomicRequest()
                    try addState(to: &sdr, pipeline: candidate, slot: slot, modeset: true)
                    try sdr.test(on: device, flags: CommitFlags.allowModeset)
                }
                retire(pipeline)
                pipeline = candidate
                self.plan = plan
                routeOverlay(candidate)
                needsModeset = true  // the new plane layout goes out with ALLOW_MODESET
                cpuFitTiming = CPUFitBudget(budgetNs: cpuFitBudgetNs)
                picturesInLayout = 0
                if case .oneToOne(let why) = attempt.route, let k = candidate.key {
                    fitNews = "pictures of \(k.visibleSize) are shown 1:1 on \(mode.name): \(why)"
                }
                return plan
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    /// `configure(for:)` for any picture: a dma-buf picture gets the import route when a plane
    /// takes its format and modifier (TEST_ONLY-confirmed), else the CPU route its read-back
    /// pixels need (linear buffers only; the reason is kept in `importRoute`).
    @discardableResult
    public func configure(for picture: DecodedPicture) throws(KMSError) -> PlanePlan {
        switch picture {
        case .cpu(let f): return try configure(for: f)
        case .dmaBuf(let d):
            if importRefusal?.generation != d.generation {
                do throws(KMSError) { return try configureImport(d) } catch {
                    importRefusal = (d.generation, "\(error)")
                }
            }
            return try configure(for: readBack(d))
        }
    }

    /// How dma-buf pictures reach glass: "imported (zero copy)", "copied through the CPU (why)",
    /// or nil before the first one.
    public var importRoute: String? {
        if let r = importRefusal { return "copied through the CPU (\(r.reason))" }
        return pipeline?.imports != nil ? "imported (zero copy)" : nil
    }

    /// The import route for `d`'s pool: the first plan whose plane takes the surface's fourcc and
    /// modifier and whose TEST_ONLY modeset with `d`'s framebuffer passes.
    private func configureImport(_ d: DMABufFrame) throws(KMSError) -> PlanePlan {
        let modifier = d.objects.first?.modifier ?? FormatModifier.invalid
        let key = LayoutKey(format: d.pixelFormat, width: d.width, height: d.height, crop: d.crop, colour: d.colour,
                            imported: ImportedPool(modifier: modifier, generation: d.generation), scaling: scaling,
                            cpuFit: .imported)
        if let p = pipeline, p.key == key { return p.plan }
        guard d.visibleWidth > 0, d.visibleHeight > 0 else { throw .badFrame("empty visible window") }
        let fourcc: FourCC = d.pixelFormat == .nv12 ? .nv12 : .p010
        let layout = try PrimeLayout(d)
        let plans = PlaneAssignment.plans(planes: planes, crtcIndex: crtcIndex, wanted: [(fourcc, layout.modifier)])
        let noPlane: KMSError = .noPlane(format: "\(fourcc) with modifier 0x\(String(layout.modifier, radix: 16))")
        _ = hdr.select(for: key.colour)
        // Imported before the plane search: the TEST_ONLY commits need the framebuffer, and when
        // no plane takes the format the refusal still says whether the kernel accepted the buffer
        // (once per decoder generation; the copy route follows either way).
        let imports = PrimeFramebufferCache(device: device)
        let framebuffer = try imports.framebuffer(for: d)
        // The converter only names the colour properties here (no CPU conversion on this route).
        let stand = DecodedFrame(pts: d.pts, width: d.width, height: d.height, crop: d.crop, pixelFormat: d.pixelFormat,
                                 planes: [], colour: d.colour)
        let attempts = try fitAttempts(plans, width: d.visibleWidth, height: d.visibleHeight, cpuFit: .imported)
        let plan = try adoptFirstAccepted(attempts, ifNone: noPlane) { attempt throws(KMSError) in
            var candidate = try makePipeline(attempt, key: key, frame: stand, importing: true)
            let probe = Slot(imported: framebuffer, picture: nil)
            candidate.imports = imports
            candidate.probe = probe
            return (candidate, probe)
        }
        importRefusal = nil
        return plan
    }

    /// A dma-buf picture's pixels on the CPU (waits for its fence), for the copy route.
    private func readBack(_ d: DMABufFrame) throws(KMSError) -> DecodedFrame {
        do {
            return try d.readPixels(timeoutMilliseconds: 500)
        } catch {
            let why = importRefusal?.reason ?? "no plane imports it"
            throw .badFrame("dma-buf picture can neither be imported (\(why)) nor read on the CPU (\(error))")
        }
    }

    /// The sync_file to pass as the video plane's IN_FENCE_FD: the first object's; the others
    /// (multi-object exports) are waited for here, at most 100 ms each. nil = nothing to wait for.
    private static func inFence(_ d: DMABufFrame) -> Int32? {
        guard case .syncFiles(let files) = d.fence, let first = files.first else { return nil }
        for f in files.dropFirst() {
            var p = pollfd(fd: f, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 100)
        }
        return first
    }

    private func makePipeline(_ attempt: FitAttempt, key: LayoutKey, frame: DecodedFrame, importing: Bool = false) throws(KMSError) -> Pipeline {
        let plan = attempt.plan, fit = attempt.destination
        let visible = PixelRect(x: frame.crop.left, y: frame.crop.top, width: frame.visibleWidth, height: frame.visibleHeight)
        var slots: [Slot] = []
        let converter = YUVToRGBConverter(for: frame)
        if plan.format == .xrgb8888 {
            for _ in 0..<Self.ringSize {
                let b = try DumbBuffer(device: device, width: mode.width, height: mode.height, format: .xrgb8888)
                b.clearToBlack()
                slots.append(Slot(b))
            }
            let full = PixelRect(x: 0, y: 0, width: mode.width, height: mode.height)
            return Pipeline(key: key, plan: plan, route: attempt.route, slots: slots, background: nil, source: FixedPointRect(full),
                            destination: full, drawRect: fit, converter: converter, colour: (nil, nil))
        }
        for _ in 0..<(importing ? 0 : Self.ringSize) {
            slots.append(Slot(try DumbBuffer(device: device, width: frame.width, height: frame.height, format: plan.format)))
        }
        var background: DumbBuffer?
        if plan.backgroundPlane != nil {
            let b = try DumbBuffer(device: device, width: mode.width, height: mode.height, format: .xrgb8888)
            b.clearToBlack()
            background = b
        }
        var colour: (UInt64?, UInt64?) = (nil, nil)
        if let desc = planes.first(where: { $0.id == plan.plane }), let pp = planeProps[plan.plane] {
            let names = PlaneAssignment.colorProperties(matrix: converter.matrix, fullRange: converter.fullRange, plane: desc)
            colour = (names.encoding.flatMap { pp["COLOR_ENCODING"]?.enums[$0] }, names.range.flatMap { pp["COLOR_RANGE"]?.enums[$0] })
        }
        return Pipeline(key: key, plan: plan, route: attempt.route, slots: slots, background: background,
                        source: FixedPointRect(visible), destination: fit, drawRect: fit, converter: converter, colour: colour)
    }

    /// Adds the whole display state for showing `slot` to a request: the video plane, the
    /// background plane, every other touched plane off, and with `modeset` the connector and CRTC.
    private func addState(to req: inout AtomicRequest, pipeline p: Pipeline, slot: Slot, modeset: Bool, fence: Bool = true) throws(KMSError) {
        if modeset {
            req.add(connectorProps, "CRTC_ID", UInt64(crtc))
            try hdr.addModesetState(to: &req, device: device)
            req.add(crtcProps, "MODE_ID", UInt64(modeBlob))
            req.add(crtcProps, "ACTIVE", 1)
        }
        let video = planeProps[p.plan.plane]!
        req.add(video, "FB_ID", UInt64(slot.framebuffer))
        if fence, let fd = slot.picture.flatMap(Self.inFence), video["IN_FENCE_FD"] != nil { req.add(video, "IN_FENCE_FD", UInt64(fd)) }
        req.add(video, "CRTC_ID", UInt64(crtc))
        req.add(video, "SRC_X", p.source.x); req.add(video, "SRC_Y", p.source.y)
        req.add(video, "SRC_W", p.source.width); req.add(video, "SRC_H", p.source.height)
        req.add(video, "CRTC_X", UInt64(p.destination.x)); req.add(video, "CRTC_Y", UInt64(p.destination.y))
        req.add(video, "CRTC_W", UInt64(p.destination.width)); req.add(video, "CRTC_H", UInt64(p.destination.height))
        if let z = p.plan.zpos { req.add(video, "zpos", z) }
        if let e = p.colour.encoding { req.add(video, "COLOR_ENCODING", e) }
        if let r = p.colour.range { req.add(video, "COLOR_RANGE", r) }
        overlay.addState(to: &req, crtc: crtc, modeset: modeset)
        cursor?.addState(to: &req, crtc: crtc)
        guard modeset else { return }
        if let bgPlane = p.plan.backgroundPlane, let bg = p.background, let bp = planeProps[bgPlane] {
            let full = FixedPointRect(PixelRect(x: 0, y: 0, width: mode.width, height: mode.height))
            req.add(bp, "FB_ID", UInt64(bg.framebuffer)); req.add(bp, "CRTC_ID", UInt64(crtc))
            req.add(bp, "SRC_X", 0); req.add(bp, "SRC_Y", 0); req.add(bp, "SRC_W", full.width); req.add(bp, "SRC_H", full.height)
            req.add(bp, "CRTC_X", 0); req.add(bp, "CRTC_Y", 0)
            req.add(bp, "CRTC_W", UInt64(mode.width)); req.add(bp, "CRTC_H", UInt64(mode.height))
        }
        // Everything else on this CRTC goes dark (the cursor plane carries its own state).
        for other in planes where other.id != p.plan.plane && other.id != p.plan.backgroundPlane && other.id != overlay.planeID
            && other.id != cursor?.planeID {
            guard let op = planeProps[other.id] else { continue }
            req.add(op, "FB_ID", 0); req.add(op, "CRTC_ID", 0)
        }
    }

    // MARK: frames

    /// Whether a ring slot is free for the next frame.
    public var hasFreeSlot: Bool {
        guard let p = pipeline else { return true }
        return p.imports != nil ? p.slots.count < Self.ringSize : p.slots.contains { $0.frame == nil }
    }

    /// Copies (YUV plane) or converts (XRGB plane) a CPU `frame` into a free slot tagged `id`,
    /// or takes a dma-buf picture as it is (its surface's framebuffer, imported once), reconfiguring
    /// first when the layout changed. A dma-buf picture no plane takes is read back through the CPU
    /// (linear buffers only) and its lease given back at once.
    /// - Returns: false when no slot is free (nothing was done; the caller keeps the picture).
    /// - Throws: `KMSError` from configuration or a malformed frame. A thrown dma-buf picture is
    ///   still the caller's to release.
    public func fill(_ frame: DecodedPicture, id: UInt64) throws(KMSError) -> Bool {
        let f: DecodedFrame
        switch frame {
        case .cpu(let cpu): f = cpu
        case .dmaBuf(let d):
            if importRefusal?.generation != d.generation {
                do throws(KMSError) {
                    _ = try configureImport(d)
                    guard let p = pipeline, let imports = p.imports, p.slots.count < Self.ringSize else { return false }
                    let slot = Slot(imported: try imports.framebuffer(for: d), picture: d)
                    slot.frame = id
                    slot.placed = p.key.map { ($0.visibleSize, p.drawRect, p.route) }
                    pipeline?.slots.append(slot)
                    picturesInLayout += 1
                    return true
                } catch {
                    importRefusal = (d.generation, "\(error)")
                }
            }
            if let p = pipeline, p.imports == nil, !hasFreeSlot { return false }
            f = try readBack(d)
            guard try fill(.cpu(f), id: id) else { return false }
            d.lease.release()
            return true
        }
        try configure(for: f)
        guard let p = pipeline, let slot = p.slots.first(where: { $0.frame == nil }), let buffer = slot.buffer else { return false }
        if p.plan.format == .xrgb8888 {
            if slot.drawn != p.drawRect {
                buffer.clearToBlack()
                slot.drawn = p.drawRect
            }
            var columns = scratchColumns
            guard let converter = p.converter else { return false }
            let t0 = MonotonicClock.nowNs()
            do {
                try converter.convert(f, into: buffer.map, pitch: buffer.pitch, rect: p.drawRect, columns: &columns)
            } catch {
                throw .badFrame(error.description)
            }
            if p.route == .cpu { judgeCPUFit(ns: MonotonicClock.nowNs() - t0, picture: f) }
            scratchColumns = columns
            slot.overlay = overlay.composite(into: buffer, video: p.drawRect)
        } else {
            buffer.copyPlanes(of: VideoFramePlanes(f))
        }
        slot.frame = id
        slot.releaseRequested = false
        slot.placed = p.key.map { ($0.visibleSize, p.drawRect, p.route) }
        picturesInLayout += 1
        return true
    }

    /// Counts one CPU-scaled conversion; over budget, the layout is refused the CPU scale and the
    /// next picture is configured anew (1:1).
    private func judgeCPUFit(ns: UInt64, picture f: DecodedFrame) {
        guard let mean = cpuFitTiming.record(ns) else { return }
        cpuFitRefusals[CPUFitLayout(width: f.visibleWidth, height: f.visibleHeight, modeWidth: mode.width,
                                    modeHeight: mode.height)] = mean
    }

    /// The fallback sentence, once (nil: nothing new).
    public func takeFitNews() -> String? {
        defer { fitNews = nil }
        return fitNews
    }

    /// Where the pictures go now, for the stats: the picture's size, its place on the CRTC and how
    /// it gets there (nil before the first picture, and on the canvas).
    public var fitState: (picture: String, place: PixelRect, route: FitRoute, cpuScaleNs: UInt64)? {
        guard let p = pipeline, let k = p.key else { return nil }
        return (k.visibleSize, p.drawRect, p.route, p.route == .cpu ? cpuFitTiming.meanNs : 0)
    }

    /// Where the picture on glass now landed and how (nil: none, or the canvas).
    public var placementOnGlass: (picture: String, place: PixelRect, route: FitRoute)? { currentSlot?.placed }

    /// Column map scratch of the scaled XRGB conversion (reused across frames).
    private var scratchColumns: [Int32] = []

    /// Commits the slot holding `id` with NONBLOCK | PAGE_FLIP_EVENT (plus ALLOW_MODESET and the
    /// full connector/CRTC/plane state on the first commit, after a layout change and after a VT
    /// switch back). - Precondition: no flip in flight.
    public func commit(frame id: UInt64) throws(KMSError) {
        guard isActive else { throw .commitFailed(errno: EACCES, testOnly: false) }
        guard let p = pipeline, let slot = p.slots.first(where: { $0.frame == id }) else {
            throw .badFrame("frame \(id) is not in the ring")
        }
        try send(slot, of: p, fence: true)
    }

    /// Commits `slot` of `p` with the overlay's newest state (NONBLOCK | PAGE_FLIP_EVENT, plus
    /// ALLOW_MODESET and the full state when a modeset is due); the slot is queued.
    private func send(_ slot: Slot, of p: Pipeline, fence: Bool) throws(KMSError) {
        overlay.stage()
        placePointer(on: p)
        cursor?.stage(modeset: needsModeset)
        let pointerPlace = cursor?.stagedPlace
        var req = try AtomicRequest()
        try addState(to: &req, pipeline: p, slot: slot, modeset: needsModeset, fence: fence)
        var flags = CommitFlags.nonBlock | CommitFlags.pageFlipEvent
        if needsModeset { flags |= CommitFlags.allowModeset }
        do { try req.commit(on: device, flags: flags) } catch { overlay.commitFailed(); cursor?.commitFailed(); throw error }
        overlay.committed()
        cursor?.committed()
        pointerQueued = pointerPlace
        needsModeset = false
        overlayChanged = false
        queuedSlot = slot
    }

    /// Set by `setOverlay`, cleared by the next commit that carries the overlay.
    private var overlayChanged = false

    /// The overlay changed and no commit has carried it yet.
    public var overlayChangePending: Bool { overlayChanged }

    /// Shows a changed overlay without a new video frame (a menu over a stream whose host sends no
    /// new pictures): commits the frame on screen again, unchanged, with the overlay's new state
    /// (NONBLOCK | PAGE_FLIP_EVENT; the flip completes like any other). Only on the plane route —
    /// a composited overlay lives inside the video's pixels and waits for the next frame.
    /// - Returns: whether a commit went out (false: nothing pending, a flip in flight, no frame
    ///   on screen, the VT away, or compositing).
    @discardableResult
    public func commitOverlayChange() throws(KMSError) -> Bool {
        guard overlayChanged, isActive, queuedSlot == nil, let p = pipeline, p.key != nil, let slot = currentSlot,
              p.slots.contains(where: { $0 === slot }), overlay.route != .composite else { return false }
        // The picture on screen was fenced when it first went out: nothing to wait for again.
        try send(slot, of: p, fence: false)
        return true
    }

    /// Whether a commit's flip is pending.
    public var flipPending: Bool { queuedSlot != nil }
    /// The frame on screen (its flip completed last).
    public var currentFrame: UInt64? { currentSlot?.frame }

    /// Reads flip events from the device into `events` (caller-owned, reused) and moves the
    /// queued slot to current for each completion on our CRTC; retired buffers are freed.
    public func readFlips(into events: inout [FlipEvent], scratch: UnsafeMutableRawBufferPointer) {
        let n = device.readEvents(into: scratch)
        guard n > 0 else { return }
        let start = events.count
        DRMEventParser.parse(UnsafeRawBufferPointer(rebasing: scratch[0..<n]), into: &events)
        for e in events[start...] where e.crtc == crtc || e.crtc == 0 {
            guard let q = queuedSlot else { continue }
            let previous = currentSlot
            currentSlot = q
            queuedSlot = nil
            overlay.flipCompleted()
            cursor?.flipCompleted()
            if let place = pointerQueued { pointerFlip = (place.x, place.y, e.sequence, e.timestampNs) }
            pointerQueued = nil
            if let previous, previous !== q, previous.releaseRequested {
                free(previous)
            }
            if !retired.isEmpty, !retired.contains(where: { $0 === q }) {
                for slot in retired { slot.picture?.lease.release() }
                retired.removeAll()
                retiredBackground = nil
                retiredImports?.removeAll()
                retiredImports = nil
            }
        }
    }

    /// The owner no longer needs frame `id`'s buffer; it is reused once it is neither queued nor
    /// on screen.
    public func release(frame id: UInt64) {
        let all = (pipeline?.slots ?? []) + retired
        guard let slot = all.first(where: { $0.frame == id }) else { return }
        if slot === currentSlot || slot === queuedSlot {
            slot.releaseRequested = true
        } else {
            free(slot)
        }
    }

    /// Frees a slot no longer on screen nor queued: a dumb buffer becomes reusable, an imported
    /// picture's lease goes back to the decoder and its slot leaves the pipeline.
    private func free(_ slot: Slot) {
        slot.frame = nil
        slot.releaseRequested = false
        guard let picture = slot.picture else { return }
        slot.picture = nil
        picture.lease.release()
        pipeline?.slots.removeAll { $0 === slot }
        retired.removeAll { $0 === slot }
    }

    /// Moves a replaced pipeline's buffers aside until the next flip completes.
    private func retire(_ old: Pipeline?) {
        guard let old else { return }
        retired.append(contentsOf: old.slots)
        retiredBackground = old.background
        if let imports = old.imports {
            retiredImports?.removeAll()
            retiredImports = imports
        }
    }

    /// Waits up to `timeoutMs` for the in-flight flip (used before restoring and on VT release).
    public func waitForPendingFlip(timeoutMs: Int32) {
        guard flipPending else { return }
        var events: [FlipEvent] = []
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 8)
        defer { scratch.deallocate() }
        var pfd = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
        if poll(&pfd, 1, timeoutMs) > 0 { readFlips(into: &events, scratch: scratch) }
        queuedSlot = nil
        overlay.flipCompleted()
        cursor?.flipCompleted()
        pointerQueued = nil
    }

    /// The device fd for the caller's poll set (readable = flip events pending).
    public var eventFD: Int32 { device.fd }

    // MARK: ownership

    /// Writes the saved start-up state back with one blocking ALLOW_MODESET commit. If the
    /// kernel refuses it, at least turns our planes off so the console's own restore can run.
    /// - Returns: whether the saved state was restored exactly.
    @discardableResult
    public func restoreSavedState() -> Bool {
        waitForPendingFlip(timeoutMs: 200)
        do {
            var req = try AtomicRequest()
            for a in saved.restoreAssignments {
                req.add(a.object, PropertyInfo(id: a.property, name: a.name, value: a.value), a.value)
            }
            try req.commit(on: device, flags: CommitFlags.allowModeset)
            return true
        } catch {
            // At least HDR signalling off and our planes off; planes alone if the driver refuses that.
            for hdrOff in [true, false] {
                guard var req = try? AtomicRequest() else { break }
                for p in planes {
                    guard let pp = planeProps[p.id] else { continue }
                    req.add(pp, "FB_ID", 0); req.add(pp, "CRTC_ID", 0)
                }
                if hdrOff { hdr.addSignalOff(to: &req) }
                if (try? req.commit(on: device, flags: CommitFlags.allowModeset)) != nil { break }
            }
            return false
        }
    }

    /// VT switched away: restore the console's state, drop master, stop committing.
    public func suspend() {
        guard holdsMaster, !isShutDown else { return }
        restoreSavedState()
        device.dropMaster()
        holdsMaster = false
    }

    /// VT back: retake master; the next commit is a full modeset.
    public func resume() throws(KMSError) {
        guard !holdsMaster, !isShutDown else { return }
        try device.acquireMaster()
        holdsMaster = true
        needsModeset = true
    }

    // MARK: hot-plug

    /// Re-reads the connector in use with a probe (the kernel asks the display again: EDID,
    /// status). nil when the connector is gone.
    public func reprobeConnector() -> ConnectorInfo? { device.connector(connector.id) }

    /// Nothing is attached any more: commits stop (`isActive` false) while the mode, the plane
    /// plan and the buffers stay as they are, for the display's return.
    public func outputDetached(_ info: ConnectorInfo) {
        connector = info
        attached = false
    }

    /// A display is attached again at the mode in use (`info` as re-read): the next commit is a
    /// full modeset with a mode blob made from the new list (same timing, maybe another index).
    public func outputAttached(_ info: ConnectorInfo, mode newMode: DisplayMode) throws(KMSError) {
        let blob = try device.createModeBlob(connector: info.id, index: newMode.index)
        // The CRTC's committed state holds its own reference to the old blob.
        device.destroyBlob(modeBlob)
        modeBlob = blob
        mode = newMode
        connector = info
        attached = true
        needsModeset = true
    }

    /// Drives `newMode` (an entry of `info.modes`) from the next commit: a new MODE_ID blob, and
    /// the plane plan and buffers made anew for the next picture at the new size (the old ones
    /// retire until the next flip completes). Bumps `modeGeneration`.
    public func switchMode(to newMode: DisplayMode, connector info: ConnectorInfo) throws(KMSError) {
        try outputAttached(info, mode: newMode)
        retire(pipeline)
        pipeline = nil
        plan = nil
        modeGeneration += 1
    }

    /// Restores the saved state (when we hold master), then frees every buffer and the mode blob.
    /// Idempotent.
    public func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        if holdsMaster { restoreSavedState() }
        currentSlot = nil; queuedSlot = nil
        for slot in (pipeline?.slots ?? []) + retired { slot.picture?.lease.release() }
        pipeline?.imports?.removeAll(); retiredImports?.removeAll()
        pipeline = nil; retired = []; retiredBackground = nil; retiredImports = nil
        overlay.releaseAll()
        cursor?.releaseAll()
        device.destroyBlob(modeBlob)
        if let savedModeBlob { device.destroyBlob(savedModeBlob) }
        hdr.destroyBlob(device: device)
    }

    /// Newest static HDR metadata (the host's datagram, a frame's side data; nil = no news).
    /// When HDR10 is on glass with other metadata, the next commit re-sends the modeset state.
    public func setHDRMetadata(_ metadata: HDRStaticMetadata?) {
        if let metadata, hdr.update(metadata: metadata) { needsModeset = true }
    }

    /// The signal chosen for the current layout.
    public var outputSignal: OutputSignal { hdr.signal }
    /// The static HDR metadata in use (nil: none seen).
    public var hdrMetadata: HDRStaticMetadata? { hdr.metadata }

    // MARK: canvas

    /// Increases whenever a new set of canvas buffers is made (their earlier drawings are gone).
    public private(set) var canvasGeneration = 0

    /// Canvas buffers: current + queued + one being drawn.
    static let canvasBuffers = 3

    /// A free mode-sized XRGB8888 buffer for drawing a whole screen (the shell), tagged `id` for
    /// `commit(frame:)` and `release(frame:)` like a video frame. The first call after video (or at
    /// start) sets up the canvas: its buffers on a plane covering the CRTC (TEST_ONLY-confirmed),
    /// cleared to black; the video pipeline retires until the next flip.
    /// - Returns: nil when every canvas buffer is on screen, queued or not yet released.
    public func canvas(id: UInt64) throws(KMSError) -> ScreenCanvas? {
        if pipeline == nil || pipeline?.key != nil {
            let plans = PlaneAssignment.plans(planes: planes, crtcIndex: crtcIndex, wanted: [(.xrgb8888, FormatModifier.linear)])
            let full = PixelRect(x: 0, y: 0, width: mode.width, height: mode.height)
            let attempts = plans.map { FitAttempt(plan: $0, destination: full, route: .unscaled) }
            _ = try adoptFirstAccepted(attempts, ifNone: .noPlane(format: "XR24 for the canvas")) { attempt throws(KMSError) in
                var slots: [Slot] = []
                for _ in 0..<Self.canvasBuffers {
                    let b = try DumbBuffer(device: device, width: mode.width, height: mode.height, format: .xrgb8888)
                    b.clearToBlack()
                    slots.append(Slot(b))
                }
                let candidate = Pipeline(key: nil, plan: attempt.plan, slots: slots, background: nil, source: FixedPointRect(full),
                                         destination: full, drawRect: full, converter: nil, colour: (nil, nil))
                return (candidate, slots[0])
            }
            canvasGeneration += 1
        }
        guard let p = pipeline, let index = p.slots.firstIndex(where: { $0.frame == nil }), let buffer = p.slots[index].buffer else { return nil }
        let slot = p.slots[index]
        slot.frame = id
        slot.releaseRequested = false
        return ScreenCanvas(id: id, pixels: buffer.map, pitch: buffer.pitch, width: mode.width, height: mode.height,
                            generation: canvasGeneration, index: index)
    }

    /// Whether the canvas (not video) is what the next commit shows.
    public var showsCanvas: Bool { pipeline != nil && pipeline?.key == nil }

    // MARK: stats overlay

    /// Shows `image` (nil = none) from the next committed frame on, on the route `OverlayLayer`
    /// chose: its own plane, composited into XRGB slots, or not at all.
    public func setOverlay(_ image: OverlayImage?) {
        if image?.generation != overlay.image?.generation { overlayChanged = true }
        overlay.set(image)
        if !overlay.routed, let p = pipeline {
            routeOverlay(p)
            needsModeset = true  // the plane set changes: every other plane's state goes out again
        }
    }

    // MARK: the host's pointer

    /// Whether the CRTC has a cursor plane the host's pointer can be drawn on.
    public var canDrawPointer: Bool { cursor?.planeID != nil }

    /// How the pointer is drawn: "plane <id> (WxH)" or "none (<reason>)".
    public var pointerRouteName: String {
        guard let c = cursor else { return "none (no device)" }
        if let id = c.planeID { return "plane \(id) (\(c.bufferWidth)x\(c.bufferHeight))" }
        return "none (\(c.unavailableReason ?? "?"))"
    }

    /// The host's pointer to draw from the next commit on (nil: none).
    public func setPointer(_ new: ScreenPointer?) {
        pointer = new
        if let p = pipeline { placePointer(on: p) }
    }

    /// Where the commit in flight moved the pointer to (its top-left on the CRTC), nil: it did not.
    private var pointerQueued: (x: Int, y: Int)?
    /// The newest flip that put the pointer somewhere new, not yet taken.
    private var pointerFlip: (x: Int, y: Int, sequence: UInt32, timestampNs: UInt64)?

    /// The pointer's new place reached glass: its top-left on the CRTC and the flip (vblank
    /// sequence, CLOCK_MONOTONIC ns; 0 when the event had none), once — the flip log's pointer line.
    public func takePointerFlip() -> (x: Int, y: Int, sequence: UInt32, timestampNs: UInt64)? {
        defer { pointerFlip = nil }
        return pointerFlip
    }

    /// The pointer changed and no commit has carried it yet.
    public var pointerChangePending: Bool { cursor?.changePending ?? false }

    /// Shows a moved or changed pointer without a new video frame: commits the frame on screen
    /// again with the cursor plane's new state (NONBLOCK | PAGE_FLIP_EVENT).
    /// - Returns: whether a commit went out (false: nothing pending, a flip in flight, no frame
    ///   on screen, or the VT away).
    @discardableResult
    public func commitPointerChange() throws(KMSError) -> Bool {
        guard pointerChangePending, isActive, queuedSlot == nil, let p = pipeline, p.key != nil, let slot = currentSlot,
              p.slots.contains(where: { $0 === slot }) else { return false }
        try send(slot, of: p, fence: false)
        return true
    }

    /// Maps the pointer through `p`'s picture place: the hot spot's screen pixel, the image at
    /// the picture's scale (at most the cursor buffer's size) with its top-left there minus the
    /// scaled hot spot. No pointer on the canvas.
    private func placePointer(on p: Pipeline) {
        guard let cursor, cursor.planeID != nil else { return }
        guard let pointer, p.key != nil else { cursor.set(nil, x: 0, y: 0); return }
        let videoWidth = pointer.videoWidth > 0 ? pointer.videoWidth : Int(p.source.width >> 16)
        let videoHeight = pointer.videoHeight > 0 ? pointer.videoHeight : Int(p.source.height >> 16)
        let scale = pointer.drawScale(picture: p.destination, pictureWidth: videoWidth,
                                      maxWidth: cursor.bufferWidth, maxHeight: cursor.bufferHeight)
        let image: CursorImage
        if let s = scaledPointer, s.source == pointer.image, s.scale == scale {
            image = s.image
        } else {
            image = pointer.image.scaled(by: scale)
            scaledPointer = (pointer.image.serial, pointer.image, scale, image)
        }
        let at = CursorPlacement.screenPoint(x: pointer.x, y: pointer.y, videoWidth: videoWidth, videoHeight: videoHeight,
                                             picture: p.destination)
        cursor.set(image, x: at.x - image.hotX, y: at.y - image.hotY)
    }

    /// The overlay image on glass now (nil = none).
    public var overlayOnGlass: OverlayImage? { overlay.onGlass(slotImage: currentSlot?.overlay) }

    /// How the overlay is shown: "plane <id>", "composited" or "none (<reason>)".
    public var overlayRouteName: String {
        switch overlay.route {
        case .plane(let id): "plane \(id)"
        case .composite: "composited"
        case .none(let why): "none (\(why))"
        }
    }

    private func routeOverlay(_ p: Pipeline) {
        overlay.route(video: p.plan, planes: planes, crtcIndex: crtcIndex, device: device, planeProps: planeProps) { _ in
            do {
                var req = try AtomicRequest()
                guard let slot = p.probe ?? p.slots.first else { return false }
                try addState(to: &req, pipeline: p, slot: slot, modeset: true)
                try req.test(on: device, flags: CommitFlags.allowModeset)
                return true
            } catch {
                return false
            }
        }
    }

    /// The plane format in use, as a 4-character code (`XR24`, `NV12`, `P010`).
    public var formatName: String { plan.map { "\($0.format)" } ?? "none" }
}
