import SystemClock
import VideoFrames
import Foundation
import Glibc

/// The KMS backend of `Screen`: the display opened once for the life of the process — the KMS
/// presenter (device, connector, mode, saved start-up state), the VT it runs on, the presenting
/// thread's real-time scheduling and the flip log. Streams take turns on it; the mode changes
/// only when the display does: `finishWait` follows a hot-plug on the same presenter (same
/// device, connector and CRTC; `presenter.mode` changes).
///
/// Ownership: `close()` (idempotent, also from deinit) restores the saved display state, puts
/// back the VT's modes and the thread's scheduling — on every way out.
/// - Precondition: used only on the thread that created it (the presenting thread).
public final class KMSScreen: Screen {
    public struct Settings {
        /// DRM card node (nil: the first with a connected display).
        public var devicePath: String?
        /// The mode to drive (nil: the panel's preferred); the host is asked for exactly it.
        public var mode: ModeRequest?
        /// SCHED_FIFO priority of the presenting thread (0: keep SCHED_OTHER).
        public var realtimePriority: Int32
        /// One JSON line per completed flip, then a summary per stream.
        public var flipLogPath: String?
        /// The VM harness's hold on chosen pictures (`GlassCheckpoint`), made per stream.
        public var checkpoint: ((Presenter) -> GlassCheckpoint?)?

        public init(devicePath: String?, mode: ModeRequest?, realtimePriority: Int32, flipLogPath: String?,
                    checkpoint: ((Presenter) -> GlassCheckpoint?)? = nil) {
            self.devicePath = devicePath; self.mode = mode
            self.realtimePriority = realtimePriority; self.flipLogPath = flipLogPath
            self.checkpoint = checkpoint
        }
    }

    public let presenter: Presenter
    let vt: VTSwitch?
    let scheduling: PresentThreadScheduling
    let flipLog: FlipLog?
    private let checkpoint: ((Presenter) -> GlassCheckpoint?)?
    /// The kernel's hot-plug reports; nil when the uevent socket cannot be opened (said once).
    private let watch: ConnectorWatch?
    /// The explicit mode asked for (`--mode`, config), kept while the display offers it.
    private let modeRequest: ModeRequest?
    /// The device node as the kernel names it in uevents (`/dev/dri/card0`, symlinks resolved).
    private let kernelDevicePath: String
    /// Set while our VT is in front but master could not be retaken: the next attempt, ns.
    private var resumeRetryAtNs: UInt64?
    /// When the newest canvas flip completed (taken once by `takeCanvasShown`).
    private var canvasShownNs: UInt64?
    private var flips: [FlipEvent] = []
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
    private var closed = false
    static let resumeRetryNs: UInt64 = 250_000_000

    /// Opens the display. - Throws: `ScreenError.unavailable` when there is none to use,
    /// `.unusable` when it refuses us.
    public init(_ settings: Settings) throws(ScreenError) {
        do {
            presenter = try Presenter(devicePath: settings.devicePath, modeRequest: settings.mode)
        } catch {
            switch error {
            case .noDevice, .openFailed: throw .unavailable("There is no usable display (\(error)).")
            default: throw .unusable("The display cannot be used (\(error)).")
            }
        }
        do { flipLog = try settings.flipLogPath.map { p throws(KMSError) in try FlipLog(path: p) } } catch {
            presenter.shutdown()
            throw .unusable("The flip log cannot be written (\(error)).")
        }
        vt = VTSwitch()
        modeRequest = settings.mode
        checkpoint = settings.checkpoint
        kernelDevicePath = Self.resolvedPath(presenter.device.path)
        do { watch = try ConnectorWatch() } catch {
            watch = nil
            FileHandle.standardError.write(Data("punktfunk-kiosk: display changes are not followed (\(error))\n".utf8))
        }
        // Real-time for the pacer's hold deadlines. Threads started later (pump, decode,
        // pairing) begin SCHED_OTHER (SCHED_RESET_ON_FORK); a file decodes on this thread.
        scheduling = PresentThreadScheduling.raise(priority: settings.realtimePriority)
        flips.reserveCapacity(16)
    }

    deinit {
        close()
        scratch.deallocate()
    }

