#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Screen
import SystemClock
import VideoFrames

/// The seam: what the runner sees of the X11 backend.
extension X11Screen: Screen {
    /// One mode: the window's (a window manager or a RandR change resizes it: `.modeChanged`).
    public var modes: [ScreenMode] { [mode] }
    /// Unknown: the X server does not say which GPU it renders on without DRI3's device fd.
    public var deviceNode: String? { nil }
    public var connectorName: String? { nil }
    /// Keyboards and mice are the X server's: they come through it (XInput 2.2), never from evdev
    /// (an evdev grab would take them from the desktop). Without XInput 2.2 only pads reach the kiosk.
    public var keyboardsAndMiceAreTheScreens: Bool { true }

    public func prepareWait() -> [Int32] {
        guard !isLost else { return [] }
        connection.flush()
        return [connection.fileDescriptor]
    }

    public func finishWait(readable: [Bool]) -> [ScreenChange] {
        service(timeoutMs: 0)
        repaintIfExposed()
        return takeChanges()
    }

    public var nextDeadlineNs: UInt64? { nil }
    /// VT switches are the X server's; quit signals are the runner's.
    public func handle(_ signal: SignalWatch.Event) {}
    /// nil: the X server sees its own Ctrl+Alt+F`n`.
    public var consoleSwitch: ((Int) -> Void)? { nil }

    public var canCommitCanvas: Bool { canCommitCanvasNow }
    public var showsCanvas: Bool { showsCanvasNow }
    public func canvas(id: UInt64) throws(ScreenError) -> ScreenCanvas? { try canvasBuffer(id: id) }
    public func commitCanvas(id: UInt64, damage: [PixelRect]?) throws(ScreenError) { try presentCanvas(id: id, damage: damage) }
    public func release(frame id: UInt64) { releaseCanvas(id: id) }
    public func takeCanvasShown() -> UInt64? { takeCanvasShownOnce() }

    public func setPanel(_ image: OverlayImage?) {
        guard image?.generation != panelImage?.generation || (image == nil) != (panelImage == nil) else { return }
        panelImage = image
        refreshPanel()
    }

    public var panelOnGlass: OverlayImage? { panelImage }

    public func reportPanelRoute() {
        let line = "{\"overlay\":\"composited\"}\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    /// The X server draws the host's pointer as the window's cursor where its pointer is: a
    /// RENDER ARGB cursor, and XInput 2.2 for the pointer's place.
    public var canDrawPointer: Bool { hostCursor != nil && connection.xinputVersion != nil }
    public var pointerRoute: String {
        guard hostCursor != nil else { return "none (\(hostCursorRoute))" }
        return connection.xinputVersion == nil ? "none (the X server offers no XInput 2.2: no pointer through it)" : hostCursorRoute
    }

    /// The host's pointer as the window's cursor, drawn at the picture's scale; its place is the
    /// X pointer's own (the local mouse moves it at once). nil: the blank cursor.
    public func setPointer(_ pointer: ScreenPointer?) {
        guard let cursors = hostCursor, !isLost else { return }
        if let p = pointer {
            let place = videoPlace ?? PixelRect(x: 0, y: 0, width: width, height: height)
            let scale = p.drawScale(picture: place, pictureWidth: seatVideoArea?.videoWidth ?? place.width,
                                    maxWidth: cursors.maxWidth, maxHeight: cursors.maxHeight)
            cursors.show(p.image, scale: scale, on: window)
        } else {
            cursors.hide(on: window, blank: blankCursor)
        }
        connection.flush()
    }

    /// The X server takes no HDR metadata from a client: pictures go out as SDR.
    public func setHDRMetadata(_ metadata: HDRStaticMetadata?) {}
    public var hdrCapability: ScreenHDRCapability { .none(reason: "an X11 window cannot signal HDR to the display") }

    /// Runs one stream (`WindowedPresentLoop`): each picture is presented when it arrives (a
    /// file's at its schedule), newest wins; glass times come from Present's CompleteNotify (`onShown`).
    public func present(first: DecodedPicture, _ presentation: StreamPresentation,
                        steps: () throws -> StreamStep) throws -> StreamOutcome {
        guard !isLost else {
            first.release()
            throw ScreenError.lost("the X server connection is gone")
        }
        reportStart()
        defer {
            tellSeat(nil)
            reportSummary()
        }
        return try WindowedPresentLoop.run(
            presentation, steps: steps,
            pass: {
                service(timeoutMs: 0)
                repaintIfExposed()
                return takeChanges()
            },
            show: { picture, id, ready in show(picture, frameID: id, readyNs: ready) },
            takeShown: { takeShown() },
            outstanding: { outstanding },
            wait: { timeout, extra in service(timeoutMs: timeout, extra: extra) })
    }
}
