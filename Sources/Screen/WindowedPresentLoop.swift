#if canImport(Glibc)
import Glibc
#endif
import SystemClock
import VideoFrames

/// The present loop of a screen that is a window (Wayland, X11): each picture is handed to the
/// window system when it arrives (a file's at its schedule), newest wins, nothing waits for the
/// server; glass times come from its own answers (`takeShown`), and a window that answers none
/// (hidden) keeps the stream running. The last picture's answer is waited for at most 500 ms.
///
/// The backend supplies the window system's side as closures, all called on the presenting thread:
/// - `pass`: handle what arrived without waiting and return the changes since the last call;
/// - `show`: present a picture now (`frameID`, `readyNs`); it releases the picture;
/// - `takeShown`: the pictures that reached glass since the last call, in order;
/// - `outstanding`: presents not answered yet;
/// - `wait`: wait up to `timeoutMs` for the connection or the descriptors `extra` (handling what
///   arrives) and return `extra`'s readiness.
public enum WindowedPresentLoop {
    public static func run(_ presentation: StreamPresentation, steps: () throws -> StreamStep,
                           pass: () -> [ScreenChange],
                           show: (DecodedPicture, _ frameID: UInt64, _ readyNs: UInt64) -> Void,
                           takeShown: () -> [PresentationLedger.Shown],
                           outstanding: () -> Int,
                           wait: (_ timeoutMs: Int32, _ extra: [Int32]) -> [Bool]) throws -> StreamOutcome {
        let intervalNs = UInt64(1_000_000_000 / (presentation.fps > 0 ? presentation.fps : 60))
        var start: UInt64?
        var produced: UInt64 = 0
        var pending: SourcedFrame?
        var sourceDone = false
        var drainSinceNs: UInt64?
        let wakes = presentation.wakeDescriptors
        var extra = wakes
        if let signals = presentation.signals { extra.append(signals.fd) }
        var counter: UInt64 = 0

        func deliver() {
            for s in takeShown() { presentation.onShown?(s.frameID, s.glassNs, s.readyNs) }
        }
        func follow(_ changes: [ScreenChange]) -> StreamOutcome? {
            for c in changes {
                presentation.onChange?(c)
                if case .lost(let sentence) = c { return .lost(sentence: sentence) }
            }
            return nil
        }

        while true {
            if let signals = presentation.signals {
                for s in signals.drain() where s == .interrupt || s == .terminate { return .interrupted(s) }
            }
            presentation.onPass?()
            if let outcome = follow(pass()) { return outcome }
            deliver()

            var produceAtNs: UInt64?
            if !sourceDone, pending == nil {
                switch try steps() {
                case .frame(let f): pending = f
                case .notYet: break
                case .end: sourceDone = true
                }
            }
            if let f = pending {
                let now = MonotonicClock.nowNs()
                let s = start ?? now
                start = s
                let due = presentation.followSchedule ? s &+ produced &* intervalNs : 0
                if now >= due {
                    show(f.frame, f.index, now)
                    produced += 1
                    pending = nil
                    continue
                }
                produceAtNs = due
            }
            if sourceDone, pending == nil {
                // The last picture: wait (briefly) for its answer, then end.
                let now = MonotonicClock.nowNs()
                let since = drainSinceNs ?? now
                drainSinceNs = since
                if outstanding() == 0 || now - since > 500_000_000 {
                    _ = pass()
                    deliver()
                    return .finished
                }
            }
            var timeoutMs: Int32
            if let at = produceAtNs {
                let now = MonotonicClock.nowNs()
                timeoutMs = at <= now ? 0 : Int32(min((at - now + 999_999) / 1_000_000, 100))
            } else if sourceDone {
                timeoutMs = 10
            } else {
                timeoutMs = wakes.isEmpty ? 2 : 100  // a live source without wake-ups is polled
            }
            let readable = wait(timeoutMs, extra)
            for (i, fd) in wakes.enumerated() where i < readable.count && readable[i] { _ = read(fd, &counter, 8) }
        }
    }
}
