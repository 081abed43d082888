import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Screen
import SystemClock
import VideoFrames
internal import Input
internal import CWaylandClient
internal import CWaylandProtocols

/// The screen under a compositor: one fullscreen xdg toplevel (app id `punktfunk-kiosk`) whose
/// own surface shows the shell's canvas or the stream's pictures, a video subsurface for a
/// picture that does not cover the screen, a subsurface for the panel over the stream, and
/// `wp_presentation` feedback per commit.
///
/// Threading: every call on the thread that created it (the presenting thread); its objects live
/// on the connection's private event queue.
///
/// Pacing: commit on arrival (newest wins; never waits for a frame callback); a hidden surface
/// (no feedback) keeps everything running. Pictures: CPU pictures are converted into a pool of
/// released-and-reused wl_shm buffers (XRGB8888; a 10-bit picture as XRGB2101010 or XBGR2101010
/// where `TenBitShm` says, so the two bits stay); GPU pictures are imported through
/// linux-dmabuf v4 when the surface feedback lists their format/modifier (one wl_buffer per VA
/// surface, held until `wl_buffer.release`; the first picture of each format/modifier/size is
/// asked with the asynchronous `create`, never `create_immed`, whose failure may be fatal —
/// `DmabufImportTrials`), else read back and shown through wl_shm.
///
/// Geometry (`SurfaceLayout`, `PlaneGeometry.place`): the toplevel's surface always covers the
/// configured size, whatever a compositor does with smaller surfaces (KWin 5.27 puts them in the
/// top-left corner). With `wp_viewporter` a picture's buffer is its visible size and a viewport
/// scales it onto its place: on the toplevel's own surface when that is the whole screen (one
/// surface, so a compositor may scan it out), else on the video subsurface above a black
/// toplevel (a single-pixel buffer, or a 1×1 wl_shm one, stretched by the toplevel's viewport).
/// Without a viewporter (cage 0.1.4) the buffer is the configured size × scale and the CPU
/// conversion draws the picture at its place with black bars — fitted while that stays within
/// `CPUFitBudget`, else 1:1. The host is asked for the window's real pixels (`mode`):
/// `wp_fractional_scale_v1` where offered, else the output's mode for a fullscreen window.
public final class WaylandScreen {
    let connection: WaylandConnection
    let surface: OpaquePointer
    private let xdgSurface: OpaquePointer
    private let toplevel: OpaquePointer
    var viewport: OpaquePointer?
    let viewportState = ViewportState()
    private var fractionalScale: OpaquePointer?
    /// `wp_fractional_scale_v1.preferred_scale` × 120 (nil: not said).
    private var fractionalScale120: Int?
    private var contentType: OpaquePointer?
    private var idleInhibitor: OpaquePointer?

    // Configure handshake: the pending values of the toplevel's configure, applied on the
    // xdg_surface's configure (serial).
    private var pendingWidth: Int32 = 0, pendingHeight: Int32 = 0
    private var pendingFullscreen = true
    /// The last acked configure's size and fullscreen state (the layout is recomputed from them
    /// when the output or the preferred scale changes).
    private var configuredWidth: Int32 = 0, configuredHeight: Int32 = 0
    private var configuredFullscreen = true
    private var configured = false
    private var closeRequested = false
    var layout = SurfaceLayout(logicalWidth: 1280, logicalHeight: 720, scale: 1)
    /// The output the surface entered last (wl_surface.enter), nil: none yet (the first output).
    private var enteredOutput: OpaquePointer?
    private var pendingChanges: [ScreenChange] = []

    // Buffers.
    private var canvasPool: ShmBufferPool?
    private var videoPool: ShmBufferPool?
    private var poolGeneration = 0
    private var canvasByID: [UInt64: Int] = [:]
    private var lastCommitWasCanvas = false
    private var canvasShownNs: UInt64?
    private var canvasInFlight: UInt64?
    private var conversion: PictureConversion?
    /// The wl_shm format and layout of 10-bit pictures (nil: XRGB8888).
    let deepShm: (format: UInt32, layout: RGBLayout)?
    /// The built-in conversion and its scratch columns (resized only when the geometry changes).
    private var converter: YUVToRGBConverter?
    private var columns: [Int32] = []

    // The video subsurface (a picture that does not cover the screen) and the black under it.
    var videoSurface: OpaquePointer?
    var videoSubsurface: OpaquePointer?
    var videoViewport: OpaquePointer?
    let videoViewportState = ViewportState()
    /// Where the last picture went: nowhere yet, the toplevel itself, or the subsurface at a
    /// logical rectangle.
    var videoPlacement = VideoPlacement.none
    var blackBuffer: OpaquePointer?
    var blackPool: ShmBufferPool?
    /// How pictures are placed, and the CPU scale's budget (no viewporter).
    public var scaling: PictureScaling = .fit
    var cpuFit = CPUFitPlacer(whySuffix: " (no wp_viewporter)", sentenceSuffix: " (the compositor offers no wp_viewporter)")
    /// Where the newest picture went, for the stats.
    var fitState: CPUFitPlacer.Placement?
    /// The seat made by `makeSeat` (its cursor is the host's pointer; it hears the picture's place).
    weak var seat: WaylandSeat?
    /// What the seat was told of the picture's place, panel pixels.
    var seatVideoArea: SeatVideoArea?
    /// The host's pointer image on the seat's cursor now: its serial and the scale it was drawn at.
    var cursorShown: (serial: UInt32, scale: Double)?

