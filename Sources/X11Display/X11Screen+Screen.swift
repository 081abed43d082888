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

    /// The X server takes no HDR metadata from a client: pictures go out as SDR.
    public func setHDRMetadata(_ metadata: HDRStaticMetadata?) {}
    public var hdrCapability: ScreenHDRCapability { .none(reason: "an X11 window cannot signal HDR to the display") }

    /// Runs one stream: each picture is presented when it arrives (a file's at its schedule),
    /// newest wins; glass times come from Present's CompleteNotify (`onShown`).
    public func present(first: DecodedPicture, _ presentation: StreamPresentation,
                        steps: () throws -> StreamStep) throws -> StreamOutcome {
        guard !isLost else {
            first.release()
            throw ScreenError.lost("the X server connection is gone")
        }
        reportStart()
        defer { reportSummary() }
        let intervalNs = UInt64(1_000_000_000 / (presentation.fps > 0 ? presentation.fps : 60))
        var start: UInt64?
        var produced: UInt64 = 0
        var pending: SourcedFrame?
        var sourceDone = false
        var drainSinceNs: UInt64?
        let wakes = presentation.wakeDescriptors
        var extra = wakes
        if let signals = presentation.signals { extra.append(signals.fd) }
        var counter: UInt64 = 0

        func deliver() {
            for s in takeShown() { presentation.onShown?(s.frameID, s.glassNs, s.readyNs) }
        }
        func follow(_ changes: [ScreenChange]) -> StreamOutcome? {
            for c in changes {
                presentation.onChange?(c)
                if case .lost(let sentence) = c { return .lost(sentence: sentence) }
            }
            return nil
        }

        while true {
            if let signals = presentation.signals {
                for s in signals.drain() where s == .interrupt || s == .terminate { return .interrupted(s) }
            }
            presentation.onPass?()
            service(timeoutMs: 0)
            repaintIfExposed()
            if let outcome = follow(takeChanges()) { return outcome }
            deliver()

            var produceAtNs: UInt64?
            if !sourceDone, pending == nil {
                switch try steps() {
                case .frame(let f): pending = f
                case .notYet: break
                case .end: sourceDone = true
                }
            }
            if let f = pending {
                let now = MonotonicClock.nowNs()
                let s = start ?? now
                start = s
                let due = presentation.followSchedule ? s &+ produced &* intervalNs : 0
                if now >= due {
                    show(f.frame, frameID: f.index, readyNs: now)
                    produced += 1
                    pending = nil
                    continue
                }
                produceAtNs = due
            }
            if sourceDone, pending == nil {
                // The last picture: wait (briefly) for its completion, then end.
                let now = MonotonicClock.nowNs()
                let since = drainSinceNs ?? now
                drainSinceNs = since
                if outstanding == 0 || now - since > 500_000_000 {
                    service(timeoutMs: 0)
                    deliver()
                    return .finished
                }
            }
            var timeoutMs: Int32
            if let at = produceAtNs {
                let now = MonotonicClock.nowNs()
                timeoutMs = at <= now ? 0 : Int32(min((at - now + 999_999) / 1_000_000, 100))
            } else if sourceDone {
                timeoutMs = 10
            } else {
                timeoutMs = wakes.isEmpty ? 2 : 100  // a live source without wake-ups is polled
            }
            let readable = service(timeoutMs: timeoutMs, extra: extra)
            for (i, fd) in wakes.enumerated() where i < readable.count && readable[i] { _ = read(fd, &counter, 8) }
        }
    }
}
