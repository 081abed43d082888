#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Screen
import SystemClock
import VideoFrames
internal import Input
internal import CXCB

/// The screen under an X server: one window the size of the root, made fullscreen through EWMH
/// (`_NET_WM_STATE_FULLSCREEN` before the map, and the request after it) — or, with no window
/// manager at all, placed over the root, raised and given the input focus by the kiosk itself.
///
/// Pictures: every frame is a pixmap of the window's size presented with Present's
/// `PresentPixmap` at the refresh after the newest one shown (the server moves a past target to
/// its next refresh): CPU pictures are converted into it at their place (`PlaneGeometry.place`,
/// black bars around; 1:1 once the CPU scale goes over `CPUFitBudget`), the shell's canvas is
/// drawn into it, and the panel over the stream is blended into it (premultiplied, over the
/// picture). Pixmaps live on MIT-SHM segments where the server can map ours, else their rows go
/// with PutImage (`X11PicturePath`). A pixmap is reused only after Present's IdleNotify.
///
/// Glass times: Present's CompleteNotify for each `PresentPixmap` (`ust`, CLOCK_MONOTONIC µs on
/// X.Org and Xwayland) feeds the same `PresentationLedger` as Wayland's feedback: Copy/Flip →
/// presented, Skip → discarded (a newer pixmap took its refresh). Nothing else counts as shown.
///
/// Threading: every call on the thread that made it (the presenting thread).
public final class X11Screen {
    let connection: X11Connection
    let window: xcb_window_t
    /// The EWMH window manager's `_NET_WM_NAME`, nil when none runs.
    public let windowManager: String?
    public private(set) var picturePath: X11PicturePath
    /// One line per thing that degrades (no XInput 2, PutImage instead of MIT-SHM, …).
    public private(set) var notices: [String] = []

    private let ewmh: UnsafeMutablePointer<xcb_ewmh_connection_t>
    private let presentEventID: UInt32
    let blankCursor: xcb_cursor_t
    /// The host's pointer as the window's cursor (nil: the server cannot show an ARGB cursor;
    /// `hostCursorRoute` says why).
    let hostCursor: X11HostCursor?
    let hostCursorRoute: String
    /// What the seat was told of the picture's place (absolute pointer motion maps through it).
    var seatVideoArea: SeatVideoArea?
    /// The window's size in pixels (ConfigureNotify), and the refresh of the CRTC it is on.
    private(set) var width: Int, height: Int
    private var refreshMilliHz: Int
    private var mapped = false
    private var closeRequested = false
    public private(set) var isLost = false
    private var pendingChanges: [ScreenChange] = []
    /// Routed XInput 2 events (the seat made by `makeSeat`).
    weak var seat: X11Seat?

    // Pixmaps.
    private var canvasPool: X11PixmapPool?
    private var videoPool: X11PixmapPool?
    private var poolGeneration = 0
    private var canvasByID: [UInt64: Int] = [:]
    private var lastCommitWasCanvas = false
    private var canvasShownNs: UInt64?
    private var canvasInFlight: UInt64?
    /// The newest pixmap presented (an Expose shows it again while nothing newer came).
    private var lastPresented: (canvas: Bool, generation: Int, index: Int)?
    private var exposed = false

    // Placement and conversion.
    public var scaling: PictureScaling = .fit
    private var converter: YUVToRGBConverter?
    private var columns: [Int32] = []
    private var cpuFit = CPUFitPlacer()
    /// Where the newest picture went, for the stats.
    var fitState: CPUFitPlacer.Placement? { cpuFit.placement }

    // The panel, blended into the newest picture; the pixels it covers there, to take it off again.
    var panelImage: OverlayImage?
    private var panelOnPicture: OverlayImage?
    private var underPanel: [UInt8] = []
    private var underPanelRect: PixelRect?
    var videoPlace: PixelRect?

    // Present bookkeeping.
    private var ledger = PresentationLedger()
    private var slots: [PresentSlot]
    private var lastMSC: UInt64 = 0
    private var shownQueue: [PresentationLedger.Shown] = []
    public private(set) var stats = X11Stats()

