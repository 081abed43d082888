import CPunktfunkLinux
import Foundation
import Glibc
import PunktfunkWire
import VideoDecode
import SystemClock
import VideoFrames

/// The decoder thread of a live session: complete AUs in (copied off the pump thread), decoded
/// pictures out, newest wins at both ends — and nothing broken in between.
///
/// After a loss (data-plane.md §4.3) the stage withholds access units from the decoder
/// (`AUAdmission`: until the host's keyframe, RFI anchor or intra-refresh wave start) and holds
/// decoded pictures back from the display (`ReanchorGate`: until a clean re-anchor), so the last
/// good picture stays on the screen; its backstop and a streak of access units without output ask
/// for a keyframe through `onKeyframeRequest`. A loss is a frame-index gap the pump saw, an AU
/// evicted from a full `input` (the decoder fell behind), a decoder error, or a picture the decoder
/// marked damaged.
///
/// Invariants: `input` holds ≤ 16 AUs (267 ms at 60 Hz: a hiccup of the decode thread is absorbed
/// rather than turned into a loss and a picture frozen until a keyframe); `output` holds ≤ 3
/// pictures and only pictures the gate let through (an evicted one is released and counted as a
/// decode-side drop); every picture the
/// decoder produced is either pushed or released here; `wakeDescriptor` (an eventfd) is signalled
/// after each picture pushed so a presenter can sleep in poll().
public final class DecodeStage: @unchecked Sendable {
    /// One AU as the pump hands it over.
    public struct Unit: Sendable {
        public var bytes: [UInt8]
        public var frame: UInt32
        public var ptsNs: Int64
        /// The AU's user flags (0x04 keyframe, 0x10 recovery point, 0x20 RFI anchor, 0x200 close).
        public var userFlags: UInt32
        /// Where the pump found it in the frame order (a gap before it: frames were lost).
        public var order: LossAsks.FrameOrder
        /// When its last packet arrived (CLOCK_MONOTONIC ns; 0 = unknown): the decode share's start.
        public var completeNs: UInt64 = 0
        public var keyframe: Bool { userFlags & LossAsks.keyframeFlag != 0 }

        public init(bytes: [UInt8], frame: UInt32, ptsNs: Int64, userFlags: UInt32, order: LossAsks.FrameOrder = .inOrder) {
            self.bytes = bytes; self.frame = frame; self.ptsNs = ptsNs; self.userFlags = userFlags; self.order = order
        }
    }

    /// The gate's state for the stats line and the overlay.
    public struct PictureHold: Sendable, Equatable {
        /// The picture on the screen is being held, and why (nil when not).
        public var reason: String?
        /// How long the current hold has lasted, ns.
        public var heldNs: UInt64
        /// Holds so far, their total and the last one's length (ns), and what lifted it.
        public var holds: Int
        public var totalNs: UInt64
        public var lastNs: UInt64
        /// The longest hold so far (the current one included), ns.
        public var longestNs: UInt64
        public var lastLift: String?
        /// Pictures held back; access units kept off the decoder.
        public var picturesHeld: Int
        public var unitsWithheld: Int

