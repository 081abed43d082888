import ArgumentParser
import Display
import Foundation
import HEVC
import VideoDecode
import SystemClock
import VideoFrames
import KioskHarness

/// `punktfunk-kiosk present FILE`: decodes an Annex-B HEVC file with the software rung and shows
/// every output frame on a KMS plane at `--fps`, through the flip pacer. Prints one JSON line on
/// stderr at start (`{"drm":{…}}`); `--screendump-at` prints `@@SCREENDUMP frame-<n>` once frame
/// n is on glass and waits for a stdin line; `--flip-log` writes one JSON line per flip.
/// Exit 0 after the last frame, 130 / 143 on SIGINT / SIGTERM, 2 without a DRM device, 1 on
/// other errors — the saved display state is restored on every path.
struct PresentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "present",
        abstract: "Show an Annex-B HEVC file on a DRM/KMS display (software decode, atomic KMS).")

    @Argument(help: "Annex-B HEVC elementary stream (.hevc / .h265).") var file: String
    @Option(name: .customLong("drm-device"), help: "DRM card node (default: the first with a connected display).")
    var drmDevice: String?
    @Option(help: "Display mode WxH or WxH@Hz (default: the panel's preferred mode).") var mode: String?
    @Option(help: "Frames per second to present at.") var fps: Double = 60
    @Option(help: "Play the file this many times.") var loop: Int = 1
    @Option(name: .customLong("screendump-at"), help: "Comma-separated output frame numbers (first pass) to pause at.")
    var screendumpAt: String?
    @Option(name: .customLong("flip-log"), help: "Write one JSON line per completed flip to this file.")
    var flipLog: String?
    @Option(help: "Stop after this many seconds.") var seconds: Double?
    @Option(name: .customLong("realtime-priority"), help: "SCHED_FIFO priority of the presenting thread, 1-99, or 0 to keep SCHED_OTHER (needs CAP_SYS_NICE or LimitRTPRIO; refused → SCHED_OTHER, said at start).")
    var realtimePriority: Int32 = PresentThreadScheduling.defaultPriority
    @Option(name: .customLong("dmabuf-via"), help: ArgumentHelp("Test fake for the VA-API rung's exports: hand each decoded frame to the presenter as a dma-buf of this vgem device (VM harness).", visibility: .hidden))
    var dmabufVia: String?
    @Flag(help: "Show a stats overlay in the top-left corner: fps, Mb/s, loss, decode ms, ready→glass p50/p95.")
    var stats = false
    @Option(name: .customLong("stats-dump"), help: "With --stats and --screendump-at: write the overlay image on glass at each screendump as PREFIX-frame-<n>.argb (test harnesses).")
    var statsDump: String?

    func validate() throws {
        if let mode, ModeRequest(parsing: mode) == nil { throw ValidationError("--mode must be WxH or WxH@Hz, e.g. 1920x1080@60") }
        guard fps > 0, fps <= 1000 else { throw ValidationError("--fps must be in (0, 1000]") }
        guard loop >= 1 else { throw ValidationError("--loop must be at least 1") }
        if let seconds, seconds <= 0 { throw ValidationError("--seconds must be positive") }
        if screendumpFrames == nil { throw ValidationError("--screendump-at must be frame numbers like 5,20") }
        if statsDump != nil && !stats { throw ValidationError("--stats-dump needs --stats") }
        if !(0...99).contains(realtimePriority) { throw ValidationError("--realtime-priority must be 0...99") }
    }

    private var screendumpFrames: Set<Int>? { ScreendumpList.parse(screendumpAt) }

    func run() throws {
        // First of all: before any thread exists (the decoder's slice threads inherit the
        // blocked mask) and as early as possible (a shell's background job inherits SIGINT as
        // ignored, and an ignored signal that arrives before it is blocked is lost).
        let signals: SignalWatch
        do { signals = try SignalWatch() } catch { throw fail("\(error)") }
        guard let data = FileManager.default.contents(atPath: file) else { throw fail("cannot read \(file)") }
        let accessUnits = AccessUnitSplitter.split([UInt8](data))
        guard !accessUnits.isEmpty else { throw fail("\(file) holds no HEVC access units") }

        let presenter: Presenter
        do {
            presenter = try Presenter(devicePath: drmDevice, modeRequest: mode.flatMap(ModeRequest.init(parsing:)))
        } catch let error {
            switch error {
            case .noDevice, .openFailed: throw fail("\(error)", code: 2)
            default: throw fail("\(error)")
            }
        }
        let vt = VTSwitch()
        var source = DecodedFileSource(accessUnits: accessUnits, passes: loop,
                                       deadlineNs: seconds.map { MonotonicClock.nowNs() + UInt64($0 * 1e9) })
        let exporter: VGEMExporter?
        do { exporter = try dmabufVia.map { p throws(KMSError) in try VGEMExporter(path: p) } } catch { throw fail("\(error)") }
        /// The next frame, as a vgem dma-buf with --dmabuf-via.
        func next() throws -> SourcedFrame? {
            guard var s = try source.next() else { return nil }
            if let exporter, case .cpu(let f) = s.frame { s.frame = .dmaBuf(try exporter.export(f)) }
            return s
        }
        func finish(_ code: Int32, _ message: String? = nil) -> ExitCode {
            presenter.shutdown()
            vt?.restore()
            if let message { warn(message) }
            return ExitCode(code)
        }

        let log: FlipLog?
        do { log = try flipLog.map { p throws(KMSError) in try FlipLog(path: p) } } catch { throw finish(1, "\(error)") }
        // This thread presents (and decodes): real-time for the pacer's hold deadlines; the
        // decoder's threads, created later, start normal (SCHED_RESET_ON_FORK).
        let scheduling = PresentThreadScheduling.raise(priority: realtimePriority)
        defer { scheduling.restore() }
        let outcome: PresentLoop.Outcome
        do {
            guard let first = try next() else { throw finish(1, "no frame decoded from \(file)") }
            try presenter.configure(for: first.frame)
            presenter.reportStart(presentThread: scheduling)
            var peeked: SourcedFrame? = first
            let presentLoop = PresentLoop(presenter: presenter, signals: signals, vt: vt, fps: fps,
                                          screendumpFrames: screendumpFrames ?? [], flipLog: log)
            if stats {
                let overlay = StatsOverlay(presenter: presenter, latencyLabel: "ready→glass", readyIsOrigin: true,
                                           nowNs: MonotonicClock.nowNs(), counters: { source.counters })
                presenter.reportOverlay()
                presentLoop.onShown = { overlay?.shown(frame: $0, flipNs: $1, readyNs: $2, nowNs: MonotonicClock.nowNs()) }
                if let statsDump { presentLoop.beforeScreendump = { presenter.dumpOverlay(prefix: statsDump, frame: $0) } }
            }
            outcome = try presentLoop.run {
                if let p = peeked { peeked = nil; return p }
                return try next()
            }
            log?.summary(presentLoop.pacer.stats, holdGuardNs: presentLoop.pacer.holdGuardNs)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            log?.close()
            throw finish(1, "\(error)")
        }
        log?.close()
        switch outcome {
        case .finished: throw finish(0)
        case .interrupted(.terminate): throw finish(143)
        case .interrupted: throw finish(130)
        }
    }

    private func fail(_ message: String, code: Int32 = 1) -> ExitCode {
        warn(message)
        return ExitCode(code)
    }

    private func warn(_ message: String) {
        FileHandle.standardError.write(Data("present: \(message)\n".utf8))
    }
}

