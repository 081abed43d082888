import ArgumentParser
import Display
import Foundation
import Kiosk
import PunktfunkSession
import PunktfunkWire
import VideoDecode
import SystemClock
import VideoFrames
import PunktfunkTestHost

/// `connect` on glass: the KMS presenter picks the connector and mode first, the session asks the
/// host for exactly that mode, then `StreamPipeline` (pump thread + decode thread) feeds decoded
/// pictures to `PresentLoop` on this thread, paced by page flips. `--demo` does the same against
/// the embedded test host. Exit 0 at the end of `--seconds`, 130/143 on SIGINT/SIGTERM, 2 without
/// a DRM device, 1 with a sentence otherwise; the display state is restored on every path.
extension ConnectCommand {
    var rungs: [DecoderRungKind] {
        switch decoder {
        case "vaapi": return [.vaapi]
        case "auto": return [.vaapi, .software]
        default: return [.software]
        }
    }

    /// `connect --demo`: the embedded host on loopback, pinned to its fresh identity.
    func runDemo() throws {
        let host: DemoHost
        do { host = try DemoHost(seconds: sessionSeconds) } catch { throw fail("The demo host could not start: \(error)") }
        defer { host.stop() }
        let options = ClientSession.Options(remote: host.address, identity: nil, trust: .pinned(host.fingerprint), seconds: sessionSeconds)
        FileHandle.standardError.write(Data("punktfunk-kiosk: demo host on \(host.address)\n".utf8))
        if headless {
            try decodeHeadless(options)
        } else {
            try present(options)
        }
    }

    /// `--demo --headless`: the whole pipeline without glass (stats on stdout, decoded count at the end).
    func decodeHeadless(_ options: ClientSession.Options) throws {
        let pipeline = StreamPipeline(options: options, decoder: .init(rungs: rungs))
        pipeline.prepare = Self.printStats
        pipeline.start()
        var pictures = 0
        while true {
            let closed = pipeline.stage.output.isClosed
            if let picture = pipeline.stage.output.pop(timeout: 0.1) { picture.release(); pictures += 1; continue }
            if closed { break }
        }
        pipeline.wait()
        if case .failure(let error)? = pipeline.result { throw fail(error.description) }
        let c = pipeline.stage.counts
        print("{\"decoded\":\(pictures),\"rung\":\"\(pipeline.stage.rung?.rawValue ?? "none")\",\"input_dropped\":\(c.inputDropped),\"skipped\":\(c.skipped)}")
    }

    static func printStats(_ session: ClientSession) {
        session.onStats = { stats in FileHandle.standardOutput.write(Data((stats.json + "\n").utf8)) }
    }

