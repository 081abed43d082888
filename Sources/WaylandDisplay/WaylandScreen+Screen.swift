#if canImport(Glibc)
import Glibc
#endif
import Screen
import SystemClock
import VideoFrames

/// The seam: what the runner sees of the Wayland backend.
extension WaylandScreen: Screen {
    /// One mode: the compositor decides the window's size (a resize comes as `.modeChanged`).
    public var modes: [ScreenMode] { [mode] }

    /// The compositor's main device from the linux-dmabuf feedback (`/dev/dri/renderD128`), so a
    /// VA-API device on the same GPU is preferred; nil without that feedback.
    public var deviceNode: String? {
        guard let dev = dmabufFeedback?.mainDevice else { return nil }
        let (major, minor) = DmabufFeedback.deviceNumbers(dev)
        guard let real = realpath("/sys/dev/char/\(major):\(minor)", nil) else { return nil }
        defer { free(real) }
        let node = String(cString: real).split(separator: "/").last.map(String.init) ?? ""
        return node.isEmpty ? nil : "/dev/dri/\(node)"
    }

    /// `wl_output.name` (v4: `HDMI-A-1`) when the compositor says it; nil otherwise.
    public var connectorName: String? {
        guard let o = currentOutput, !o.name.isEmpty, !o.name.hasPrefix("geometry:") else { return nil }
        return o.name
    }

    public var nextDeadlineNs: UInt64? { nil }

    /// VT switches are the compositor's; quit signals are the runner's.
    public func handle(_ signal: SignalWatch.Event) {}

    /// nil: the compositor sees its own Ctrl+Alt+F`n`.
    public var consoleSwitch: ((Int) -> Void)? { nil }

    public func setPanel(_ image: OverlayImage?) {
        if let image {
            setPanel(width: image.width, height: image.height, x: image.x, y: image.y, pixels: image.pixels,
                     generation: image.generation)
            if panelGeneration == image.generation { panelImage = image }
        } else {
            hidePanel()
            panelImage = nil
        }
    }

    public var panelOnGlass: OverlayImage? { panelImage }

    /// The compositor draws the host's pointer as the seat's cursor surface where its pointer is:
    /// a seat (made by `makeSeat`) and wl_shm for the image.
    public var canDrawPointer: Bool { seat?.hasSeat == true && connection.shm != nil }
    public var pointerRoute: String {
        guard let seat, seat.hasSeat else { return "none (the compositor offers no seat)" }
        return connection.shm == nil ? "none (the compositor offers no wl_shm)" : "cursor surface (wl_pointer.set_cursor)"
    }

    /// The largest cursor image the seat gets, pixels a side.
    static let cursorLimit = 256

    /// The host's pointer as the seat's cursor, drawn at the picture's scale (logical units: the
    /// cursor surface has buffer scale 1); its place is the compositor's pointer (the local mouse
    /// moves it at once). nil: none.
    public func setPointer(_ pointer: ScreenPointer?) {
        guard let seat else { return }
        guard let p = pointer else {
            if cursorShown != nil { seat.setCursor(nil) }
            cursorShown = nil
            return
        }
        let place = fitState.map { layout.logical($0.place) } ?? PixelRect(x: 0, y: 0, width: layout.logicalWidth, height: layout.logicalHeight)
        let scale = p.drawScale(picture: place, pictureWidth: seatVideoArea?.videoWidth ?? place.width,
                                maxWidth: Self.cursorLimit, maxHeight: Self.cursorLimit)
        guard cursorShown?.serial != p.image.serial || cursorShown?.scale != scale else { return }
        cursorShown = (p.image.serial, scale)
        seat.setCursor(p.image.scaled(by: scale))
        flushOrFail()
    }

    public func reportPanelRoute() {
        let line = "{\"overlay\":\"\(panelRoute)\"}\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    /// Debian 12's compositors offer no colour management: pictures go out as SDR.
    public func setHDRMetadata(_ metadata: HDRStaticMetadata?) {}

    /// The kiosk binds no colour-management protocol (wp_color_manager_v1 and its predecessors
    /// are not in Debian 12's wayland-protocols), so the compositor is never told a picture is PQ.
    public var hdrCapability: ScreenHDRCapability { .none(reason: "the compositor offers no colour-management protocol") }

    /// Runs one stream: each picture is committed when it arrives (a file's at its schedule),
    /// newest wins, nothing waits for the compositor. Glass times come from presentation
    /// feedback (`onShown`); a hidden window answers none and the stream runs on. Idle is
    /// inhibited while it runs.
    public func present(first: DecodedPicture, _ presentation: StreamPresentation,
                        steps: () throws -> StreamStep) throws -> StreamOutcome {
        guard !isLost else {
            first.release()
            throw ScreenError.lost("the Wayland connection is gone")
        }
        setStreaming(true)
        reportStart()
        defer {
            setStreaming(false)
            tellSeat(nil)
            reportSummary()
        }
        return try WindowedPresentLoop.run(
            presentation, steps: steps,
            pass: { service(timeoutMs: 0) },
            show: { picture, id, ready in show(picture, frameID: id, readyNs: ready) },
            takeShown: { takeShown() },
            outstanding: { outstandingFeedback },
            wait: { timeout, extra in serviceWaiting(timeoutMs: timeout, extra: extra) })
    }
}
