import SystemClock
import Display
import Foundation
import Glibc

/// The display, opened once for the life of the process: the KMS presenter (device, connector,
/// mode, saved start-up state), the VT it runs on, the presenting thread's real-time scheduling
/// and the flip log. Streams take turns on it; a stream whose pictures keep the layout reuses the
/// plane plan. The mode changes only when the display does: `checkDisplay()` follows a hot-plug
/// on the same presenter (same device, connector and CRTC; `presenter.mode` changes).
///
/// Ownership: `close()` (idempotent, also from deinit) restores the saved display state, puts
/// back the VT's modes and the thread's scheduling — on every way out.
/// - Precondition: used only on the thread that created it (the presenting thread).
final class Glass {
    let presenter: Presenter
    let vt: VTSwitch?
    let scheduling: PresentThreadScheduling
    let flipLog: FlipLog?
    /// The kernel's hot-plug reports; nil when the uevent socket cannot be opened (said once).
    private let watch: ConnectorWatch?
    /// The explicit mode asked for (`--mode`, config), kept while the display offers it.
    private let modeRequest: ModeRequest?
    /// The device node as the kernel names it in uevents (`/dev/dri/card0`, symlinks resolved).
    private let kernelDevicePath: String
    /// Set while our VT is in front but master could not be retaken: the next attempt, ns.
    private var resumeRetryAtNs: UInt64?
    private var closed = false
    static let resumeRetryNs: UInt64 = 250_000_000

    /// Opens the display. - Throws: `KMSError` when there is none to use.
    init(_ settings: RunnerConfiguration.KMSSettings) throws(KMSError) {
        presenter = try Presenter(devicePath: settings.devicePath, modeRequest: settings.mode)
        do { flipLog = try settings.flipLogPath.map { p throws(KMSError) in try FlipLog(path: p) } } catch {
            presenter.shutdown()
            throw error
        }
        vt = VTSwitch()
        modeRequest = settings.mode
        kernelDevicePath = Self.resolvedPath(presenter.device.path)
        do { watch = try ConnectorWatch() } catch {
            watch = nil
            FileHandle.standardError.write(Data("punktfunk-kiosk: display changes are not followed (\(error))\n".utf8))
        }
        // Real-time for the pacer's hold deadlines. Threads started later (pump, decode,
        // pairing) begin SCHED_OTHER (SCHED_RESET_ON_FORK); a file decodes on this thread.
        scheduling = PresentThreadScheduling.raise(priority: settings.realtimePriority)
    }

    deinit { close() }

    /// The start-up line's name for what runs on glass: `connector WxH@Hz`.
    var name: String { "\(presenter.connector.name) \(presenter.mode.name)" }

    /// A VT switch request while no stream presents (the present loop handles its own): give the
    /// display back before the switch completes, or take it back after it.
    func handle(_ event: SignalWatch.Event) {
        switch event {
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

    /// When to call `retryResume()` (nil: nothing pending).
    var nextRetryNs: UInt64? { resumeRetryAtNs }

    func retryResume(nowNs: UInt64) {
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

    // MARK: - Hot-plug

    /// Readable when the kernel reported a possible display change: call `checkDisplay()`.
    /// -1 when changes are not followed.
    var watchDescriptor: Int32 { watch?.descriptor ?? -1 }

    /// Drains the kernel's reports; when one may concern our connector, re-reads it and follows
    /// it (`followConnector`). - Returns: what changed on glass; nil when nothing did.
    func checkDisplay() -> DisplayChange? {
        guard let watch else { return nil }
        let reports = watch.drain()
        let id = presenter.connector.id
        guard reports.contains(where: { $0.concerns(devicePath: kernelDevicePath, connector: id) }) else { return nil }
        return followConnector()
    }

    /// Re-reads the connector (a probe) and follows it: gone → commits pause, mode and buffers
    /// kept; back at the same timing → the next commit sets it again; another mode → the
    /// presenter drives it from the next picture on.
    func followConnector() -> DisplayChange? {
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
                return .disconnected(connector: name)
            case .use(let mode):
                guard let info else { return nil }
                if mode.sameTiming(as: before) {
                    try presenter.outputAttached(info, mode: mode)
                    return .reconnected(connector: name, mode: mode)
                }
                try presenter.switchMode(to: mode, connector: info)
                return .modeChanged(connector: name, from: before, to: mode)
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

    func close() {
        guard !closed else { return }
        closed = true
        flipLog?.close()
        presenter.shutdown()
        vt?.restore()
        scheduling.restore()
    }
}
