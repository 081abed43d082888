import Foundation
internal import CPunktfunkLinux
import Glibc
import PunktfunkWire

/// Client datagrams (input, rich input, mic) and control messages that other threads hand to the
/// client pump: a locked queue plus an eventfd that wakes the pump's poll, so an input event leaves
/// on the next pump pass (µs), not at the next timer.
///
/// Invariants: `send`/`sendControl` are safe from any thread and never block on the network; at
/// most `capacity` items wait — beyond that `send` refuses (returns false) rather than growing
/// without bound while the path is stalled; the pump drains everything each pass.
public final class ClientOutbox: @unchecked Sendable {
    public static let capacity = 4096

    /// Readable while items wait. Owned by the outbox.
    public let wakeDescriptor: Int32
    private let lock = NSLock()
    private var datagrams: [[UInt8]] = []
    private var controls: [ControlFrame] = []
    private var inputs: [QueuedInput] = []
    private var keyframeWanted = false
    private var decoded = DecodedAcks()
    private var decodedNews = false
    private var quitWanted = false
    private var modeWanted: Mode?

    public init() {
        wakeDescriptor = pf_wake_fd()
        datagrams.reserveCapacity(64)
        inputs.reserveCapacity(Self.capacity)
    }

    /// One input item as the input thread hands it over: a value, encoded by the pump.
    public enum QueuedInput: Sendable {
        /// A 0xC8 event as a kind-0x02 datagram.
        case event(InputEvent)
        /// A key edge on the control stream (INPUT_EVENT 0x50).
        case edge(InputEvent)
        /// A 0xCC rich-input datagram.
        case rich(RichInput)
    }

    /// Queues one input item without allocating (the input thread's path; the pump encodes).
    /// False when `capacity` items already wait.
    @discardableResult
    public func sendInput(_ item: QueuedInput) -> Bool {
        enqueue { if inputs.count < Self.capacity { inputs.append(item); return true }; return false }
    }

    deinit { if wakeDescriptor >= 0 { Glibc.close(wakeDescriptor) } }

    /// Queues a datagram (e.g. `.input(.key(...))`). False when the queue is full.
    @discardableResult
    public func send(_ datagram: ClientDatagram) -> Bool {
        enqueue { if datagrams.count + controls.count < Self.capacity { datagrams.append(datagram.encoded); return true }; return false }
    }

    /// Queues a control-stream message (e.g. Reconfigure, SetBitrate, ProbeRequest, an InputEdge).
    @discardableResult
    public func sendControl(_ message: ControlMessage) -> Bool {
        enqueue { if datagrams.count + controls.count < Self.capacity { controls.append(message.frame); return true }; return false }
    }

    /// The decoder cannot continue (error, missing reference): the pump opens a keyframe ask for
    /// the newest frame on its next pass, unless one is already open (repeats are throttled there).
    public func requestKeyframe() {
        _ = enqueue { keyframeWanted = true; return true }
    }

    /// The decoder showed `frame` cleanly: the pump acknowledges it in its next Feedback datagram
    /// (tags 14/15). Called once per clean picture (decode thread).
    public func noteDecoded(frame: UInt32) {
        _ = enqueue { decoded.decoded(frame); decodedNews = true; return true }
    }

    /// The acknowledgements, when frames were noted since the last call (pump thread).
    func takeDecodedAcks() -> DecodedAcks? {
        lock.withLock {
            guard decodedNews else { return nil }
            decodedNews = false
            return decoded
        }
    }

    /// Asks the host for `mode` mid-stream (a Reconfigure, at most one per second; a newer wish
    /// replaces one not sent yet). The answer arrives through `ClientSession.onModeAnswer`.
    public func requestMode(_ mode: Mode) {
        _ = enqueue { modeWanted = mode; return true }
    }

    /// The mode wished since the last call (pump thread).
    func takeWantedMode() -> Mode? {
        lock.withLock {
            defer { modeWanted = nil }
            return modeWanted
        }
    }

    /// Ends the session early: the pump closes with the deliberate-quit code (0x51) on its next pass.
    public func requestQuit() {
        _ = enqueue { quitWanted = true; return true }
    }

    /// Moves queued input items out (pump thread), keeping both buffers' capacity.
    func drainInputs(into out: inout [QueuedInput]) {
        lock.withLock { swap(&inputs, &out) }
    }

    /// Whether `requestQuit()` was called (pump thread).
    var quitRequested: Bool { lock.withLock { quitWanted } }

    private func enqueue(_ body: () -> Bool) -> Bool {
        let queued = lock.withLock(body)
        if queued {
            var one: UInt64 = 1
            _ = write(wakeDescriptor, &one, 8)
        }
        return queued
    }

    /// Moves every queued item out (pump thread). Clears the wake signal first, so an item queued
    /// during the drain wakes the next poll.
    /// - Returns: whether a keyframe was requested since the last drain.
    func drain(datagrams outDatagrams: inout [[UInt8]], controls outControls: inout [ControlFrame]) -> Bool {
        var counter: UInt64 = 0
        _ = read(wakeDescriptor, &counter, 8)
        return lock.withLock {
            swap(&datagrams, &outDatagrams)
            swap(&controls, &outControls)
            defer { keyframeWanted = false }
            return keyframeWanted
        }
    }
}
