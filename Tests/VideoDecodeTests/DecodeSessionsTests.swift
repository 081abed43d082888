import Foundation
import FFmpegOracle
import HEVC
import Testing
@testable import VideoDecode
import VideoFrames

/// `DecodeSessions`, the stateless rungs' session bookkeeping, with a fake session (no GPU) and a
/// real `DecodePlanner` fed a real stream.
@Suite("stateless rung session bookkeeping")
struct DecodeSessionsTests {
    final class FakeSession: DecodeSession {
        let generation: Int
        var outstanding = 0
        private(set) var destroyCount = 0
        init(_ generation: Int) { self.generation = generation }
        func destroy() { destroyCount += 1 }
    }

    /// A planner that holds output pictures, as the stateless rungs run it, and the lease of every
    /// picture it output from the first `count` access units of `fixture`.
    static func planned(_ count: Int, of fixture: String = "main-8bit", sessions: inout DecodeSessions<FakeSession>,
                        session: FakeSession) throws -> (planner: DecodePlanner, leases: [(surface: SurfaceID, lease: SurfaceLease)]) {
        let g = try DecodeFixture.all.first { $0.name == fixture }!.load()
        var parser = HEVCParser()
        var planner = DecodePlanner(headroom: 4, holdsOutputPictures: true)
        var leases: [(SurfaceID, SurfaceLease)] = []
        for au in AccessUnitSplitter.split(g.bytes).prefix(count) {
            let units = parser.parseAnnexB(au).compactMap { try? $0.get() }
            for p in planner.plan(units).output {
                leases.append((p.surface, sessions.lease(fds: [], surface: p.surface, of: session)))
            }
        }
        return (planner, leases)
    }

    static func held(_ planner: DecodePlanner) -> Set<SurfaceID> { Set(planner.pool?.held.keys.map { $0 } ?? []) }

    @Test(.enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason))
    func returnedLeasesGiveTheHoldsBack() throws {
        var sessions = DecodeSessions<FakeSession>()
        let a = FakeSession(1)
        sessions.replace(with: a)
        var (planner, leases) = try Self.planned(4, sessions: &sessions, session: a)
        #expect(leases.count == 4 && a.outstanding == 4)
        #expect(Self.held(planner) == Set(leases.map(\.surface)))
        leases[0].lease.release()
        leases[2].lease.release()
        leases[2].lease.release()  // a second release returns nothing
        #expect(Self.held(planner) == Set(leases.map(\.surface)))  // applied only when collected
        sessions.collectReturns(into: &planner)
        #expect(a.outstanding == 2)
        #expect(Self.held(planner) == [leases[1].surface, leases[3].surface])
        #expect(a.destroyCount == 0)
    }

    /// restart(): the planner keeps only the holds of pictures the display still leases —
    /// pictures the reset bumps out are released, so are leases returned before it.
    @Test(.enabled(if: FFmpeg.isAvailable, FFmpeg.skipReason))
    func restartKeepsOnlyLeasedHolds() throws {
        var sessions = DecodeSessions<FakeSession>()
        let a = FakeSession(1)
        sessions.replace(with: a)
        // 3 B pictures between P pictures: some decoded pictures wait for output at the reset.
        var (planner, leases) = try Self.planned(6, of: "b-frames-odd-size", sessions: &sessions, session: a)
        #expect(planner.dpb.numNeededForOutput > 0 && leases.count >= 2)
        leases[1].lease.release()  // not yet collected
        sessions.restart(&planner)
        #expect(planner.awaitingIRAP)
        #expect(planner.dpb.count == 0 && planner.pool?.inDPB.isEmpty == true)
        let stillLeased = Set(leases.filter(\.lease.isHeld).map(\.surface))
        #expect(Self.held(planner) == stillLeased)
        for l in leases { l.lease.release() }
        sessions.collectReturns(into: &planner)
        #expect(Self.held(planner).isEmpty)
        #expect(planner.pool?.freeCount == planner.pool?.capacity)
        #expect(a.outstanding == 0)
    }

    @Test func retiredSessionsLiveUntilTheirLastLease() {
        var sessions = DecodeSessions<FakeSession>()
        var planner = DecodePlanner(holdsOutputPictures: true)
        let a = FakeSession(1), b = FakeSession(2), c = FakeSession(3)
        sessions.replace(with: a)
        #expect(sessions.isCurrent(1) && sessions.newest === a)
        let first = sessions.lease(fds: [], surface: 0, of: a)
        let second = sessions.lease(fds: [], surface: 1, of: a)
        sessions.replace(with: nil)  // a rebuild that has not built yet
        #expect(sessions.current == nil && sessions.newest === a && !sessions.isCurrent(1))
        sessions.replace(with: b)
        #expect(sessions.retired.map(\.generation) == [1] && a.destroyCount == 0)
        first.release()
        sessions.collectReturns(into: &planner)
        #expect(a.outstanding == 1 && a.destroyCount == 0)
        second.release()
        sessions.collectReturns(into: &planner)
        #expect(sessions.retired.isEmpty && a.destroyCount == 1)
        // Nothing leased: retired and destroyed at once.
        sessions.replace(with: c)
        #expect(b.destroyCount == 1 && sessions.retired.isEmpty && sessions.current === c)
        // A lease of a session already gone is ignored.
        let late = sessions.lease(fds: [], surface: 2, of: c)
        sessions.destroyAll()
        late.release()
        sessions.collectReturns(into: &planner)
        #expect(c.destroyCount == 1 && sessions.current == nil)
    }
}