    public var name: String { "\(presenter.connector.name) \(presenter.mode.name)" }
    public var backendName: String { "kms" }
    public var mode: ScreenMode { presenter.mode.screenMode }
    public var modes: [ScreenMode] {
        var out: [ScreenMode] = []
        for m in presenter.connector.modes where !m.interlaced && !out.contains(m.screenMode) { out.append(m.screenMode) }
        return out
    }
    public var deviceNode: String? { presenter.device.path }
    public var connectorName: String? { presenter.connector.name }
    public var isActive: Bool { presenter.isActive }
    /// Read afresh from the connector on each call (a hot-plug may bring another TV).
    public var hdrCapability: ScreenHDRCapability { presenter.device.hdrCapability(connector: presenter.connector.id).capability }

    // MARK: - Waiting

    public func prepareWait() -> [Int32] { [presenter.eventFD, watch?.descriptor ?? -1] }

    public func finishWait(readable: [Bool]) -> [ScreenChange] {
        if readable.first == true { readFlips() }
        retryResume(nowNs: MonotonicClock.nowNs())
        if readable.count > 1, readable[1], let change = checkDisplay() { return [change] }
        return []
    }

    public var nextDeadlineNs: UInt64? { resumeRetryAtNs }

    /// A VT switch request while no stream presents (the present loop handles its own): give the
    /// display back before the switch completes, or take it back after it.
    public func handle(_ signal: SignalWatch.Event) {
        switch signal {
        case .vtRelease:
            presenter.suspend()
            vt?.acknowledgeRelease()
            resumeRetryAtNs = nil
        case .vtAcquire:
            vt?.acknowledgeAcquire()
            resume()
        case .interrupt, .terminate:
            break
        }
    }

    public var consoleSwitch: ((Int) -> Void)? {
        guard let vt else { return nil }
        return { number in vt.activate(number) }
    }

    private func retryResume(nowNs: UInt64) {
        if let at = resumeRetryAtNs, nowNs >= at { resume() }
    }

    /// Takes master back; while another client still holds it, says so once and retries every
    /// `resumeRetryNs`.
    private func resume() {
        do {
            try presenter.resume()
            resumeRetryAtNs = nil
        } catch {
            if resumeRetryAtNs == nil {
                FileHandle.standardError.write(Data("punktfunk-kiosk: cannot take the display back (\(error)); retrying every \(Self.resumeRetryNs / 1_000_000) ms\n".utf8))
            }
            resumeRetryAtNs = MonotonicClock.nowNs() + Self.resumeRetryNs
        }
    }

    private func readFlips() {
        flips.removeAll(keepingCapacity: true)
        presenter.readFlips(into: &flips, scratch: scratch)
        if !flips.isEmpty, !presenter.flipPending, let last = flips.last { canvasShownNs = last.timestampNs }
    }

    // MARK: - The canvas

    public var canCommitCanvas: Bool { presenter.isActive && !presenter.flipPending }
    public var showsCanvas: Bool { presenter.showsCanvas }

    public func canvas(id: UInt64) throws(ScreenError) -> ScreenCanvas? {
        do {
            return try presenter.canvas(id: id)
        } catch {
            throw .unusable("\(error)")
        }
    }

    public func commitCanvas(id: UInt64, damage: [PixelRect]?) throws(ScreenError) {
        canvasShownNs = nil
        do { try presenter.commit(frame: id) } catch { throw .unusable("\(error)") }
    }

    public func release(frame id: UInt64) { presenter.release(frame: id) }

    public func takeCanvasShown() -> UInt64? {
        defer { canvasShownNs = nil }
        return canvasShownNs
    }

    // MARK: - Over the stream

    public func setPanel(_ image: OverlayImage?) { presenter.setOverlay(image) }

    public var canDrawPointer: Bool { presenter.canDrawPointer }

    public var pointerRoute: String { presenter.pointerRouteName }

    public func setPointer(_ pointer: ScreenPointer?) { presenter.setPointer(pointer) }
    public var panelOnGlass: OverlayImage? { presenter.overlayOnGlass }
    public func reportPanelRoute() { presenter.reportOverlay() }
    public func setHDRMetadata(_ metadata: HDRStaticMetadata?) { presenter.setHDRMetadata(metadata) }

    // MARK: - A stream

    public var scaling: PictureScaling {
        get { presenter.scaling }
        set { presenter.scaling = newValue }
    }