    // The panel's subsurface.
    private var panelSurface: OpaquePointer?
    private var panelSubsurface: OpaquePointer?
    private var panelViewport: OpaquePointer?
    private let panelViewportState = ViewportState()
    private var panelPool: ShmBufferPool?
    private var panelMapped = false
    public private(set) var panelGeneration: UInt64?
    /// The panel image shown now (the seam's `panelOnGlass`).
    var panelImage: OverlayImage?

    // Presentation feedback.
    private var ledger = PresentationLedger()
    private var clockMap = PresentationClockMap(clockID: PresentationClockMap.monotonicID, offsetNs: 0)
    private var clockSampledNs: UInt64 = 0
    private var feedbackSlots: [FeedbackSlot] = []
    private var nextSlot = 0
    private var shownQueue: [PresentationLedger.Shown] = []
    /// The outstanding `wl_surface.frame` callback and what it says about visibility.
    private var frameCallback: OpaquePointer?
    private var visibility = VisibilityWatch()
    public private(set) var stats = WaylandStats()

    // linux-dmabuf.
    private var dmabufFeedbackProxy: OpaquePointer?
    private var dmabufBuilder = DmabufFeedbackBuilder()
    public private(set) var dmabufFeedback: DmabufFeedback?
    private var imported: [ImportKey: ImportedBuffer] = [:]
    /// `create` first, `create_immed` once accepted (`DmabufImportTrials`), and the questions out.
    private var importTrials = DmabufImportTrials()
    private var trialsAsked: [ImportTrial] = []

    /// The notices of the connection (one line per missing optional protocol) and of the screen.
    public private(set) var notices: [String]

    /// Connects, creates the fullscreen toplevel and completes the configure handshake.
    /// - Parameters:
    ///   - displayName: the socket (nil: `WAYLAND_DISPLAY`).
    ///   - conversion: the CPU NV12/P010 → XRGB8888 path for software pictures.
    ///   - tenBitShm: when 10-bit pictures go as 10-bit wl_shm buffers (ignored with `conversion`).
    /// - Throws: `ScreenError` when no compositor is reachable, a required global is missing,
    ///   or no configure came within `configureTimeoutMs`.
    public init(displayName: String? = nil, appID: String = "punktfunk-kiosk", title: String = "punktfunk",
                conversion: PictureConversion? = nil, tenBitShm: TenBitShm = .auto,
                configureTimeoutMs: Int = 5000) throws(ScreenError) {
        let c: WaylandConnection
        do { c = try WaylandConnection(name: displayName) } catch { throw error }
        connection = c
        notices = c.notices
        self.conversion = conversion
        deepShm = conversion == nil ? tenBitShm.layout(shmFormats: c.shmFormats, composited: c.dmabuf != nil) : nil
        guard c.shmFormats.contains(1) || c.shmFormats.isEmpty else {
            c.disconnect()
            throw .unusable("the compositor's wl_shm takes no XRGB8888")
        }
        surface = wl_compositor_create_surface(c.compositor)
        xdgSurface = xdg_wm_base_get_xdg_surface(c.wmBase, surface)
        toplevel = xdg_surface_get_toplevel(xdgSurface)
        wl_surface_add_listener(surface, Self.surfaceListener.pointer, context(self))
        xdg_surface_add_listener(xdgSurface, Self.xdgSurfaceListener.pointer, context(self))
        xdg_toplevel_add_listener(toplevel, Self.toplevelListener.pointer, context(self))
        xdg_toplevel_set_app_id(toplevel, appID)
        xdg_toplevel_set_title(toplevel, title)
        xdg_toplevel_set_fullscreen(toplevel, nil)
        if let vp = c.viewporter { viewport = wp_viewporter_get_viewport(vp, surface) }
        if let m = c.fractionalScaleManager, viewport != nil {
            fractionalScale = wp_fractional_scale_manager_v1_get_fractional_scale(m, surface)
            wp_fractional_scale_v1_add_listener(fractionalScale, Self.fractionalScaleListener.pointer, context(self))
        }
        if let m = c.contentTypeManager {
            contentType = wp_content_type_manager_v1_get_surface_content_type(m, surface)
            wp_content_type_v1_set_content_type(contentType, UInt32(WP_CONTENT_TYPE_V1_TYPE_GAME.rawValue))
        }
        if let sub = c.subcompositor {
            if c.viewporter != nil { createVideoSurface(sub) }  // below the panel: made first
            createPanelSurface(sub)
        }
        if let d = c.dmabuf, c.dmabufVersion >= 4 {
            dmabufFeedbackProxy = zwp_linux_dmabuf_v1_get_surface_feedback(d, surface)
            zwp_linux_dmabuf_feedback_v1_add_listener(dmabufFeedbackProxy, Self.dmabufFeedbackListener.pointer,
                                                      context(self))
        }
        for _ in 0..<PresentationLedger().capacity { feedbackSlots.append(FeedbackSlot()) }
        // xdg-shell: the first commit carries no buffer; the configure answers it.
        wl_surface_commit(surface)
        let deadline = MonotonicClock.nowNs() + UInt64(configureTimeoutMs) * 1_000_000
        do throws(ScreenError) {
            try c.flush()
            while !configured {
                let now = MonotonicClock.nowNs()
                guard now < deadline else { throw .unusable("the compositor sent no configure for the fullscreen window") }
                try c.dispatch(timeoutMs: Int32(min(100, (deadline - now) / 1_000_000 + 1)))
            }
        } catch {
            destroyObjects()
            throw error
        }
        pendingChanges = []  // the first layout is the starting mode, not a change
        resampleClock(now: MonotonicClock.nowNs())
    }