/// Decodes the file's access units with the software rung, `passes` times, in output order.
/// A new decoder per pass (so every pass starts clean at the first IRAP picture).
struct DecodedFileSource {
    let accessUnits: [[UInt8]]
    let passes: Int
    let deadlineNs: UInt64?
    private var pass = 0
    private var nextAU = 0
    private var flushed = false
    private var queue: [DecodedFrame] = []
    private var indexInPass = 0
    private var index: UInt64 = 0
    private var decoder: SoftwareDecoder?
    /// AU bytes decoded, pictures out and decode time (ns) so far, for the stats overlay.
    private(set) var counters = StatsCounters()

    init(accessUnits: [[UInt8]], passes: Int, deadlineNs: UInt64?) {
        self.accessUnits = accessUnits; self.passes = passes; self.deadlineNs = deadlineNs
    }

    /// The next output frame; nil at the end of the last pass or past the deadline.
    mutating func next() throws -> SourcedFrame? {
        if let deadlineNs, MonotonicClock.nowNs() >= deadlineNs { return nil }
        while queue.isEmpty {
            guard pass < passes else { return nil }
            if decoder == nil { decoder = try SoftwareDecoder() }
            if nextAU < accessUnits.count {
                let t0 = MonotonicClock.nowNs()
                defer { counters.decodeNs &+= MonotonicClock.nowNs() &- t0 }
                counters.videoBytes &+= UInt64(accessUnits[nextAU].count)
                do {
                    let pictures = try decoder!.decode(accessUnit: accessUnits[nextAU], pts: Int64(nextAU))
                    counters.decodedPictures &+= UInt64(pictures.count)
                    queue += pictures
                } catch {
                    FileHandle.standardError.write(Data("present: access unit \(nextAU): \(error)\n".utf8))
                }
                nextAU += 1
            } else if !flushed {
                let pictures = decoder!.flush()
                counters.decodedPictures &+= UInt64(pictures.count)
                queue += pictures
                flushed = true
            } else {
                pass += 1; nextAU = 0; flushed = false; indexInPass = 0; decoder = nil
            }
        }
        let frame = queue.removeFirst()
        defer { indexInPass += 1; index += 1 }
        return SourcedFrame(frame: .cpu(frame), index: index, indexInPass: indexInPass, firstPass: pass == 0)
    }
}