    /// Where the pictures go (`"display":{"backend":"kms","picture":"640x360","place":"1024x576+0+96",
    /// "scaler":"cpu","cpu_scale_ms":2.31}`): the scaler is `plane`, `cpu`, `none` (1:1 is the
    /// picture's own size) or `1:1` with `why` fit was not reached. nil before the first picture.
    public var statsMember: String? {
        guard let f = presenter.fitState else { return nil }
        var member = "\"display\":{\"backend\":\"kms\",\"scaling\":\"\(presenter.scaling.rawValue)\",\"picture\":\"\(f.picture)\","
            + "\"place\":\"\(f.place)\",\"scaler\":\"\(f.route.name)\""
        if f.route == .cpu { member += String(format: ",\"cpu_scale_ms\":%.2f", Double(f.cpuScaleNs) / 1e6) }
        if case .oneToOne(let why) = f.route { member += ",\"why\":\(JSON.string(why))" }
        return member + "}"
    }

    public func present(first: DecodedPicture, _ presentation: StreamPresentation,
                        steps: () throws -> StreamStep) throws -> StreamOutcome {
        do {
            _ = try presenter.configure(for: first)
        } catch {
            first.release()
            throw ScreenError.unusable("\(error)")
        }
        presenter.reportStart(presentThread: scheduling)
        guard let signals = presentation.signals else { preconditionFailure("a stream on KMS needs the signal watch") }
        let loop = PresentLoop(presenter: presenter, signals: signals, vt: vt, fps: presentation.fps,
                               checkpoint: checkpoint?(presenter), flipLog: flipLog)
        loop.followSchedule = presentation.followSchedule
        loop.sourceWakeDescriptors = presentation.wakeDescriptors
        loop.onPass = presentation.onPass
        loop.onShown = presentation.onShown
        loop.displayWatch = (watch?.descriptor ?? -1, { [unowned self] in
            if let change = self.checkDisplay() { presentation.onChange?(change) }
        })
        let outcome = try loop.run(steps: steps)
        flipLog?.summary(loop.pacer.stats, holdGuardNs: loop.pacer.holdGuardNs)
        switch outcome {
        case .finished: return .finished
        case .interrupted(let signal): return .interrupted(signal)
        }
    }

    // MARK: - Hot-plug

    /// Drains the kernel's reports; when one may concern our connector, re-reads it and follows
    /// it (`followConnector`). - Returns: what changed on glass; nil when nothing did.
    func checkDisplay() -> ScreenChange? {
        guard let watch else { return nil }
        let reports = watch.drain()
        let id = presenter.connector.id
        guard reports.contains(where: { $0.concerns(devicePath: kernelDevicePath, connector: id) }) else { return nil }
        return followConnector()
    }

    /// Re-reads the connector (a probe) and follows it: gone → commits pause, mode and buffers
    /// kept; back at the same timing → the next commit sets it again; another mode → the
    /// presenter drives it from the next picture on.
    public func followConnector() -> ScreenChange? {
        let before = presenter.mode
        let name = presenter.connector.name
        let info = presenter.reprobeConnector()
        let verdict = ConnectorVerdict.classify(wasConnected: presenter.attached, current: before,
                                                connected: info?.connected ?? false, modes: info?.modes ?? [],
                                                request: modeRequest)
        do {
            switch verdict {
            case .unchanged:
                return nil
            case .disconnected, .noModes:
                var gone = info ?? presenter.connector
                gone.connected = false
                presenter.outputDetached(gone)
                return .disconnected(output: name)
            case .use(let mode):
                guard let info else { return nil }
                if mode.sameTiming(as: before) {
                    try presenter.outputAttached(info, mode: mode)
                    return .reconnected(output: name, mode: mode.screenMode)
                }
                try presenter.switchMode(to: mode, connector: info)
                return .modeChanged(output: name, from: before.screenMode, to: mode.screenMode)
            }
        } catch {
            FileHandle.standardError.write(Data("punktfunk-kiosk: cannot follow the display on \(name) (\(error)); keeping \(before.name)\n".utf8))
            return nil
        }
    }

    private static func resolvedPath(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    public func close() {
        guard !closed else { return }
        closed = true
        flipLog?.close()
        presenter.shutdown()
        vt?.restore()
        scheduling.restore()
    }
}

extension DisplayMode {
    /// The seam's view of this timing.
    public var screenMode: ScreenMode { ScreenMode(width: width, height: height, refreshMilliHz: refreshMilliHz) }
}