    /// Connects, makes the fullscreen window and waits until it is mapped.
    /// - Parameters:
    ///   - display: `DISPLAY` (nil: the environment's).
    ///   - extraProperties: more window properties to set before the map (gamescope's `STEAM_GAME`).
    /// - Throws: `ScreenError` when no server answers, Present is missing, or the window is not
    ///   mapped within `mapTimeoutMs`.
    ///   - sharedMemory: false sends pixels with PutImage even where MIT-SHM works (the benchmark's baseline).
    public init(display: String? = nil, title: String = "punktfunk", extraProperties: [GamescopeProperties.Property] = [],
                sharedMemory: Bool = true, mapTimeoutMs: Int = 5000) throws(ScreenError) {
        let conn = try X11Connection(display: display)
        connection = conn
        let c = conn.c
        ewmh = .allocate(capacity: 1)
        ewmh.initialize(to: xcb_ewmh_connection_t())
        _ = xcb_ewmh_init_atoms_replies(ewmh, xcb_ewmh_init_atoms(c, ewmh), nil)
        conn.prefetchAtoms(["WM_PROTOCOLS", "WM_DELETE_WINDOW", "_MOTIF_WM_HINTS", "_NET_WM_BYPASS_COMPOSITOR"]
                           + extraProperties.map(\.name))
        windowManager = Self.windowManagerName(c, root: conn.root)
        slots = (0..<PresentationLedger().capacity).map { _ in PresentSlot() }
        width = conn.rootWidth; height = conn.rootHeight
        refreshMilliHz = 0
        picturePath = X11PicturePath.decide(dri3: conn.dri3Version, shm: sharedMemory ? conn.shmVersion : nil, shmAttachWorks: true)

        // A cursor of no pixels: the shell draws its own pointer; a stream shows the host's.
        let cursorPixmap = xcb_generate_id(c)
        xcb_create_pixmap(c, 1, cursorPixmap, conn.root, 1, 1)
        blankCursor = xcb_generate_id(c)
        xcb_create_cursor(c, blankCursor, cursorPixmap, cursorPixmap, 0, 0, 0, 0, 0, 0, 0, 0)
        xcb_free_pixmap(c, cursorPixmap)
        (hostCursor, hostCursorRoute) = X11HostCursor.make(conn)

        window = xcb_generate_id(c)
        let mask = XCB_CW_BACK_PIXEL.rawValue | XCB_CW_EVENT_MASK.rawValue | XCB_CW_CURSOR.rawValue
        let events = XCB_EVENT_MASK_EXPOSURE.rawValue | XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue
        var values: [UInt32] = [0, events, blankCursor]  // black, in the order of the mask's bits
        xcb_create_window(c, 0 /* CopyFromParent */, window, conn.root, 0, 0, UInt16(width), UInt16(height), 0,
                          UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), conn.rootVisual, mask, &values)
        presentEventID = xcb_generate_id(c)
        setProperties(title: title, extra: extraProperties)
        xcb_present_select_input(c, presentEventID, window,
                                 XCB_PRESENT_EVENT_MASK_COMPLETE_NOTIFY.rawValue | XCB_PRESENT_EVENT_MASK_IDLE_NOTIFY.rawValue)
        xcb_map_window(c, window)
        conn.flush()

