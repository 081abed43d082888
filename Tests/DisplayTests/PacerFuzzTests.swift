import Testing
@testable import Display
import PunktfunkWire

/// Random event sequences — frames in and out of order, duplicates, refused commits, flips with
/// advancing, repeated or reset sequences — must never break the pacer's contract.
@Suite struct PacerFuzzTests {
    @Test(arguments: 0..<6)
    func randomEventSequencesKeepTheContract(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed) &* 0x1234_5678_9ABC_DEF1)
        var pacer = FlipPacer(.init(streamIntervalNs: 16_666_667))
        let realVblank = seed % 2 == 0
        var now: UInt64 = 1_000_000_000
        var nextId: UInt64 = 1
        var sequence: UInt32 = 10
        var handedOut: PacedFrame?      // .commit answered, not yet confirmed or refused
        var inFlight: PacedFrame?       // confirmed, flip pending
        var onScreen: UInt64?
        var given = Set<UInt64>()
        var committed = Set<UInt64>()
        var released = Set<UInt64>()
        var problems: [String] = []
        var ids: [UInt64] = []

        for _ in 0..<4000 {
            now += rng.uniform(0...6_000_000)
            switch rng.next() % 10 {
            case 0...3:
                let id = rng.next() % 8 == 0 && nextId > 3 ? nextId - 1 - rng.next() % 3 : nextId
                if id == nextId { nextId += 1 }
                if !released.contains(id) {
                    given.insert(id)
                    pacer.frameReady(PacedFrame(id: id, readyNs: now))
                }
            case 4...6:
                if let f = inFlight {
                    sequence &+= realVblank ? UInt32(1 + rng.next() % 2) : 0
                    if rng.next() % 50 == 0 { sequence = UInt32(rng.next() % 1000) }  // counter reset
                    pacer.flipCompleted(timestampNs: now, sequence: sequence, nowNs: now)
                    onScreen = f.id
                    inFlight = nil
                }
            default:
                break
            }
            switch pacer.next(nowNs: now) {
            case .wait(let until):
                if let until, until <= now { problems.append("wait until \(until) ≤ now \(now)") }
            case .commit(let f):
                if handedOut != nil || inFlight != nil { problems.append("second commit \(f.id) in flight") }
                if committed.contains(f.id) { problems.append("frame \(f.id) committed twice") }
                if !given.contains(f.id) || released.contains(f.id) { problems.append("commit of foreign frame \(f.id)") }
                if rng.next() % 8 == 0 {
                    pacer.commitFailed(f, nowNs: now)
                } else {
                    pacer.committed(f, nowNs: now)
                    committed.insert(f.id)
                    inFlight = f
                }
                handedOut = nil
            }
            ids.removeAll(keepingCapacity: true)
            pacer.drainReleasable(into: &ids)
            for id in ids {
                if id == onScreen || id == inFlight?.id { problems.append("frame \(id) released while in use") }
                if !released.insert(id).inserted { problems.append("frame \(id) released twice") }
                if !given.contains(id) { problems.append("frame \(id) released but never given") }
            }
            if problems.count > 5 { break }
        }
        #expect(problems.isEmpty, "\(problems)")
        #expect(committed.count > 300)
        #expect(pacer.stats.committed == UInt64(committed.count))
        #expect(pacer.hasRealVblank == realVblank || pacer.stats.flips < 3)
    }
}