    deinit { close() }

    // MARK: What it shows at

    /// The backend's name for the stats.
    public var backendName: String { "wayland" }

    /// `wayland HEADLESS-1 1280x720@60`.
    public var name: String { "wayland \(currentOutput?.displayName ?? "output") \(mode.name)" }

    /// The window's pixels (`SurfaceLayout`) and the output's refresh (0 when it does not say).
    public var mode: ScreenMode {
        ScreenMode(width: layout.pixelWidth, height: layout.pixelHeight, refreshMilliHz: currentOutput?.refreshMilliHz ?? 0)
    }

    /// The output's name for changes and logs.
    var outputName: String { currentOutput?.displayName ?? "wayland" }

    /// The output the window is on (or the first one).
    public var currentOutput: OutputState? {
        connection.output(for: enteredOutput) ?? connection.outputs.values.min(by: { $0.state.globalName < $1.state.globalName })?.state
    }

    /// The compositor's presentation clock (for the start-up line).
    public var presentationClockName: String? {
        connection.presentationClockID.map { PresentationClockMap(clockID: $0, offsetNs: 0).clockName }
    }

    /// Whether the compositor asked the window to close, or the connection is gone.
    public private(set) var isLost = false
    public var isActive: Bool { !isLost && !closeRequested }

    /// The display connection's descriptor (for a poll set).
    public var fileDescriptor: Int32 { wl_display_get_fd(connection.display) }

    // MARK: Waiting between streams

    private var readPrepared = false

    /// Descriptors to poll while no stream runs: flushes and prepares the read first.
    public func prepareWait() -> [Int32] {
        guard !isLost else { return [] }
        while wl_display_prepare_read_queue(connection.display, connection.queue) != 0 {
            if wl_display_dispatch_queue_pending(connection.display, connection.queue) < 0 { fail(connection.connectionError()); return [] }
        }
        readPrepared = true
        if wl_display_flush(connection.display) < 0, errno != EAGAIN {
            wl_display_cancel_read(connection.display); readPrepared = false
            fail(connection.connectionError()); return []
        }
        return [fileDescriptor]
    }

    /// After the poll: reads (or cancels the prepared read), dispatches, and returns what changed.
    public func finishWait(readable: [Bool]) -> [ScreenChange] {
        if readPrepared {
            readPrepared = false
            if readable.first == true {
                if wl_display_read_events(connection.display) < 0 { fail(connection.connectionError()) }
            } else {
                wl_display_cancel_read(connection.display)
            }
        }
        if !isLost, wl_display_dispatch_queue_pending(connection.display, connection.queue) < 0 {
            fail(connection.connectionError())
        }
        return takeChanges()
    }

    /// Dispatches whatever arrives within `timeoutMs` (0: what is there) and returns the changes.
    public func service(timeoutMs: Int32 = 0) -> [ScreenChange] {
        guard !isLost else { return takeChanges() }
        do { try connection.dispatch(timeoutMs: timeoutMs) } catch { fail(error) }
        return takeChanges()
    }

    /// Like `service`, polling `extra` descriptors alongside (their readiness returned).
    func serviceWaiting(timeoutMs: Int32, extra: [Int32]) -> [Bool] {
        guard !isLost else { return extra.map { _ in false } }
        do { return try connection.dispatch(timeoutMs: timeoutMs, extra: extra) } catch { fail(error) }
        return extra.map { _ in false }
    }

    /// Commits whose presentation feedback has not come back.
    var outstandingFeedback: Int { connection.presentation == nil ? 0 : ledger.outstanding }

    /// The changes since the last call, mode changes coalesced (`ScreenChanges.coalesced`).
    private func takeChanges() -> [ScreenChange] {
        for name in connection.takeRemovedOutputs() { pendingChanges.append(.disconnected(output: name)) }
        defer { pendingChanges = [] }
        return ScreenChanges.coalesced(pendingChanges)
    }

    private func fail(_ error: ScreenError) {
        guard !isLost else { return }
        isLost = true
        pendingChanges.append(.lost(sentence: error.description))
    }

    func flushOrFail() {
        if !isLost, wl_display_flush(connection.display) < 0, errno != EAGAIN { fail(connection.connectionError()) }
    }

    // MARK: The shell's canvas

    /// Whether a canvas commit can go out now: active, and none in flight — or the one in flight
    /// has had no answer for the ledger's stall time (a hidden surface, an output that is off, a
    /// compositor that answers no presentation feedback: headless sway), so the shell's next
    /// screen (the black one of standby, the one after a wake) is not held back for ever.
    public var canCommitCanvas: Bool {
        isActive && (canvasInFlight == nil || ledger.isStalled(now: MonotonicClock.nowNs()))
    }
    /// Whether the last commit was a canvas.
    public var showsCanvas: Bool { lastCommitWasCanvas }

    /// A free canvas buffer of the whole mode for frame `id`; nil when none is free yet.
    public func canvas(id: UInt64) throws(ScreenError) -> ScreenCanvas? {
        guard !isLost else { throw .lost("the Wayland connection is gone") }
        let pool: ShmBufferPool
        do {
            pool = try self.pool(&canvasPool, width: layout.pixelWidth, height: layout.pixelHeight, format: 1, count: 3)
        } catch { throw error }
        if let i = canvasByID[id] { return canvas(id: id, pool: pool, index: i) }
        guard let i = pool.free() else { return nil }
        pool.attachReserve(i)
        canvasByID[id] = i
        return canvas(id: id, pool: pool, index: i)
    }

