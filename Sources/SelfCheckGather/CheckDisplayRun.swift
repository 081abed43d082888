import Display
import Foundation
import HEVC
import SelfCheck
import SelfCheckDecode
import SystemClock
import VideoDecode
import VideoFrames

/// `check --display`: takes the screen through the kiosk's own presenter (the display is restored
/// when it shuts down, also when SIGINT/SIGTERM arrive meanwhile), asks the kernel with TEST_ONLY commits whether a decoded NV12 and P010
/// picture goes on a plane — an exported VA-API surface when this box decodes in hardware, else
/// the software decoder's picture in a linear buffer — then flips the NV12 picture on every
/// vblank for the given seconds and records the page-flip timestamps.
public enum CheckDisplayRun {
    public static func run(into o: inout DisplayObservation, seconds: Double) {
        o.displayRequested = true
        let card = DisplayJudge.chosenConnector(o.cards)?.0.path
        // SIGINT/SIGTERM/SIGHUP wait until the display is restored (then end the process as usual):
        // blocked before the presenter (and any decoder thread) exists, unblocked after its shutdown.
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&blocked, signal) }
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let presenter: Presenter
        do { presenter = try Presenter(devicePath: card, modeRequest: nil) } catch {
            o.flipRunError = "cannot take the display: \(error)"
            return
        }
        defer { presenter.shutdown() }
        let va = try? VADisplayConnection.openFirst(preferringDeviceOf: card)
        for clip in CheckClip.comparison.prefix(2) {
            let format = clip.profile == .main ? "NV12" : "P010"
            let frame = firstSoftwareFrame(clip)
            if let va, va.canDecode(clip.profile), let test = vaPlaneTest(presenter, clip: clip, format: format, connection: va) {
                o.planeTests.append(test)
            } else if let frame {
                o.planeTests.append(cpuPlaneTest(presenter, frame: frame, format: format))
            } else {
                o.planeTests.append(.init(format: format, source: "a decoded \(format) picture",
                                          outcome: .notRun(reason: "the clip did not decode")))
            }
        }
        do { o.flipRun = try flipRun(presenter, seconds: seconds) } catch {
            o.flipRunError = "\(error)"
        }
    }

    static func firstSoftwareFrame(_ clip: CheckClip) -> DecodedFrame? {
        guard let decoder = try? SoftwareDecoder() else { return nil }
        for (i, au) in AccessUnitSplitter.split(clip.bytes).enumerated() {
            if let f = try? decoder.decode(accessUnit: au, pts: Int64(i)).first { return f }
        }
        return decoder.flush().first
    }

    static func cpuPlaneTest(_ presenter: Presenter, frame: DecodedFrame, format: String) -> DisplayObservation.PlaneTest {
        let source = "a linear \(format) buffer of the software decoder (no VA-API surface on this box)"
        do {
            let plan = try presenter.configure(for: frame)
            if plan.format == .xrgb8888 {
                return .init(format: format, source: source, outcome: .cpuFallback(reason: "only an XRGB plane accepts the layout"))
            }
            return .init(format: format, source: source, outcome: .accepted(plane: plan.plane, kind: plan.kind.rawValue, modifier: plan.modifier))
        } catch {
            return .init(format: format, source: source, outcome: .cpuFallback(reason: "\(error)"))
        }
    }

    /// The first picture of `clip` decoded by VA-API, exported, and put to the presenter's import
    /// route (TEST_ONLY); nil when it did not decode.
    static func vaPlaneTest(_ presenter: Presenter, clip: CheckClip, format: String,
                            connection: VADisplayConnection) -> DisplayObservation.PlaneTest? {
        guard let decoder = try? VAAPIDecoder(connection: connection) else { return nil }
        var picture: DMABufFrame?
        var held: [DMABufFrame] = []
        defer { for f in held { f.lease.release() } }
        for (i, au) in AccessUnitSplitter.split(clip.bytes).enumerated() where picture == nil {
            guard let out = try? decoder.decode(accessUnit: au, pts: Int64(i)) else { return nil }
            held += out.pictures
            picture = out.pictures.first
        }
        if picture == nil, let out = try? decoder.flush() { held += out.pictures; picture = out.pictures.first }
        guard let d = picture else { return nil }
        let source = "an exported VA-API surface (\(connection.vendor))"
        do {
            let plan = try presenter.configure(for: .dmaBuf(d))
            if let route = presenter.importRoute, route.hasPrefix("imported") {
                return .init(format: format, source: source, outcome: .accepted(plane: plan.plane, kind: plan.kind.rawValue, modifier: plan.modifier))
            }
            return .init(format: format, source: source, outcome: .cpuFallback(reason: presenter.importRoute ?? "not imported"))
        } catch {
            return .init(format: format, source: source, outcome: .cpuFallback(reason: "\(error)"))
        }
    }

    struct FlipRunError: Error, CustomStringConvertible { var description: String }

    /// One commit per completed flip (at most one in flight) of a mode-sized XRGB canvas (no
    /// per-frame conversion, so a slow CPU does not thin the flips) for `seconds`, counted from the
    /// first completed flip (the modeset); at most `seconds` + 15 s in all.
    static func flipRun(_ presenter: Presenter, seconds: Double) throws -> DisplayObservation.FlipRun {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
        defer { scratch.deallocate() }
        var events: [FlipEvent] = []
        var stamps: [UInt64] = []
        var id: UInt64 = 1
        func next() throws {
            guard let canvas = try presenter.canvas(id: id) else { throw FlipRunError(description: "no free canvas buffer") }
            // A grey level that changes each flip, so the flips show.
            memset(canvas.pixels, Int32(0x30 + Int(id % 2) * 0x20), canvas.pitch * canvas.height)
            try presenter.commit(frame: id)
        }
        try next()
        let started = MonotonicClock.nowNs()
        let limit = started + UInt64((seconds + 15) * 1e9)
        var end: UInt64?
        var silentPolls = 0
        while MonotonicClock.nowNs() < min(end ?? limit, limit) {
            var pfd = pollfd(fd: presenter.eventFD, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 500) <= 0 {
                silentPolls += 1
                if silentPolls >= 10 { throw FlipRunError(description: "no page-flip event for 5 s (\(stamps.count) flips before)") }
                continue
            }
            silentPolls = 0
            events.removeAll(keepingCapacity: true)
            presenter.readFlips(into: &events, scratch: scratch)
            stamps += events.map(\.timestampNs)
            if end == nil, !stamps.isEmpty { end = MonotonicClock.nowNs() + UInt64(seconds * 1e9) }
            guard !presenter.flipPending else { continue }
            presenter.release(frame: id - 1)
            id += 1
            try next()
        }
        presenter.waitForPendingFlip(timeoutMs: 100)
        let period = UInt64(1e12 / Double(max(presenter.mode.refreshMilliHz, 1)))
        // The first event completes the modeset, not a steady-state flip.
        return .init(timestampsNs: Array(stamps.dropFirst()), periodNs: period)
    }
}
