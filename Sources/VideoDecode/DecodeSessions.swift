import HEVC
import Synchronization
import VideoFrames

/// One decode session of a stateless rung (a VA context and its surface pool, a V4L2 pair of
/// queues and their buffers): what `DecodeSessions` needs to know of it.
protocol DecodeSession: AnyObject {
    /// Unique in the process (`DecoderGenerations`); leases name their session by it.
    var generation: Int { get }
    /// Leases handed out and not yet returned.
    var outstanding: Int { get set }
    /// Frees the session's resources. Called once, when it is retired and its last lease returned
    /// (or when the decoder goes away).
    func destroy()
}

/// The session bookkeeping of a stateless rung (VA-API, V4L2): the current session, the retired
/// ones kept alive until their last lease returns, and the leases returned from any thread.
///
/// Invariants: `current` is never in `retired`; a retired session is destroyed as soon as its
/// `outstanding` is 0 (`reapRetired`), so `retired` holds only sessions the display still uses.
/// Planner holds are the current session's only: a lease of a retired session returns to nobody
/// (its pool is not the planner's any more).
///
/// Not thread-safe (the decoder's thread), except the leases' return closures.
struct DecodeSessions<Session: DecodeSession> {
    /// The session pictures are decoded into; nil before the first SPS, and while a rebuild
    /// that failed left none.
    private(set) var current: Session?
    /// Sessions replaced while the display held some of their pictures.
    private(set) var retired: [Session] = []
    private let returns = ReturnedSurfaces()

    /// The session an output picture belongs to: the current one, or the one retired last (for
    /// pictures output right before a rebuild).
    var newest: Session? { current ?? retired.last }

    /// Retires the current session (destroyed now when nothing of it is leased) and makes `new`
    /// current. Pass nil to only retire (the new session is built after, and may fail).
    mutating func replace(with new: Session?) {
        if let old = current {
            retired.append(old)
            current = nil
            reapRetired()
        }
        current = new
    }

    /// Whether `generation` is the current session's.
    func isCurrent(_ generation: Int) -> Bool { current?.generation == generation }

    /// A lease over `fds` for `surface` of `session`: counts it outstanding until released
    /// (from any thread; `collectReturns` applies it).
    func lease(fds: [Int32], surface: SurfaceID, of session: Session) -> SurfaceLease {
        session.outstanding += 1
        let returns = self.returns
        let generation = session.generation
        return SurfaceLease(fds: fds) { returns.push(generation: generation, surface: surface) }
    }

    /// Applies the leases released since the last call: the planner's hold on a current-session
    /// surface goes back; retired sessions with nothing leased any more are destroyed.
    mutating func collectReturns(into planner: inout DecodePlanner) {
        for (gen, surface) in returns.drain() {
            if let s = current, s.generation == gen {
                s.outstanding -= 1
                planner.releaseSurface(surface)
            } else if let s = retired.first(where: { $0.generation == gen }) {
                s.outstanding -= 1
            }
        }
        reapRetired()
    }

    /// Destroys the retired sessions nothing is leased from.
    mutating func reapRetired() {
        retired.removeAll { s in
            guard s.outstanding == 0 else { return false }
            s.destroy()
            return true
        }
    }

    /// Drops the planner's DPB and makes it wait for the next IRAP picture. Afterwards the
    /// planner holds no surface except those the display still holds through leases: returned
    /// leases are applied first, and the pictures the reset output (held as output pictures,
    /// never handed out) are released.
    mutating func restart(_ planner: inout DecodePlanner) {
        collectReturns(into: &planner)
        let plan = planner.reset(reason: .loss)
        for p in plan.output { planner.releaseSurface(p.surface) }
    }

    /// Destroys every session (the decoder goes away; leases still out keep only their fds).
    mutating func destroyAll() {
        current?.destroy()
        for s in retired { s.destroy() }
        current = nil
        retired = []
    }
}

/// Leases released on any thread, drained by the decoder's thread.
final class ReturnedSurfaces: Sendable {
    private let pending = Mutex<[(generation: Int, surface: SurfaceID)]>([])
    func push(generation: Int, surface: SurfaceID) { pending.withLock { $0.append((generation, surface)) } }
    func drain() -> [(generation: Int, surface: SurfaceID)] { pending.withLock { p in defer { p = [] }; return p } }
}
