import SystemClock
import Display
import Foundation
import Glibc

/// The display, opened once for the life of the process: the KMS presenter (device, connector,
/// mode, saved start-up state), the VT it runs on, the presenting thread's real-time scheduling
/// and the flip log. Streams take turns on it; a stream whose pictures keep the layout reuses the
/// plane plan, and the mode never changes between them.
///
/// Ownership: `close()` (idempotent, also from deinit) restores the saved display state, puts
/// back the VT's modes and the thread's scheduling — on every way out.
/// - Precondition: used only on the thread that created it (the presenting thread).
final class Glass {
    let presenter: Presenter
    let vt: VTSwitch?
    let scheduling: PresentThreadScheduling
    let flipLog: FlipLog?
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

    func close() {
        guard !closed else { return }
        closed = true
        flipLog?.close()
        presenter.shutdown()
        vt?.restore()
        scheduling.restore()
    }
}
