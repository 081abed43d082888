import CPunktfunkLinux
import Foundation
import Glibc
import VideoDecode
import SystemClock
import VideoFrames

/// The decoder thread of a live session: complete AUs in (copied off the pump thread), decoded
/// pictures out, newest wins at both ends.
///
/// Invariants: `input` holds ≤ 8 AUs; when one is evicted (the decoder fell behind) the reference
/// chain is broken, so the stage asks for a keyframe and skips AUs until one flagged keyframe
/// arrives. `output` holds ≤ 3 pictures; an evicted picture is released (its surface/buffer goes
/// back) and counted as a decode-side drop. `wakeDescriptor` (an eventfd) is signalled after each
/// picture so a presenter can sleep in poll().
public final class DecodeStage: @unchecked Sendable {
    /// One AU as the pump hands it over.
    public struct Unit: Sendable {
        public var bytes: [UInt8]
        public var frame: UInt32
        public var ptsNs: Int64
        public var keyframe: Bool
        public init(bytes: [UInt8], frame: UInt32, ptsNs: Int64, keyframe: Bool) {
            self.bytes = bytes; self.frame = frame; self.ptsNs = ptsNs; self.keyframe = keyframe
        }
    }

    public let input = Mailbox<Unit>(capacity: 8)
    public let output = Mailbox<DecodedPicture>(capacity: 3)
    public let wakeDescriptor: Int32 = pf_wake_fd()
    /// Called on the decoder thread when the stream cannot be decoded until a keyframe.
    public var onKeyframeRequest: @Sendable () -> Void = {}
    /// Called on the decoder thread with planner warnings and rung changes.
    public var onWarning: @Sendable (String) -> Void = { _ in }

    private let configuration: DecoderLadder.Configuration
    private let lock = NSLock()
    private var _decoded = 0, _inputDropped = 0, _outputDropped = 0, _skipped = 0
    private var _bytesIn: UInt64 = 0, _decodeNs: UInt64 = 0
    private var needKeyframe = false
    private var _rung: DecoderRungKind?
    private let finished = DispatchSemaphore(value: 0)

    /// Pictures decoded; AUs evicted before decode; pictures evicted before display; AUs skipped
    /// while waiting for a keyframe.
    public var counts: (decoded: Int, inputDropped: Int, outputDropped: Int, skipped: Int) {
        lock.withLock { (_decoded, _inputDropped, _outputDropped, _skipped) }
    }
    /// AU bytes handed over; pictures decoded and the decode calls' total time (ns, monotonic),
    /// for the stats overlay.
    public var totals: (bytes: UInt64, pictures: UInt64, decodeNs: UInt64) {
        lock.withLock { (_bytesIn, UInt64(_decoded), _decodeNs) }
    }
    /// The rung in use (nil before the first AU).
    public var rung: DecoderRungKind? { lock.withLock { _rung } }

    public init(configuration: DecoderLadder.Configuration) {
        self.configuration = configuration
    }

    deinit { if wakeDescriptor >= 0 { close(wakeDescriptor) } }

    /// Pump thread: hands over one AU (copies its bytes).
    public func submit(_ unit: Unit) {
        lock.withLock { _bytesIn &+= UInt64(unit.bytes.count) }
        if input.push(unit) != nil {
            lock.withLock { _inputDropped += 1; needKeyframe = true }
            onKeyframeRequest()
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
        while true {
            guard let unit = input.pop(timeout: 0.25) else {
                if input.isClosed { break }
                continue
            }
            let skip = lock.withLock { () -> Bool in
                if needKeyframe && !unit.keyframe { _skipped += 1; return true }
                if unit.keyframe { needKeyframe = false }
                return false
            }
            if skip { continue }
            let t0 = MonotonicClock.nowNs()
            let pictures = ladder.decode(accessUnit: unit.bytes, pts: unit.ptsNs)
            let spent = MonotonicClock.nowNs() &- t0
            lock.withLock { _rung = ladder.activeRung; _decoded += pictures.count; _decodeNs &+= spent }
            for picture in pictures {
                if let evicted = output.push(picture) {
                    evicted.release()
                    lock.withLock { _outputDropped += 1 }
                }
                wake()
            }
        }
        for picture in ladder.flush() {
            if let evicted = output.push(picture) { evicted.release() }
            wake()
        }
    }
}