    /// Streams `base` onto the display.
    func present(_ base: ClientSession.Options) throws {
        // Before any thread exists, so every thread inherits the blocked signals.
        let signals: SignalWatch
        do { signals = try SignalWatch() } catch { throw fail("\(error)") }
        let presenter: Presenter
        do {
            presenter = try Presenter(devicePath: drmDevice, modeRequest: mode.flatMap(ModeRequest.init(parsing:)))
        } catch {
            switch error {
            case .noDevice, .openFailed: throw fail("\(error)", code: 2)
            default: throw fail("\(error)")
            }
        }
        let vt = VTSwitch()
        var options = base
        // Ask the host for exactly the panel's mode (the virtual display is created at it).
        options.hello.mode = Mode(width: UInt32(presenter.mode.width), height: UInt32(presenter.mode.height),
                                  refreshHz: UInt32(max(1, presenter.mode.vrefresh)))
        let displayNode = presenter.device.path
        let pipeline = StreamPipeline(options: options, decoder: .init(rungs: rungs, openVADisplay: {
            try VADisplayConnection.openFirst(preferringDeviceOf: displayNode)
        }))
        let live = LiveStats()
        pipeline.prepare = { session in
            Self.printStats(session)
            live.observe(session)
        }
        pipeline.onResume = { attempt in
            FileHandle.standardError.write(Data("punktfunk-kiosk: the connection was lost; resuming the session (attempt \(attempt))\n".utf8))
        }
        func finish(_ code: Int32, _ message: String? = nil) -> ExitCode {
            pipeline.stop()
            pipeline.wait()
            presenter.shutdown()
            vt?.restore()
            if let message { FileHandle.standardError.write(Data("punktfunk-kiosk: \(message)\n".utf8)) }
            return ExitCode(code)
        }
        pipeline.start()

        // The first picture fixes the plane's format and size.
        var first: DecodedPicture?
        while first == nil {
            for s in signals.drain() where s == .interrupt || s == .terminate { throw finish(s == .terminate ? 143 : 130) }
            let closed = pipeline.stage.output.isClosed
            first = pipeline.stage.output.pop(timeout: 0.05)
            if first == nil && closed { break }
        }
        guard let first else {
            if case .failure(let error)? = pipeline.result { throw finish(1, error.description) }
            throw finish(1, "the host sent no picture that could be decoded")
        }
        let log: FlipLog?
        do {
            presenter.setHDRMetadata(pipeline.hostHDR.takeNew())
            _ = try presenter.configure(for: first)
            log = try flipLog.map { p throws(KMSError) in try FlipLog(path: p) }
        } catch { throw finish(1, "\(error)") }
        // Real-time for the pacer's hold deadlines; the pump and decode threads already run and
        // keep normal priority.
        let scheduling = PresentThreadScheduling.raise(priority: realtimePriority)
        defer { scheduling.restore() }
        presenter.reportStart(presentThread: scheduling)

        let loop = PresentLoop(presenter: presenter, signals: signals, vt: vt, fps: Double(options.hello.mode.refreshHz),
                               screendumpFrames: screendumpFrames ?? [], flipLog: log)
        loop.followSchedule = false
        loop.sourceWakeDescriptor = pipeline.stage.wakeDescriptor
        let overlay = stats ? liveOverlay(presenter: presenter, loop: loop, live: live, stage: pipeline.stage) : nil
        // Host pts (media clock) → local CLOCK_MONOTONIC, with the offset of the newest stats.
        let realtimeMinusMonotonic = MonotonicClock.realtimeMinusMonotonicNs()
        var index: UInt64 = 0
        var peeked: DecodedPicture? = first
        func sourced(_ picture: DecodedPicture) -> PresentLoop.SourceStep {
            defer { index += 1 }
            if let overlay {
                let clock = live.clockOffsetNs.map { CaptureClock(offsetNs: $0, realtimeMinusMonotonicNs: realtimeMinusMonotonic) }
                overlay.noteOrigin(frame: index, originNs: clock?.localMonotonicNs(hostPtsNs: picture.pts))
            }
            return .frame(SourcedFrame(frame: picture, index: index, indexInPass: Int(index), firstPass: true))
        }
        let outcome: PresentLoop.Outcome
        do {
            outcome = try loop.run(steps: {
                // The host's newest HDR metadata applies from the next commit (this thread).
                presenter.setHDRMetadata(pipeline.hostHDR.takeNew())
                if let p = peeked { peeked = nil; return sourced(p) }
                let closed = pipeline.stage.output.isClosed
                if let p = pipeline.stage.output.pop(timeout: 0) { return sourced(p) }
                return closed ? .end : .notYet
            })
            log?.summary(loop.pacer.stats, holdGuardNs: loop.pacer.holdGuardNs)
            log?.close()
        } catch {
            log?.close()
            throw finish(1, "\(error)")
        }
        switch outcome {
        case .finished:
            if case .failure(let error)? = pipeline.result { throw finish(1, error.description) }
            throw finish(0)
        case .interrupted(.terminate): throw finish(143)
        case .interrupted: throw finish(130)
        }
    }

    /// `--stats` on glass: the overlay fed by the loop's flips, the decode stage and the session.
    private func liveOverlay(presenter: Presenter, loop: PresentLoop, live: LiveStats, stage: DecodeStage) -> StatsOverlay? {
        let overlay = StatsOverlay(presenter: presenter, latencyLabel: "capture→glass", readyIsOrigin: false,
                                   nowNs: MonotonicClock.nowNs(), counters: { live.counters(stage: stage) })
        presenter.reportOverlay()
        loop.onShown = { overlay?.shown(frame: $0, flipNs: $1, readyNs: $2, nowNs: MonotonicClock.nowNs()) }
        if let statsDump { loop.beforeScreendump = { presenter.dumpOverlay(prefix: statsDump, frame: $0) } }
        return overlay
    }
}