        let deadline = MonotonicClock.nowNs() + UInt64(mapTimeoutMs) * 1_000_000
        do throws(ScreenError) {
            while !mapped {
                if let why = conn.failure { throw .lost(why) }
                guard MonotonicClock.nowNs() < deadline else { throw .unusable("the X server did not map the kiosk's window within \(mapTimeoutMs) ms") }
                _ = service(timeoutMs: 50)
            }
            takeTheScreen(deadline: MonotonicClock.nowNs() + 1_000_000_000)
        } catch {
            destroyObjects()
            throw error
        }
        refreshMilliHz = conn.refreshMilliHz(atX: width / 2, y: height / 2)
        if conn.xinputVersion == nil {
            notices.append("the X server offers no XInput 2.2: no keyboard or mouse through it (pads still work)")
        }
        pendingChanges = []  // the first size is the starting mode, not a change
    }

    deinit { close() }

    // MARK: The window

    private func setProperties(title: String, extra: [GamescopeProperties.Property]) {
        let c = connection.c
        xcb_icccm_set_wm_name(c, window, XCB_ATOM_STRING.rawValue, 8, UInt32(title.utf8.count), title)
        _ = xcb_ewmh_set_wm_name(ewmh, window, UInt32(title.utf8.count), title)
        let wmClass = "punktfunk-kiosk\0punktfunk-kiosk\0"
        xcb_icccm_set_wm_class(c, window, UInt32(wmClass.utf8.count), wmClass)
        var delete = connection.atom("WM_DELETE_WINDOW")
        xcb_icccm_set_wm_protocols(c, window, connection.atom("WM_PROTOCOLS"), 1, &delete)
        var fullscreen = ewmh.pointee._NET_WM_STATE_FULLSCREEN
        _ = xcb_ewmh_set_wm_state(ewmh, window, 1, &fullscreen)
        var normal = ewmh.pointee._NET_WM_WINDOW_TYPE_NORMAL
        _ = xcb_ewmh_set_wm_window_type(ewmh, window, 1, &normal)
        _ = xcb_ewmh_set_wm_pid(ewmh, window, UInt32(getpid()))
        // Motif hints: flags = decorations (2), decorations = none — for window managers that
        // honour no EWMH fullscreen but do honour this.
        change(window, connection.atom("_MOTIF_WM_HINTS"), connection.atom("_MOTIF_WM_HINTS"), 32, [2, 0, 0, 0, 0])
        // _NET_WM_BYPASS_COMPOSITOR = 1: a compositing manager may unredirect the window.
        change(window, connection.atom("_NET_WM_BYPASS_COMPOSITOR"), XCB_ATOM_CARDINAL.rawValue, 32, [1])
        for p in extra { change(window, connection.atom(p.name), p.type.predefinedAtom, p.format, p.values) }
    }

    private func change(_ w: xcb_window_t, _ property: xcb_atom_t, _ type: xcb_atom_t, _ format: UInt8, _ values: [UInt32]) {
        if format == 32 {
            _ = values.withUnsafeBytes { xcb_change_property(connection.c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), w, property, type, 32,
                                                         UInt32(values.count), $0.baseAddress) }
        } else {
            let bytes = values.map { UInt8(truncatingIfNeeded: $0) }
            _ = bytes.withUnsafeBytes { xcb_change_property(connection.c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), w, property, type, 8,
                                                        UInt32(bytes.count), $0.baseAddress) }
        }
    }

    /// After the map: with a window manager, ask it again for fullscreen (`_NET_WM_STATE` add — a
    /// no-op for one that read the property at map) and wait (until `deadline`) for the root's
    /// size; with none, place the window over the root, raise it and take the input focus.
    private func takeTheScreen(deadline: UInt64) {
        let c = connection.c
        if windowManager != nil {
            _ = xcb_ewmh_request_change_wm_state(ewmh, connection.screenNumber, window, XCB_EWMH_WM_STATE_ADD,
                                                 ewmh.pointee._NET_WM_STATE_FULLSCREEN, 0, XCB_EWMH_CLIENT_SOURCE_TYPE_NORMAL)
        } else {
            var values: [UInt32] = [0, 0, UInt32(connection.rootWidth), UInt32(connection.rootHeight),
                                    XCB_STACK_MODE_ABOVE.rawValue]
            let mask = UInt16(XCB_CONFIG_WINDOW_X.rawValue | XCB_CONFIG_WINDOW_Y.rawValue | XCB_CONFIG_WINDOW_WIDTH.rawValue
                              | XCB_CONFIG_WINDOW_HEIGHT.rawValue | XCB_CONFIG_WINDOW_STACK_MODE.rawValue)
            xcb_configure_window(c, window, mask, &values)
            xcb_set_input_focus(c, UInt8(XCB_INPUT_FOCUS_POINTER_ROOT.rawValue), window, 0 /* CurrentTime */)
        }
        connection.flush()
        while (width != connection.rootWidth || height != connection.rootHeight), MonotonicClock.nowNs() < deadline,
              connection.failure == nil {
            _ = service(timeoutMs: 20)
        }
    }

    /// The EWMH window manager's name as `check` finds it (`X11Probe.windowManager`: the root's
    /// `_NET_SUPPORTING_WM_CHECK` window names itself), "unnamed" when it gives none; nil: none runs.
    static func windowManagerName(_ c: OpaquePointer, root: xcb_window_t) -> String? {
        let link = ProbeLink(c: c, deadlineNs: MonotonicClock.nowNs() + 3_000_000_000)
        guard case .running(_, let name)? = try? X11Probe.windowManager(link, root: root) else { return nil }
        return name ?? "unnamed"
    }

    // MARK: What it shows at

    public var backendName: String { "x11" }

    /// `x11 :0 matchbox 1280x720@60` (`no-wm` without a window manager).
    public var name: String { "x11 \(connection.displayName) \(windowManager ?? "no-wm") \(mode.name)" }

    public var mode: ScreenMode { ScreenMode(width: width, height: height, refreshMilliHz: refreshMilliHz) }

    public var isActive: Bool { !isLost && !closeRequested }

    /// The connection's descriptor (for a poll set).
    public var fileDescriptor: Int32 { connection.fileDescriptor }

    // MARK: Events

    /// Handles every event xcb has read already and whatever arrives within `timeoutMs` (0: what
    /// is there), polling `extra` alongside. - Returns: `extra`'s readiness.
    @discardableResult
    func service(timeoutMs: Int32, extra: [Int32] = []) -> [Bool] {
        guard !isLost else { return extra.map { _ in false } }
        connection.flush()
        let queued = drain(queuedOnly: true)
        var fds = [pollfd(fd: connection.fileDescriptor, events: Int16(POLLIN), revents: 0)]
        for fd in extra { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        let n = poll(&fds, nfds_t(fds.count), queued ? 0 : timeoutMs)
        if n > 0, fds[0].revents != 0 { _ = drain(queuedOnly: false) }
        if let why = connection.failure { fail(why) }
        return (0..<extra.count).map { n > 0 && fds[$0 + 1].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 }
    }

    /// Handles events: those xcb holds already (`queuedOnly`), or also those on the socket.
    /// - Returns: whether any was handled.
    private func drain(queuedOnly: Bool) -> Bool {
        var any = false
        while let e = queuedOnly ? xcb_poll_for_queued_event(connection.c) : xcb_poll_for_event(connection.c) {
            any = true
            handle(e)
            free(e)
        }
        return any
    }

    private func handle(_ e: UnsafeMutablePointer<xcb_generic_event_t>) {
        let type = e.pointee.response_type & 0x7f
        switch type {
        case 0:
            let err = UnsafeRawPointer(e).assumingMemoryBound(to: xcb_generic_error_t.self).pointee
            stats.x11Errors += 1
            if stats.x11Errors == 1 {
                FileHandle.standardError.write(Data(("punktfunk-kiosk: the X server refused a request (error \(err.error_code), "
                    + "request \(err.major_code).\(err.minor_code)); further ones are only counted\n").utf8))
            }
        case UInt8(XCB_EXPOSE):
            let ev = UnsafeRawPointer(e).assumingMemoryBound(to: xcb_expose_event_t.self).pointee
            if ev.window == window, ev.count == 0 { exposed = true }
        case UInt8(XCB_CONFIGURE_NOTIFY):
            let ev = UnsafeRawPointer(e).assumingMemoryBound(to: xcb_configure_notify_event_t.self).pointee
            guard ev.window == window else { return }
            let w = Int(ev.width), h = Int(ev.height)
            if w != width || h != height {
                let before = mode
                width = w; height = h
                if mapped { pendingChanges.append(.modeChanged(output: connection.displayName, from: before, to: mode)) }
            }
        case UInt8(XCB_MAP_NOTIFY):
            if UnsafeRawPointer(e).assumingMemoryBound(to: xcb_map_notify_event_t.self).pointee.window == window { mapped = true }
        case UInt8(XCB_DESTROY_NOTIFY):
            if UnsafeRawPointer(e).assumingMemoryBound(to: xcb_destroy_notify_event_t.self).pointee.window == window {
                fail("the kiosk's window was destroyed")
            }
        case UInt8(XCB_CLIENT_MESSAGE):
            let ev = UnsafeRawPointer(e).assumingMemoryBound(to: xcb_client_message_event_t.self).pointee
            if ev.window == window, ev.type == connection.atom("WM_PROTOCOLS"),
               ev.data.data32.0 == connection.atom("WM_DELETE_WINDOW"), !closeRequested {
                closeRequested = true
                pendingChanges.append(.lost(sentence: "the window manager closed the window"))
            }
        case UInt8(XCB_GE_GENERIC):
            let ge = UnsafeRawPointer(e).assumingMemoryBound(to: xcb_ge_generic_event_t.self)
            if ge.pointee.extension == connection.presentOpcode {
                handlePresent(ge)
            } else if connection.xinputVersion != nil, ge.pointee.extension == connection.xinputOpcode {
                seat?.handle(ge)
            }
        default:
            break
        }
    }

    private func handlePresent(_ ge: UnsafePointer<xcb_ge_generic_event_t>) {
        switch UInt32(ge.pointee.event_type) {
        case UInt32(XCB_PRESENT_COMPLETE_NOTIFY):
            let ev = UnsafeRawPointer(ge).assumingMemoryBound(to: xcb_present_complete_notify_event_t.self).pointee
            guard ev.window == window, ev.kind == UInt8(XCB_PRESENT_COMPLETE_KIND_PIXMAP.rawValue) else { return }
            completed(serial: ev.serial, mode: ev.mode, ust: ev.ust, msc: ev.msc)
        case UInt32(XCB_PRESENT_IDLE_NOTIFY):
            let ev = UnsafeRawPointer(ge).assumingMemoryBound(to: xcb_present_idle_notify_event_t.self).pointee
            guard ev.window == window else { return }
            if videoPool?.idle(pixmap: ev.pixmap) != true { canvasPool?.idle(pixmap: ev.pixmap) }
        default:
            break
        }
    }

    /// Present's CompleteNotify for `serial`: Copy, Flip and SuboptimalCopy reached glass at `ust`
    /// (µs, CLOCK_MONOTONIC); Skip was replaced by a newer pixmap for the same refresh.
    private func completed(serial: UInt32, mode: UInt8, ust: UInt64, msc: UInt64) {
        let slot = slots[Int(serial) % slots.count]
        guard slot.serial == serial, slot.token != 0 else { return }
        let now = MonotonicClock.nowNs()
        lastMSC = max(lastMSC, msc)
        if mode == UInt8(XCB_PRESENT_COMPLETE_MODE_SKIP.rawValue) {
            ledger.handleDiscarded(token: slot.token, now: now)
        } else {
            var flags: PresentationLedger.Flags = [.vsync]
            if mode == UInt8(XCB_PRESENT_COMPLETE_MODE_FLIP.rawValue) { flags.insert(.zeroCopy); stats.flips += 1 }
            if let shown = ledger.handlePresented(token: slot.token, glassNs: ust &* 1000, refreshNs: modeRefreshNs,
                                                  flags: flags, now: now), shown.frameID != Self.repaintFrameID {
                shownQueue.append(shown)
                if slot.canvas { canvasShownNs = shown.glassNs }
            }
        }
        if slot.canvas { canvasInFlight = nil }
        slot.token = 0
        stats.presentation = ledger.stats
    }

    private var modeRefreshNs: UInt64 { refreshMilliHz > 0 ? mode.refreshIntervalNs : 0 }

    private func fail(_ sentence: String) {
        guard !isLost else { return }
        isLost = true
        pendingChanges.append(.lost(sentence: sentence))
    }

    func takeChanges() -> [ScreenChange] {
        defer { pendingChanges = [] }
        return ScreenChanges.coalesced(pendingChanges)
    }

    // MARK: Presenting

    /// The ledger's frame id of a present that shows nothing new (an Expose repaint, the panel
    /// changed over the same picture): counted, never reported as a frame on glass.
    static let repaintFrameID = UInt64.max

    /// Presents pixmap `index` of `pool` for frame `frameID` (nil: again what is on glass) at the
    /// refresh after the newest shown. The pixmap is busy until its IdleNotify.
    private func present(_ pool: X11PixmapPool, _ index: Int, frameID: UInt64?, readyNs: UInt64, canvas: Bool) {
        let now = MonotonicClock.nowNs()
        pool.reserve(index)
        let token = ledger.handleCommit(frameID: frameID ?? Self.repaintFrameID, readyNs: readyNs, now: now)
        let serial = UInt32(truncatingIfNeeded: token)
        let slot = slots[Int(serial) % slots.count]
        slot.serial = serial; slot.token = token; slot.canvas = canvas && frameID != nil  // a repaint answers no canvas commit
        xcb_present_pixmap(connection.c, window, pool.pixmaps[index], serial, 0, 0, 0, 0, 0, 0, 0,
                           UInt32(XCB_PRESENT_OPTION_NONE.rawValue), lastMSC &+ 1, 0, 0, 0, nil)
        connection.flush()
        if let frameID {
            lastCommitWasCanvas = canvas
            if canvas { canvasInFlight = frameID }
        }
        lastPresented = (canvas, pool.generation, index)
        stats.committed += 1
        stats.presentation = ledger.stats
    }

    /// An Expose with nothing newer on its way: the newest pixmap again (a server without a
    /// compositor keeps no copy of a window's pixels).
    func repaintIfExposed() {
        guard exposed, !isLost else { return }
        exposed = false
        guard let last = lastPresented else { return }
        let pool = last.canvas ? canvasPool : videoPool
        guard let pool, pool.generation == last.generation, !pool.busy[last.index] else { return }
        present(pool, last.index, frameID: nil, readyNs: MonotonicClock.nowNs(), canvas: last.canvas)
        stats.repaints += 1
    }

    private func pool(_ slot: inout X11PixmapPool?, count: Int) throws(ScreenError) -> X11PixmapPool {
        if let p = slot, p.width == width, p.height == height { return p }
        poolGeneration += 1
        let p = try X11PixmapPool(connection: connection, drawable: window, width: width, height: height, count: count,
                                  generation: poolGeneration, sharedMemory: picturePath.pixels == .sharedMemory)
        if picturePath.pixels == .sharedMemory, !p.sharedMemory {
            picturePath = X11PicturePath.decide(dri3: connection.dri3Version, shm: connection.shmVersion, shmAttachWorks: false)
            notices.append("the X server could not attach the kiosk's shared memory: pictures go with PutImage")
        }
        slot = p
        return p
    }

    // MARK: The shell's canvas

    var canCommitCanvasNow: Bool {
        isActive && (canvasInFlight == nil || ledger.isStalled(now: MonotonicClock.nowNs()))
    }

    var showsCanvasNow: Bool { lastCommitWasCanvas }

    func canvasBuffer(id: UInt64) throws(ScreenError) -> ScreenCanvas? {
        guard !isLost else { throw .lost("the X server connection is gone") }
        let pool = try self.pool(&canvasPool, count: 3)
        if let i = canvasByID[id] { return canvas(id: id, pool: pool, index: i) }
        guard let i = pool.free() else { return nil }
        pool.reserve(i)
        canvasByID[id] = i
        return canvas(id: id, pool: pool, index: i)
    }

    private func canvas(id: UInt64, pool: X11PixmapPool, index: Int) -> ScreenCanvas {
        ScreenCanvas(id: id, pixels: pool.pixels(index), pitch: pool.stride, width: pool.width, height: pool.height,
                     generation: pool.generation, index: index)
    }

    func presentCanvas(id: UInt64, damage: [PixelRect]?) throws(ScreenError) {
        guard !isLost else { throw .lost("the X server connection is gone") }
        guard let pool = canvasPool, let i = canvasByID.removeValue(forKey: id) else { return }
        if !pool.sharedMemory {
            if let damage, !damage.isEmpty {
                for r in damage { pool.upload(i, rows: max(0, r.y)..<min(pool.height, r.y + r.height)) }
            } else {
                pool.upload(i)
            }
        }
        present(pool, i, frameID: id, readyNs: MonotonicClock.nowNs(), canvas: true)
        panelOnPicture = nil; underPanelRect = nil
    }

    func releaseCanvas(id: UInt64) {
        if let i = canvasByID.removeValue(forKey: id) { canvasPool?.unreserve(i) }
    }

    func takeCanvasShownOnce() -> UInt64? {
        defer { canvasShownNs = nil }
        return canvasShownNs
    }

    // MARK: A stream's pictures

    /// Shows `picture` now (newest wins). Released here in every case: GPU pictures are read
    /// back (linear only) and converted like CPU ones. - Returns: false when it could not be shown.
    @discardableResult
    public func show(_ picture: DecodedPicture, frameID: UInt64, readyNs: UInt64) -> Bool {
        defer { picture.release() }
        guard !isLost else { return false }
        switch picture {
        case .cpu(let frame):
            return showCPU(frame, frameID: frameID, readyNs: readyNs)
        case .dmaBuf(let frame):
            guard let cpu = try? frame.readPixels() else { stats.refused += 1; return false }
            stats.readBack += 1
            return showCPU(cpu, frameID: frameID, readyNs: readyNs)
        }
    }

    private func showCPU(_ frame: DecodedFrame, frameID: UInt64, readyNs: UInt64) -> Bool {
        let w = frame.visibleWidth, h = frame.visibleHeight
        guard w > 0, h > 0 else { stats.refused += 1; return false }
        let pool: X11PixmapPool
        do { pool = try self.pool(&videoPool, count: 4) } catch { fail(error.description); return false }
        guard let i = pool.free() else { stats.noFreeBuffer += 1; return false }
        guard let rect = cpuFit.place(width: w, height: h, bufferWidth: pool.width, bufferHeight: pool.height, scaling: scaling,
                                      refreshIntervalNs: mode.refreshIntervalNs) else { stats.refused += 1; return false }
        let tag = rect.x << 48 | rect.y << 32 | rect.width << 16 | rect.height
        if pool.tags[i] != tag {  // black bars once per buffer and placement
            memset(pool.pixels(i), 0, pool.stride * pool.height)
            pool.tags[i] = tag
        }
        let t0 = MonotonicClock.nowNs()
        let c = YUVToRGBConverter(for: frame)
        if c != converter { converter = c }
        do throws(ScreenError) {
            try converter!.convert(frame, into: pool.pixels(i), pitch: pool.stride, rect: rect, columns: &columns)
        } catch { stats.refused += 1; return false }
        let dt = MonotonicClock.nowNs() - t0
        stats.convertNsSum += dt
        stats.convertNsMax = max(stats.convertNsMax, dt)
        stats.shmFrames += pool.sharedMemory ? 1 : 0
        stats.putImageFrames += pool.sharedMemory ? 0 : 1
        if let line = cpuFit.record(ns: dt) { FileHandle.standardError.write(Data(line.utf8)) }
        videoPlace = rect
        tellSeat(SeatVideoArea(x: rect.x, y: rect.y, width: rect.width, height: rect.height, videoWidth: w, videoHeight: h))
        underPanelRect = nil
        blendPanel(pool, i)
        if !pool.sharedMemory { pool.upload(i) }
        present(pool, i, frameID: frameID, readyNs: readyNs, canvas: false)
        return true
    }

    /// The seat hears where the picture is (nil: no stream on glass) when that changed.
    func tellSeat(_ area: SeatVideoArea?) {
        guard area != seatVideoArea else { return }
        seatVideoArea = area
        seat?.setVideoArea(area)
    }

    /// The panel over buffer `index`: the pixels it will cover are kept first, so a later panel
    /// (or none) can be put on the same picture without a new one (`refreshPanel`).
    private func blendPanel(_ pool: X11PixmapPool, _ index: Int) {
        guard let image = panelImage else { panelOnPicture = nil; return }
        let r = clipped(image.rect, pool)
        if let r {
            underPanel.removeAll(keepingCapacity: true)
            for row in r.y..<(r.y + r.height) {
                let p = UnsafeRawBufferPointer(start: pool.pixels(index) + row * pool.stride + r.x * 4, count: r.width * 4)
                underPanel.append(contentsOf: p)
            }
            underPanelRect = r
        }
        image.blend(into: pool.pixels(index), pitch: pool.stride, bufferWidth: pool.width, bufferHeight: pool.height,
                    video: videoPlace ?? PixelRect(x: 0, y: 0, width: pool.width, height: pool.height))
        panelOnPicture = image
    }

    private func clipped(_ rect: PixelRect, _ pool: X11PixmapPool) -> PixelRect? {
        let x0 = max(0, rect.x), y0 = max(0, rect.y)
        let x1 = min(pool.width, rect.x + rect.width), y1 = min(pool.height, rect.y + rect.height)
        return x0 < x1 && y0 < y1 ? PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }

    /// A panel change while no new picture comes: the newest picture again, in a free buffer,
    /// with the old panel taken off and the new one on.
    func refreshPanel() {
        guard !isLost, !lastCommitWasCanvas, panelImage?.generation != panelOnPicture?.generation,
              let last = lastPresented, !last.canvas, let pool = videoPool, pool.generation == last.generation,
              let j = pool.free() else { return }
        if j != last.index { memcpy(pool.pixels(j), pool.pixels(last.index), pool.stride * pool.height) }
        pool.tags[j] = pool.tags[last.index]
        if let r = underPanelRect {
            underPanel.withUnsafeBytes { src in
                for (k, row) in (r.y..<(r.y + r.height)).enumerated() {
                    memcpy(pool.pixels(j) + row * pool.stride + r.x * 4, src.baseAddress! + k * r.width * 4, r.width * 4)
                }
            }
            underPanelRect = nil
        }
        blendPanel(pool, j)
        if !pool.sharedMemory { pool.upload(j) }
        present(pool, j, frameID: nil, readyNs: MonotonicClock.nowNs(), canvas: false)
    }

    /// Pictures that reached glass since the last call (in order), CLOCK_MONOTONIC.
    public func takeShown() -> [PresentationLedger.Shown] {
        defer { shownQueue.removeAll(keepingCapacity: true) }
        return shownQueue
    }

    /// Presents whose CompleteNotify has not come back.
    public var outstanding: Int { ledger.outstanding }

    /// Handles the server's events for up to `timeoutMs` (tests and the benchmark; the runner
    /// drives the screen through `Screen`).
    public func serviceEvents(timeoutMs: Int32) { service(timeoutMs: timeoutMs) }

    /// Returns once the server has handled every request sent so far (one round trip).
    public func sync() {
        connection.flush()
        free(xcb_get_input_focus_reply(connection.c, xcb_get_input_focus(connection.c), nil))
    }

    // MARK: Leaving

    private var closed = false

    /// Destroys the window and disconnects. Idempotent.
    public func close() {
        guard !closed else { return }
        closed = true
        seat?.destroy()
        destroyObjects()
    }

    private func destroyObjects() {
        canvasPool = nil; videoPool = nil
        if connection.failure == nil {
            xcb_destroy_window(connection.c, window)
            xcb_free_cursor(connection.c, blankCursor)
            connection.flush()
        }
        xcb_ewmh_connection_wipe(ewmh)
        ewmh.deinitialize(count: 1)
        ewmh.deallocate()
        connection.disconnect()
    }
}

/// One outstanding `PresentPixmap`: the ledger's token under the serial Present echoes
/// (slots are indexed by serial modulo their count, the ledger's capacity; no allocation per frame).
final class PresentSlot {
    var serial: UInt32 = 0
    var token: UInt64 = 0
    var canvas = false
}

/// Counts for the JSON stats.
public struct X11Stats: Sendable, Equatable {
    /// Every PresentPixmap (pictures, canvases, repaints).
    public var committed: UInt64 = 0
    /// The server's own answers (CompleteNotify).
    public var presentation = PresentationLedger.Stats()
    /// Of the presented, those Present flipped (the pixmap scanned out).
    public var flips: UInt64 = 0
    public var shmFrames: UInt64 = 0
    public var putImageFrames: UInt64 = 0
    /// GPU pictures read back for the CPU path.
    public var readBack: UInt64 = 0
    public var noFreeBuffer: UInt64 = 0
    public var refused: UInt64 = 0
    /// Expose repaints (the newest pixmap presented again).
    public var repaints: UInt64 = 0
    /// Errors the server sent for our requests.
    public var x11Errors: UInt64 = 0
    public var convertNsSum: UInt64 = 0
    public var convertNsMax: UInt64 = 0
}