    private func canvas(id: UInt64, pool: ShmBufferPool, index: Int) -> ScreenCanvas {
        ScreenCanvas(id: id, pixels: pool.pixels(index), pitch: pool.stride, width: pool.width, height: pool.height,
                      generation: pool.generation, index: index)
    }

    /// Puts canvas `id` on glass (`damage` in buffer pixels as (x, y, w, h), nil: all).
    public func commitCanvas(id: UInt64, damage: [PixelRect]?) throws(ScreenError) {
        guard !isLost else { throw .lost("the Wayland connection is gone") }
        guard let pool = canvasPool, let i = canvasByID.removeValue(forKey: id) else { return }
        let buffer = pool.attach(i)
        let unmapping = videoPlacement.onSubsurface
        if unmapping { unmapVideoSubsurface() }
        wl_surface_attach(surface, buffer, 0, 0)
        fillSurface(bufferWidth: pool.width, bufferHeight: pool.height)
        if let damage, !unmapping {
            for r in damage { wl_surface_damage_buffer(surface, Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height)) }
        } else {
            wl_surface_damage_buffer(surface, 0, 0, Int32(pool.width), Int32(pool.height))
        }
        videoPlacement = .none
        commit(surface, frameID: id, readyNs: MonotonicClock.nowNs(), canvas: true)
        if unmapping, let sub = videoSubsurface { wl_subsurface_set_desync(sub) }
        flushOrFail()
    }

    /// Gives a canvas that will not be committed back.
    public func release(frame id: UInt64) {
        if let i = canvasByID.removeValue(forKey: id) { canvasPool?.unmarkBusy(i) }
    }

    /// The time the newest canvas commit reached glass, once (nil: none since, or in flight).
    public func takeCanvasShown() -> UInt64? {
        defer { canvasShownNs = nil }
        return canvasShownNs
    }

    // MARK: A stream's pictures

    /// Commits `picture` now (newest wins). The picture is released by the screen (at once for
    /// CPU pictures; at `wl_buffer.release` for imported dma-bufs). - Returns: false when it
    /// could not be shown (no free buffer, an unlisted format without a CPU path).
    @discardableResult
    public func show(_ picture: DecodedPicture, frameID: UInt64, readyNs: UInt64) -> Bool {
        guard !isLost else { picture.release(); return false }
        switch picture {
        case .cpu(let frame):
            return showCPU(frame, frameID: frameID, readyNs: readyNs)
        case .dmaBuf(let frame):
            // Without a viewport only a picture of exactly the window's pixels can go as it is.
            let fits = viewport != nil || (frame.visibleWidth == layout.bufferWidth && frame.visibleHeight == layout.bufferHeight
                                           && frame.crop == FrameCrop())
            if fits, let buffer = importDmabuf(frame, picture: picture) {
                stats.dmabufFrames += 1
                showVideo(buffer, bufferWidth: frame.width, bufferHeight: frame.height, crop: frame.crop,
                          frameID: frameID, readyNs: readyNs)
                return true
            }
            // Not importable: read back (linear only) and go the CPU way.
            let cpu = try? frame.readPixels()
            picture.release()
            guard let cpu else { stats.refused += 1; return false }
            return showCPU(cpu, frameID: frameID, readyNs: readyNs)
        }
    }

    private func showCPU(_ frame: DecodedFrame, frameID: UInt64, readyNs: UInt64) -> Bool {
        let w = frame.visibleWidth, h = frame.visibleHeight
        guard w > 0, h > 0 else { stats.refused += 1; return false }
        let scaled = viewport != nil
        let deep = frame.pixelFormat.bitDepth == 10 ? deepShm : nil
        let format = deep?.format ?? 1
        let pool: ShmBufferPool
        do {
            pool = scaled ? try self.pool(&videoPool, width: w, height: h, format: format, count: 4)
                          : try self.pool(&videoPool, width: layout.bufferWidth, height: layout.bufferHeight, format: format, count: 4)
        } catch { fail(error); return false }
        guard let i = pool.free() else { stats.noFreeBuffer += 1; return false }
        let rect: PixelRect
        if scaled {
            rect = PixelRect(x: 0, y: 0, width: w, height: h)
        } else {
            guard let r = cpuPlace(width: w, height: h) else { return false }
            rect = r
            let tag = r.x << 48 | r.y << 32 | r.width << 16 | r.height
            if pool.tags[i] != tag {  // black bars once per buffer and placement
                memset(pool.pixels(i), 0, pool.stride * pool.height)
                pool.tags[i] = tag
            }
        }
        let t0 = MonotonicClock.nowNs()
        do {
            if let conversion {
                try conversion(frame, pool.pixels(i), pool.stride, rect.x, rect.y, rect.width, rect.height)
            } else {
                let converter = YUVToRGBConverter(for: frame, output: deep?.layout ?? .xrgb8888)
                if converter != self.converter { self.converter = converter }
                try self.converter!.convert(frame, into: pool.pixels(i), pitch: pool.stride,
                                            rect: PixelRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height),
                                            columns: &columns)
            }
        } catch { stats.refused += 1; return false }
        let dt = MonotonicClock.nowNs() - t0
        stats.convertNsSum += dt
        stats.convertNsMax = max(stats.convertNsMax, dt)
        stats.shmFrames += 1
        if deep != nil { stats.shmDeepFrames += 1 }
        if scaled {
            showVideo(pool.attach(i), bufferWidth: w, bufferHeight: h, crop: FrameCrop(), frameID: frameID, readyNs: readyNs)
        } else {
            judgeCPUFit(ns: dt)
            wl_surface_attach(surface, pool.attach(i), 0, 0)
            fillSurface(bufferWidth: pool.width, bufferHeight: pool.height)
            wl_surface_damage_buffer(surface, 0, 0, Int32(pool.width), Int32(pool.height))
            videoPlacement = .onToplevel
            commit(surface, frameID: frameID, readyNs: readyNs, canvas: false)
            flushOrFail()
        }
        return true
    }

    // MARK: Commits and feedback

    /// Commits `target` (the toplevel's surface or the video subsurface) with a presentation
    /// feedback for the picture or canvas on it. The caller flushes.
    func commit(_ target: OpaquePointer, frameID: UInt64, readyNs: UInt64, canvas: Bool) {
        let now = MonotonicClock.nowNs()
        lastCommitWasCanvas = canvas
        stats.committed += 1
        if canvas { canvasInFlight = frameID }
        if let presentation = connection.presentation {
            if now > clockSampledNs + 1_000_000_000 { resampleClock(now: now) }
            let token = ledger.handleCommit(frameID: frameID, readyNs: readyNs, now: now)
            let slot = feedbackSlots[nextSlot]
            nextSlot = (nextSlot + 1) % feedbackSlots.count
            if let old = slot.proxy { wp_presentation_feedback_destroy(old) }  // forgotten by the ledger too
            slot.token = token
            slot.canvas = canvas
            slot.screen = self
            slot.proxy = wp_presentation_feedback(presentation, target)
            wp_presentation_feedback_add_listener(slot.proxy, Self.feedbackListener.pointer, context(slot))
        } else {
            // No presentation-time (cage 0.1.4): the commit is the best glass time there is.
            shownQueue.append(PresentationLedger.Shown(frameID: frameID, glassNs: now, readyNs: readyNs, commitNs: now,
                                                       flags: [], refreshNs: 0))
            if canvas { canvasShownNs = now; canvasInFlight = nil }
        }
        if visibility.commit(now: now), let cb = wl_surface_frame(target) {
            frameCallback = cb
            wl_callback_add_listener(cb, Self.frameListener.pointer, context(self))
        }
        if panelNeedsParentCommit { panelNeedsParentCommit = false }
        wl_surface_commit(target)
        stats.presentation = ledger.stats
    }

    /// Pictures that reached glass since the last call (in order), with CLOCK_MONOTONIC times.
    public func takeShown() -> [PresentationLedger.Shown] {
        stats.hidden = visibility.isHidden(now: MonotonicClock.nowNs())
        defer { shownQueue.removeAll(keepingCapacity: true) }
        return shownQueue
    }

    private func resampleClock(now: UInt64) {
        guard let id = connection.presentationClockID else { return }
        clockSampledNs = now
        if id == PresentationClockMap.monotonicID { clockMap = PresentationClockMap(clockID: id, offsetNs: 0); return }
        var ts = timespec()
        let before = MonotonicClock.nowNs()
        guard clock_gettime(clockid_t(id), &ts) == 0 else { return }
        let after = MonotonicClock.nowNs()
        clockMap = PresentationClockMap(clockID: id, monotonicBeforeNs: before,
                                        clockNs: UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec),
                                        monotonicAfterNs: after)
    }

    fileprivate func handlePresented(_ slot: FeedbackSlot, clockNs: UInt64, refreshNs: UInt32, flags: UInt32) {
        let now = MonotonicClock.nowNs()
        if let shown = ledger.handlePresented(token: slot.token, glassNs: clockMap.monotonic(clockNs),
                                              refreshNs: UInt64(refreshNs), flags: .init(rawValue: flags), now: now) {
            shownQueue.append(shown)
            visibility.presented(now: now)
            if slot.canvas { canvasShownNs = shown.glassNs }
        }
        if slot.canvas, canvasInFlight != nil { canvasInFlight = nil }
        finish(slot)
    }

    fileprivate func handleDiscarded(_ slot: FeedbackSlot) {
        ledger.handleDiscarded(token: slot.token, now: MonotonicClock.nowNs())
        if slot.canvas { canvasInFlight = nil }
        finish(slot)
    }

    private func finish(_ slot: FeedbackSlot) {
        if let p = slot.proxy { wp_presentation_feedback_destroy(p) }
        slot.proxy = nil
        stats.presentation = ledger.stats
    }

    // MARK: Streaming

    /// While streaming: inhibit idle (screen blanking) where the compositor offers it.
    public func setStreaming(_ on: Bool) {
        if on, idleInhibitor == nil, let m = connection.idleInhibitManager {
            idleInhibitor = zwp_idle_inhibit_manager_v1_create_inhibitor(m, surface)
        } else if !on, let i = idleInhibitor {
            zwp_idle_inhibitor_v1_destroy(i)
            idleInhibitor = nil
        }
        flushOrFail()
    }

    // MARK: The panel over the stream

    private var panelNeedsParentCommit = false

    private func createPanelSurface(_ sub: OpaquePointer) {
        guard let s = wl_compositor_create_surface(connection.compositor) else { return }
        panelSurface = s
        panelSubsurface = wl_subcompositor_get_subsurface(sub, s, surface)
        if let vp = connection.viewporter { panelViewport = wp_viewporter_get_viewport(vp, s) }
        wl_subsurface_set_desync(panelSubsurface)
        // Empty input region: the pointer goes to the toplevel underneath.
        let region = wl_compositor_create_region(connection.compositor)
        wl_surface_set_input_region(s, region)
        wl_region_destroy(region)
        wl_surface_commit(s)
    }

    /// Shows (or with nil hides — unmaps) the panel: premultiplied ARGB8888 (bytes B, G, R, A),
    /// `width × 4` bytes per row, at (`x`, `y`) in mode pixels. Without a subcompositor nothing
    /// is shown (a notice says so at start).
    public func setPanel(width: Int, height: Int, x: Int, y: Int, pixels: [UInt8], generation: UInt64) {
        guard let ps = panelSurface, !isLost else { return }
        guard width > 0, height > 0, pixels.count >= width * height * 4 else { return }
        if panelGeneration == generation, panelMapped { return }
        let pool: ShmBufferPool
        do { pool = try self.pool(&panelPool, width: width, height: height, format: 0, count: 2) } catch { fail(error); return }
        guard let i = pool.free() else { return }  // both held: the next call shows it
        pixels.withUnsafeBytes { src in
            for row in 0..<height {
                memcpy(pool.pixels(i) + row * pool.stride, src.baseAddress! + row * width * 4, width * 4)
            }
        }
        wl_surface_attach(ps, pool.attach(i), 0, 0)
        // The panel is drawn in the window's pixels; its place in surface units.
        let place = layout.logical(PixelRect(x: x, y: y, width: width, height: height))
        if let pv = panelViewport {
            panelViewportState.set(pv, source: nil, bufferWidth: width, bufferHeight: height,
                                   destination: (place.width, place.height))
        } else {
            wl_surface_set_buffer_scale(ps, Int32(layout.scale))
        }
        wl_surface_damage_buffer(ps, 0, 0, Int32(width), Int32(height))
        wl_subsurface_set_position(panelSubsurface, Int32(place.x), Int32(place.y))
        wl_surface_commit(ps)
        wl_surface_commit(surface)  // the position is the parent's state
        flushOrFail()
        panelMapped = true
        panelGeneration = generation
    }

    /// Hides the panel: the subsurface is unmapped (no buffer), so the picture's surface stays
    /// alone and eligible for direct scan-out.
    ///
    /// Under cage 0.1.4 on wlroots 0.15 a mapped subsurface would not change that anyway: cage's
    /// scan-out check counts the view's surfaces with an iterator that increments its pointer
    /// argument, not the count (`count_surface_iterator`, output.c), so it tries scan-out with any
    /// number of subsurfaces. On DRM an shm buffer fails that try (no dma-buf to import) and cage
    /// composites; only the headless backend takes it, where screencopy (grim) then reads an
    /// output buffer that was never drawn — see Tests/wayland/run.sh, the cage cases.
    public func hidePanel() {
        guard let ps = panelSurface, panelMapped, !isLost else { return }
        wl_surface_attach(ps, nil, 0, 0)
        wl_surface_commit(ps)
        wl_surface_commit(surface)
        flushOrFail()
        panelMapped = false
        panelGeneration = nil
    }

    /// How the panel is shown, for the start-up line.
    public var panelRoute: String { panelSurface != nil ? "subsurface" : "none (no wl_subcompositor)" }

    // MARK: Buffers

    private func pool(_ slot: inout ShmBufferPool?, width: Int, height: Int, format: UInt32, count: Int) throws(ScreenError) -> ShmBufferPool {
        if let p = slot, p.width == width, p.height == height, p.format == format { return p }
        poolGeneration += 1
        let p = try ShmBufferPool(shm: connection.shm!, width: width, height: height, format: format, count: count,
                                  generation: poolGeneration)
        slot = p
        return p
    }

    // MARK: linux-dmabuf

    private struct ImportKey: Hashable { var surface: UInt32; var generation: Int }
    private final class ImportedBuffer {
        let buffer: OpaquePointer
        var held: DecodedPicture?
        init(buffer: OpaquePointer) { self.buffer = buffer }
    }
    /// One asynchronous `create` waiting for `created` / `failed`.
    private final class ImportTrial {
        let key: DmabufImportTrials.Key
        let params: OpaquePointer
        weak var screen: WaylandScreen?
        init(key: DmabufImportTrials.Key, params: OpaquePointer, screen: WaylandScreen) {
            self.key = key; self.params = params; self.screen = screen
        }
    }

    /// The wl_buffer of a VA surface: imported once per (surface, generation) when the surface
    /// feedback lists its format/modifier; the picture is held until the buffer's release.
    private func importDmabuf(_ frame: DMABufFrame, picture: DecodedPicture) -> OpaquePointer? {
        guard let dmabuf = connection.dmabuf, let feedback = dmabufFeedback,
              let modifier = frame.objects.first?.modifier,
              feedback.lists(format: frame.fourcc, modifier: modifier) else { return nil }
        let key = ImportKey(surface: frame.surface, generation: frame.generation)
        let entry: ImportedBuffer
        if let e = imported[key] {
            entry = e
        } else {
            let trialKey = DmabufImportTrials.Key(pair: FormatModifier(format: frame.fourcc, modifier: modifier),
                                                  width: frame.width, height: frame.height)
            let step = importTrials.step(for: trialKey)
            guard step != .readBack, let params = zwp_linux_dmabuf_v1_create_params(dmabuf) else { return nil }
            for (index, plane) in frame.planes.enumerated() {
                let obj = frame.objects[plane.objectIndex]
                zwp_linux_buffer_params_v1_add(params, obj.fd, UInt32(index), plane.offset, plane.pitch,
                                               UInt32(truncatingIfNeeded: modifier >> 32),
                                               UInt32(truncatingIfNeeded: modifier))
            }
            if step == .askFirst {
                // The answer comes as created/failed; this picture goes the CPU way meanwhile.
                let trial = ImportTrial(key: trialKey, params: params, screen: self)
                zwp_linux_buffer_params_v1_add_listener(params, Self.trialListener.pointer, context(trial))
                zwp_linux_buffer_params_v1_create(params, Int32(frame.width), Int32(frame.height), frame.fourcc, 0)
                trialsAsked.append(trial)
                flushOrFail()
                return nil
            }
            // create_immed: only combinations the compositor accepted before reach here.
            guard let buffer = zwp_linux_buffer_params_v1_create_immed(params, Int32(frame.width), Int32(frame.height),
                                                                       frame.fourcc, 0) else {
                zwp_linux_buffer_params_v1_destroy(params); return nil
            }
            zwp_linux_buffer_params_v1_destroy(params)
            entry = ImportedBuffer(buffer: buffer)
            wl_buffer_add_listener(buffer, Self.importedListener.pointer, context(entry))
            imported[key] = entry
        }
        entry.held?.release()  // a re-export of the same surface: the older lease goes back
        entry.held = picture
        return entry.buffer
    }

    private static let trialListener = Listener(zwp_linux_buffer_params_v1_listener(
        created: { data, _, buffer in
            let trial = object(data, as: ImportTrial.self)
            if let buffer { wl_buffer_destroy(buffer) }  // the question's buffer; pictures import their own
            trial.screen?.answer(trial, accepted: true)
        },
        failed: { data, _ in
            let trial = object(data, as: ImportTrial.self)
            trial.screen?.answer(trial, accepted: false)
        }
    ))

    private func answer(_ trial: ImportTrial, accepted: Bool) {
        importTrials.record(trial.key, accepted: accepted)
        zwp_linux_buffer_params_v1_destroy(trial.params)
        trialsAsked.removeAll { $0 === trial }
        if !accepted {
            FileHandle.standardError.write(Data(("punktfunk-kiosk: the compositor refused the dma-buf \(trial.key): "
                + "those pictures are read back and shown through wl_shm\n").utf8))
        }
    }

    private static let importedListener = Listener(wl_buffer_listener(
        release: { data, _ in
            let entry = object(data, as: ImportedBuffer.self)
            entry.held?.release()
            entry.held = nil
        }
    ))

    fileprivate func handleDmabufDone() {
        switch dmabufBuilder.handleDone() {
        case .success(let fb):
            dmabufFeedback = fb
        case .failure(let e):
            notices.append("linux-dmabuf feedback unreadable (\(e)): GPU pictures go through wl_shm")
            dmabufFeedback = nil
        }
    }

    fileprivate func handleFormatTable(fd: Int32, size: UInt32) {
        defer { Glibc.close(fd) }  // the fd is ours (libwayland dup'ed it for us)
        guard size > 0, let m = mmap(nil, Int(size), PROT_READ, MAP_PRIVATE, fd, 0), m != MAP_FAILED else { return }
        dmabufBuilder.handleFormatTable(UnsafeRawBufferPointer(start: m, count: Int(size)))
        munmap(m, Int(size))
    }

    // MARK: Configure

    fileprivate func handleToplevelConfigure(width: Int32, height: Int32, fullscreen: Bool) {
        pendingWidth = width; pendingHeight = height; pendingFullscreen = fullscreen
    }

    fileprivate func handleSurfaceConfigure(serial: UInt32) {
        xdg_surface_ack_configure(xdgSurface, serial)
        configuredWidth = pendingWidth; configuredHeight = pendingHeight; configuredFullscreen = pendingFullscreen
        relayout(first: !configured)
        configured = true
    }

    fileprivate func handleEnter(_ output: OpaquePointer?) {
        enteredOutput = output
        if configured { relayout(first: false) }
    }

    fileprivate func handlePreferredScale(_ scale120: UInt32) {
        fractionalScale120 = Int(scale120)
        if configured { relayout(first: false) }
    }

    /// The layout from the last configure, the output the window is on and its preferred scale;
    /// a change of the window's pixels is news for the runner (and the host).
    private func relayout(first: Bool) {
        let out = currentOutput
        let output = out.map { (width: $0.shownWidth, height: $0.shownHeight, scale: $0.scale) }
        let next = SurfaceLayout.configured(width: configuredWidth, height: configuredHeight, output: output,
                                            fullscreen: configuredFullscreen, fractionalScale120: fractionalScale120,
                                            viewport: viewport != nil)
        let before = mode
        guard next != layout || first else { return }
        layout = next
        if !first, before != mode { pendingChanges.append(.modeChanged(output: outputName, from: before, to: mode)) }
    }

    // MARK: Leaving

    private var closed = false

    /// Destroys the window and disconnects. Idempotent.
    public func close() {
        guard !closed else { return }
        closed = true
        destroyObjects()
    }

    private func destroyObjects() {
        for slot in feedbackSlots { if let p = slot.proxy { wp_presentation_feedback_destroy(p); slot.proxy = nil } }
        if let cb = frameCallback { wl_callback_destroy(cb); frameCallback = nil }
        for (_, e) in imported { e.held?.release(); wl_buffer_destroy(e.buffer) }
        imported = [:]
        for trial in trialsAsked { zwp_linux_buffer_params_v1_destroy(trial.params) }
        trialsAsked = []
        if let p = dmabufFeedbackProxy { zwp_linux_dmabuf_feedback_v1_destroy(p); dmabufFeedbackProxy = nil }
        if let i = idleInhibitor { zwp_idle_inhibitor_v1_destroy(i); idleInhibitor = nil }
        if let ct = contentType { wp_content_type_v1_destroy(ct); contentType = nil }
        if let f = fractionalScale { wp_fractional_scale_v1_destroy(f); fractionalScale = nil }
        if let v = viewport { wp_viewport_destroy(v); viewport = nil }
        if let v = panelViewport { wp_viewport_destroy(v); panelViewport = nil }
        if let s = panelSubsurface { wl_subsurface_destroy(s); panelSubsurface = nil }
        if let s = panelSurface { wl_surface_destroy(s); panelSurface = nil }
        if let v = videoViewport { wp_viewport_destroy(v); videoViewport = nil }
        if let s = videoSubsurface { wl_subsurface_destroy(s); videoSubsurface = nil }
        if let s = videoSurface { wl_surface_destroy(s); videoSurface = nil }
        if let b = blackBuffer { wl_buffer_destroy(b); blackBuffer = nil }
        canvasPool = nil; videoPool = nil; panelPool = nil; blackPool = nil
        xdg_toplevel_destroy(toplevel)
        xdg_surface_destroy(xdgSurface)
        wl_surface_destroy(surface)
        if !isLost { _ = wl_display_flush(connection.display) }
        connection.disconnect()
    }

    // MARK: Listeners

    private static let surfaceListener = Listener(wl_surface_listener(
        enter: { data, _, output in object(data, as: WaylandScreen.self).handleEnter(output) },
        leave: { _, _, _ in }
    ))

    private static let xdgSurfaceListener = Listener(xdg_surface_listener(
        configure: { data, _, serial in object(data, as: WaylandScreen.self).handleSurfaceConfigure(serial: serial) }
    ))

    private static let toplevelListener = Listener(xdg_toplevel_listener(
        configure: { data, _, w, h, states in
            // xdg_toplevel.state values, uint32 each (xdg-shell.xml): 2 = fullscreen.
            var fullscreen = false
            if let states, states.pointee.size > 0, let base = states.pointee.data {
                let words = UnsafeRawBufferPointer(start: base, count: states.pointee.size)
                for i in stride(from: 0, to: words.count - 3, by: 4) where words.loadUnaligned(fromByteOffset: i, as: UInt32.self) == 2 {
                    fullscreen = true
                }
            }
            object(data, as: WaylandScreen.self).handleToplevelConfigure(width: w, height: h, fullscreen: fullscreen)
        },
        close: { data, _ in
            let s = object(data, as: WaylandScreen.self)
            s.closeRequested = true
            s.pendingChanges.append(.lost(sentence: "the compositor closed the window"))
        },
        configure_bounds: { _, _, _, _ in },
        wm_capabilities: { _, _, _ in }
    ))

    private static let frameListener = Listener(wl_callback_listener(
        done: { data, callback, _ in
            let s = object(data, as: WaylandScreen.self)
            if let callback { wl_callback_destroy(callback) }
            s.frameCallback = nil
            s.visibility.frameDone()
        }
    ))

    private static let fractionalScaleListener = Listener(wp_fractional_scale_v1_listener(
        preferred_scale: { data, _, scale in object(data, as: WaylandScreen.self).handlePreferredScale(scale) }
    ))

    private static let feedbackListener = Listener(wp_presentation_feedback_listener(
        sync_output: { _, _, _ in },
        presented: { data, _, secHi, secLo, nsec, refresh, _, _, flags in
            let slot = object(data, as: FeedbackSlot.self)
            slot.screen?.handlePresented(slot, clockNs: PresentationClockMap.nanoseconds(secondsHigh: secHi, secondsLow: secLo,
                                                                                          nanoseconds: nsec),
                                         refreshNs: refresh, flags: flags)
        },
        discarded: { data, _ in
            let slot = object(data, as: FeedbackSlot.self)
            slot.screen?.handleDiscarded(slot)
        }
    ))

    private static let dmabufFeedbackListener = Listener(zwp_linux_dmabuf_feedback_v1_listener(
        done: { data, _ in object(data, as: WaylandScreen.self).handleDmabufDone() },
        format_table: { data, _, fd, size in object(data, as: WaylandScreen.self).handleFormatTable(fd: fd, size: size) },
        main_device: { data, _, array in
            let s = object(data, as: WaylandScreen.self)
            s.dmabufBuilder.handleMainDevice(UnsafeRawBufferPointer(start: array?.pointee.data, count: array?.pointee.size ?? 0))
        },
        tranche_done: { data, _ in object(data, as: WaylandScreen.self).dmabufBuilder.handleTrancheDone() },
        tranche_target_device: { data, _, array in
            let s = object(data, as: WaylandScreen.self)
            s.dmabufBuilder.handleTrancheTargetDevice(UnsafeRawBufferPointer(start: array?.pointee.data,
                                                                             count: array?.pointee.size ?? 0))
        },
        tranche_formats: { data, _, array in
            let s = object(data, as: WaylandScreen.self)
            s.dmabufBuilder.handleTrancheFormats(UnsafeRawBufferPointer(start: array?.pointee.data, count: array?.pointee.size ?? 0))
        },
        tranche_flags: { data, _, flags in object(data, as: WaylandScreen.self).dmabufBuilder.handleTrancheFlags(flags) }
    ))
}

/// One outstanding `wp_presentation_feedback`: reused round-robin (no allocation per frame).
final class FeedbackSlot {
    weak var screen: WaylandScreen?
    var token: UInt64 = 0
    var canvas = false
    var proxy: OpaquePointer?
}