        /// One JSON member (`"picture":{…}`) for the stats line.
        public var jsonMember: String {
            "\"picture\":{\"held\":\(reason != nil),\"reason\":\(reason.map { "\"\($0)\"" } ?? "null"),"
                + "\"held_ms\":\(heldNs / 1_000_000),\"holds\":\(holds),\"held_total_ms\":\(totalNs / 1_000_000),"
                + "\"last_hold_ms\":\(lastNs / 1_000_000),\"longest_hold_ms\":\(longestNs / 1_000_000),\"last_lift\":\(lastLift.map { "\"\($0)\"" } ?? "null"),"
                + "\"pictures_held\":\(picturesHeld),\"withheld\":\(unitsWithheld)}"
        }

        /// The overlay's line.
        public var overlayLine: String {
            if let reason { return "picture held \(String(format: "%.2f", Double(heldNs) / 1e9)) s (\(reason))" }
            if holds == 0 { return "picture clean" }
            return "picture last hold \(String(format: "%.2f", Double(lastNs) / 1e9)) s, \(holds) in all"
        }
    }

    public let input = Mailbox<Unit>(capacity: 16)
    public let output = Mailbox<DecodedPicture>(capacity: 3)
    public let wakeDescriptor: Int32 = pf_wake_fd()
    /// Called on the decoder thread when the stream cannot be shown again until a keyframe.
    public var onKeyframeRequest: @Sendable () -> Void = {}
    /// Called on the decoder thread with each wire frame whose picture went to the display clean
    /// (the Feedback ACK).
    public var onCleanPicture: @Sendable (UInt32) -> Void = { _ in }
    /// Called on the decoder thread with planner warnings and rung changes.
    public var onWarning: @Sendable (String) -> Void = { _ in }
    /// Every decoded picture's hash and verdict (`--picture-log`), written on the decoder thread.
    public var pictureLog: PictureLog?
    /// Gets each shown picture's decode share (AU complete → decoded). Set before `start()`.
    public var latency: LatencyBreakdown?

    private let configuration: DecoderLadder.Configuration
    private let lock = NSLock()
    private var _decoded = 0, _inputDropped = 0, _outputDropped = 0
    private var _bytesIn: UInt64 = 0, _decodeNs: UInt64 = 0
    /// An AU was evicted from `input`: the next one the thread takes starts after a loss.
    private var evicted = false
    private var _rung: DecoderRungKind?
    private var gate = ReanchorGate()
    private var admission = AUAdmission()
    private let finished = DispatchSemaphore(value: 0)

    /// Pictures decoded; AUs evicted before decode; pictures evicted before display; AUs kept off
    /// the decoder after a loss.
    public var counts: (decoded: Int, inputDropped: Int, outputDropped: Int, skipped: Int) {
        lock.withLock { (_decoded, _inputDropped, _outputDropped, admission.withheld) }
    }
    /// AU bytes handed over; pictures decoded and the decode calls' total time (ns, monotonic),
    /// for the stats overlay.
    public var totals: (bytes: UInt64, pictures: UInt64, decodeNs: UInt64) {
        lock.withLock { (_bytesIn, UInt64(_decoded), _decodeNs) }
    }
    /// The rung in use (nil before the first AU).
    public var rung: DecoderRungKind? { lock.withLock { _rung } }

    /// The re-anchor gate's figures now.
    public var pictureHold: PictureHold {
        let now = MonotonicClock.nowNs()
        return lock.withLock {
            PictureHold(reason: gate.holding ? gate.reason?.rawValue : nil, heldNs: gate.heldFor(now: now),
                        holds: gate.freezes, totalNs: gate.heldTotalNs + gate.heldFor(now: now), lastNs: gate.lastHoldNs,
                        longestNs: max(gate.longestHoldNs, gate.heldFor(now: now)),
                        lastLift: gate.lastLift?.rawValue, picturesHeld: gate.picturesHeld, unitsWithheld: admission.withheld)
        }
    }

    public init(configuration: DecoderLadder.Configuration) {
        self.configuration = configuration
    }

    deinit { if wakeDescriptor >= 0 { close(wakeDescriptor) } }

    /// Pump thread: hands over one AU (copies its bytes).
    public func submit(_ unit: Unit) {
        lock.withLock { _bytesIn &+= UInt64(unit.bytes.count) }
        if input.push(unit) != nil {
            // The reference chain is broken: the next AU the decoder takes follows a loss.
            lock.withLock { _inputDropped += 1; evicted = true }
        }
    }

    /// Starts the decoder thread; it ends when `input` is closed and drained.
    public func start() {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "decode"
        thread.start()
    }

    /// Closes the input and waits (≤ 5 s) for the thread to finish the queued AUs.
    public func finish() {
        input.close()
        _ = finished.wait(timeout: .now() + 5)
        output.close()
        wake()
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }

    private func run() {
        let ladder = DecoderLadder(configuration: configuration)
        let ask = onKeyframeRequest
        ladder.onKeyframeRequest = { ask() }
        let warn = onWarning
        ladder.onWarning = { warn($0) }
        let clean = onCleanPicture
        while true {
            // Short waits: the gate's backstop runs while no AU arrives (a lost answer).
            guard var unit = input.pop(timeout: 0.05) else {
                if input.isClosed { break }
                if lock.withLock({ gate.poll(now: MonotonicClock.nowNs()) }) { ask() }
                continue
            }
            let now = MonotonicClock.nowNs()
            var overflowed = false
            let decision = lock.withLock { () -> AUAdmission.Decision in
                if evicted, case .inOrder = unit.order {
                    // The host thinks that AU arrived: only our own ask repairs it.
                    unit.order = .gap(1)
                    overflowed = true
                }
                evicted = false
                if case .gap = unit.order { gate.arm(.frameLoss, now: now) }
                return admission.admit(order: unit.order, userFlags: unit.userFlags)
            }
            if overflowed { ask() }
            if lock.withLock({ gate.poll(now: now) }) { ask() }
            switch decision {
            case .withhold: continue
            case .restartThenFeed: ladder.restart()
            case .feed: break
            }
            let t0 = MonotonicClock.nowNs()
            let report = ladder.decodeReporting(accessUnit: unit.bytes, pts: unit.ptsNs)
            let spent = MonotonicClock.nowNs() &- t0
            let after = MonotonicClock.nowNs()
            var verdicts: [ReanchorGate.Verdict] = []
            /// The hold a shown picture lifted (ns), per picture.
            var lifted: [UInt64?] = []
            var askKeyframe = false
            lock.withLock {
                _rung = ladder.activeRung
                _decoded += report.pictures.count
                _decodeNs &+= spent
                if report.failed { gate.arm(.decoderError, now: after) }
                if report.pictures.isEmpty && !report.skipped && !report.failed {
                    askKeyframe = gate.noOutput(now: after)
                }
                for i in report.pictures.indices {
                    let wasHolding = gate.holding
                    let verdict = gate.decoded(userFlags: unit.userFlags, damaged: report.isDamaged(i), now: after)
                    verdicts.append(verdict)
                    lifted.append(wasHolding && verdict == .show ? gate.lastHoldNs : nil)
                }
            }
            if askKeyframe { ask() }
            for (i, (picture, verdict)) in zip(report.pictures, verdicts).enumerated() {
                pictureLog?.log(frame: unit.frame, picture: picture, shown: verdict == .show, liftedAfterNs: lifted[i])
                guard verdict == .show else {
                    picture.release()
                    continue
                }
                clean(unit.frame)
                latency?.decoded(ptsNs: picture.pts, completeNs: unit.completeNs, decodedNs: after)
                if let evicted = output.push(picture) {
                    evicted.release()
                    lock.withLock { _outputDropped += 1 }
                }
                wake()
            }
        }
        for picture in ladder.flush() {
            let shown = lock.withLock { !gate.holding }
            if !shown {
                picture.release()
                continue
            }
            if let evicted = output.push(picture) { evicted.release() }
            wake()
        }
    }
}
