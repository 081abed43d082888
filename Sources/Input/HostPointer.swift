import CPunktfunkLinux
import Foundation
import Glibc
import PunktfunkWire
import SystemClock

/// The host's pointer as the box draws it (`CLIENT_CAP_CURSOR` with `HOST_CAP_CURSOR`,
/// data-plane.md §7.3), shared by the three threads that touch it: the pump (the host's 0xD0 —
/// where its pointer is, which shape, shown or not, captured or not — and CursorShape 0x30), the
/// input thread (a local mouse moving it at once: `LocalPointer`) and the presenting thread (it
/// draws `view`). Positions are pixels of the host's video mode, the space of 0xD0 and of
/// MouseMoveAbs's reference surface.
///
/// Desktop mode — the host forwards its pointer (a 0xD0 came) and has not captured it (no
/// relative-mode hint): a local mouse moves the drawn pointer before the host hears of it, and
/// the host gets MouseMoveAbs at the new place (the video mode as the reference size). The local
/// place wins for `localHoldNs` after the last local motion (the host's 0xD0 positions are a
/// round trip behind it); then the host's position is the truth again (an application may move
/// its pointer). Captured (the hint): the drawn pointer hides and mice send relative motion, as
/// without a drawn pointer.
///
/// Thread contract: every member on any thread (one lock); `wakeDescriptor` is an eventfd made
/// readable on every change of `view`, for the presenting thread's poll (it drains it).
public final class HostPointer: LocalPointer, @unchecked Sendable {
    /// What the presenting thread draws.
    public struct View: Equatable, Sendable {
        /// The CursorShape in force.
        public var serial: UInt32
        /// The hot spot's place, video-mode pixels.
        public var x: Int32, y: Int32
        /// The video mode the place is in.
        public var videoWidth: Int, videoHeight: Int

        public init(serial: UInt32, x: Int32, y: Int32, videoWidth: Int, videoHeight: Int) {
            self.serial = serial; self.x = x; self.y = y; self.videoWidth = videoWidth; self.videoHeight = videoHeight
        }
    }

    /// How long a local motion's place outranks the host's reports, ns.
    public static let localHoldNs: UInt64 = 300_000_000
    /// Shapes kept (the newest by arrival).
    public static let shapeLimit = 16

    /// Readable when `view` (or a shape) changed; -1 when no eventfd could be made.
    public let wakeDescriptor: Int32

    private let lock = NSLock()
    private var enabled = false
    private var videoWidth: Int32 = 0, videoHeight: Int32 = 0
    private var host: CursorState?
    private var local: (x: Int32, y: Int32, ns: UInt64)?
    private var shapes: [UInt32: CursorShape] = [:]
    private var shapeOrder: [UInt32] = []
    private var _generation: UInt64 = 0

    public init() { wakeDescriptor = pf_wake_fd() }

    deinit { if wakeDescriptor >= 0 { close(wakeDescriptor) } }

    /// A session is established: the box draws the pointer when `enabled` (it set
    /// CLIENT_CAP_CURSOR and the host's ServerHello has HOST_CAP_CURSOR), on a `width` × `height`
    /// video mode. The previous 0xD0 is forgotten; the shapes are kept (a resumed session's host
    /// sends a shape again only when it changes).
    public func begin(enabled: Bool, videoWidth width: Int, videoHeight height: Int) {
        changed {
            self.enabled = enabled
            videoWidth = Int32(clamping: max(0, width)); videoHeight = Int32(clamping: max(0, height))
            host = nil; local = nil
        }
    }

    /// The video mode changed (a new epoch): places are clamped into it from now on.
    public func setVideo(width: Int, height: Int) {
        changed { videoWidth = Int32(clamping: max(0, width)); videoHeight = Int32(clamping: max(0, height)) }
    }

    /// The stream ended: nothing is drawn, mice are relative, the shapes are forgotten.
    public func end() { changed { enabled = false; host = nil; local = nil; shapes.removeAll(); shapeOrder.removeAll() } }

    /// The host's 0xD0 (pump thread, once per captured frame).
    public func host(_ state: CursorState) {
        lock.lock()
        guard enabled, state != host else { lock.unlock(); return }
        host = state
        _generation &+= 1
        lock.unlock()
        wake()
    }

    /// A CursorShape (pump thread): kept by serial, the oldest of more than `shapeLimit` dropped.
    public func shape(_ shape: CursorShape) {
        changed {
            if shapes.updateValue(shape, forKey: shape.serial) == nil { shapeOrder.append(shape.serial) }
            while shapeOrder.count > Self.shapeLimit { shapes[shapeOrder.removeFirst()] = nil }
        }
    }

    /// The shape with `serial`, nil until it came.
    public func shape(serial: UInt32) -> CursorShape? { lock.withLock { shapes[serial] } }

    /// Counts every change of what is drawn (a cheap "anything new?" for the presenting thread).
    public var generation: UInt64 { lock.withLock { _generation } }

    /// The host forwards its pointer and has not captured it.
    public var isDesktop: Bool { lock.withLock { enabled && host.map { !$0.flags.contains(.relativeHint) } == true } }

    /// What to draw at `now` (CLOCK_MONOTONIC ns): nil when the box draws nothing (not enabled,
    /// no 0xD0 yet, the host hides its pointer or captured it).
    public func view(now: UInt64) -> View? {
        lock.withLock {
            guard enabled, let h = host, h.flags.contains(.visible), !h.flags.contains(.relativeHint) else { return nil }
            let p = place(now: now, host: h)
            return View(serial: h.serial, x: p.x, y: p.y, videoWidth: Int(videoWidth), videoHeight: Int(videoHeight))
        }
    }

    // MARK: - LocalPointer (input thread)

    public func move(dx: Int32, dy: Int32) -> (x: Int32, y: Int32, width: UInt16, height: UInt16)? {
        let now = MonotonicClock.nowNs()
        lock.lock()
        guard enabled, let h = host, !h.flags.contains(.relativeHint),
              let w = UInt16(exactly: videoWidth), let hh = UInt16(exactly: videoHeight), w > 0, hh > 0 else {
            lock.unlock()
            return nil
        }
        let from = place(now: now, host: h)
        let x = Int32(min(max(0, Int64(from.x) + Int64(dx)), Int64(videoWidth) - 1))
        let y = Int32(min(max(0, Int64(from.y) + Int64(dy)), Int64(videoHeight) - 1))
        local = (x, y, now)
        _generation &+= 1
        lock.unlock()
        wake()
        return (x, y, w, hh)
    }

    // MARK: - Inside the lock

    private func place(now: UInt64, host h: CursorState) -> (x: Int32, y: Int32) {
        if let l = local, now &- l.ns < Self.localHoldNs { return (l.x, l.y) }
        guard videoWidth > 0, videoHeight > 0 else { return (h.x, h.y) }
        return (min(max(0, h.x), videoWidth - 1), min(max(0, h.y), videoHeight - 1))
    }

    private func changed(_ body: () -> Void) {
        lock.withLock {
            body()
            _generation &+= 1
        }
        wake()
    }

    private func wake() {
        guard wakeDescriptor >= 0 else { return }
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }
}

/// A pointer the box moves itself (`HostPointer`): the mapper asks it first with a mouse's motion.
public protocol LocalPointer: AnyObject {
    /// Moves the pointer by (`dx`, `dy`) counts when it is in desktop mode. - Returns: its new
    /// place and the reference size (the host's video mode) for MouseMoveAbs, nil when the host
    /// should get the relative motion instead.
    func move(dx: Int32, dy: Int32) -> (x: Int32, y: Int32, width: UInt16, height: UInt16)?
}
