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
            reportSummary()
        }
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
            if let outcome = follow(service(timeoutMs: 0)) { return outcome }
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
                // The last picture: wait (briefly) for its answer, then end.
                let now = MonotonicClock.nowNs()
                let since = drainSinceNs ?? now
                drainSinceNs = since
                if outstandingFeedback == 0 || now - since > 500_000_000 {
                    _ = service(timeoutMs: 0)
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
            let readable = serviceWaiting(timeoutMs: timeoutMs, extra: extra)
            for (i, fd) in wakes.enumerated() where i < readable.count && readable[i] { _ = read(fd, &counter, 8) }
        }
    }
}
