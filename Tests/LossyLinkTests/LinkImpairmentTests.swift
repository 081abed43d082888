import Testing
@testable import LossyLink

/// One direction's decisions (delay, jitter, hold-back, duplicates) and the relay core's
/// classification, gating, queue bound and counts, all on made-up clocks.
@Suite struct LinkImpairmentTests {
    static let ms: UInt64 = 1_000_000

    @Test func delayAndJitterStayInBounds() {
        var link = LinkImpairment(ImpairmentConfig(delayNs: 10 * Self.ms, jitterNs: 5 * Self.ms), seed: 9)
        var lowest = UInt64.max, highest = UInt64(0), total = 0.0
        let n = 100_000
        for i in 0..<n {
            let now = UInt64(i) * 100_000
            guard case .deliver(let at, let copy, let heldBack) = link.decide(now: now, impair: true) else {
                Issue.record("dropped without a loss model"); return
            }
            #expect(!copy && !heldBack)
            let wait = at - now
            lowest = min(lowest, wait); highest = max(highest, wait); total += Double(wait)
        }
        #expect(lowest >= 10 * Self.ms && lowest < 10 * Self.ms + 100_000)
        #expect(highest <= 15 * Self.ms && highest > 15 * Self.ms - 100_000)
        #expect(abs(total / Double(n) / 1e6 - 12.5) < 0.1)
    }

    @Test func reordersAndDuplicatesAtTheAskedRates() {
        let config = ImpairmentConfig(delayNs: 2 * Self.ms, reorderProbability: 0.1, reorderDelayNs: 20 * Self.ms,
                                      duplicateProbability: 0.05)
        var link = LinkImpairment(config, seed: 21)
        var held = 0, copies = 0
        let n = 100_000
        for i in 0..<n {
            let now = UInt64(i) * Self.ms
            guard case .deliver(let at, let copy, let heldBack) = link.decide(now: now, impair: true) else {
                Issue.record("dropped without a loss model"); return
            }
            #expect(at == now + 2 * Self.ms + (heldBack ? 20 * Self.ms : 0))
            if heldBack { held += 1 }
            if copy { copies += 1 }
        }
        #expect(abs(Double(held) / Double(n) / 0.1 - 1) < 0.05, "\(held) held back")
        #expect(abs(Double(copies) / Double(n) / 0.05 - 1) < 0.06, "\(copies) copies")
    }

    @Test func notImpairedMeansDelayOnly() {
        let config = ImpairmentConfig(loss: .init(p: 1, r: 0, lossGood: 1, lossBad: 1), delayNs: Self.ms,
                                      reorderProbability: 1, reorderDelayNs: Self.ms, duplicateProbability: 1)
        var link = LinkImpairment(config, seed: 1)
        for i in 0..<1000 {
            let now = UInt64(i) * Self.ms
            #expect(link.decide(now: now, impair: false) == .deliver(atNs: now + Self.ms, copy: false, heldBack: false))
        }
        #expect(link.decide(now: 0, impair: true) == .drop)
    }

    @Test func jitterReordersThroughTheCore() {
        var core = RelayCore(c2h: ImpairmentConfig(delayNs: Self.ms, jitterNs: 5 * Self.ms), h2c: .none,
                             policy: RelayPolicy(), seed: 4)
        var order: [UInt32] = []
        for i in 0..<2000 {
            let now = UInt64(i) * Self.ms
            core.handle(Self.media(seq: UInt32(i)), from: .c2h, now: now)
            while let out = core.pollRelease(now: now) { order.append(RelayCore.seqLow(out.bytes)!); core.noteSent(.c2h, ok: true) }
        }
        while let out = core.pollRelease(now: .max) { order.append(RelayCore.seqLow(out.bytes)!); core.noteSent(.c2h, ok: true) }
        #expect(order.count == 2000 && Set(order).count == 2000)
        let inversions = zip(order, order.dropFirst()).count { $0 > $1 }
        #expect(inversions > 100, "\(inversions) adjacent inversions")
    }

    /// A media datagram: first byte 0 (& 0xC0 == 0), then the 32-bit packet number little-endian.
    static func media(seq: UInt32, size: Int = 40) -> [UInt8] {
        var bytes = [UInt8](repeating: 0xAB, count: size)
        bytes[0] = 0x00
        for k in 0..<4 { bytes[1 + k] = UInt8(truncatingIfNeeded: seq >> (8 * UInt32(k))) }
        return bytes
    }

    static func quic(size: Int = 40) -> [UInt8] {
        var bytes = [UInt8](repeating: 0x11, count: size)
        bytes[0] = 0xC0
        return bytes
    }

    @Test func mediaOnlyStartAfterAndDropRecords() {
        let drop = ImpairmentConfig(loss: .init(p: 1, r: 0, lossGood: 1, lossBad: 1))
        var core = RelayCore(c2h: drop, h2c: drop,
                             policy: RelayPolicy(impairedDirections: [.h2c], mediaOnly: true, startAfterNs: 100 * Self.ms,
                                                 recordDrops: true),
                             seed: 1)
        core.handle(Self.media(seq: 1), from: .h2c, now: 10 * Self.ms)  // before any client datagram: not started
        core.handle(Self.quic(), from: .c2h, now: 20 * Self.ms)  // anchor: impair from 120 ms
        core.handle(Self.media(seq: 2), from: .h2c, now: 119 * Self.ms)
        core.handle(Self.media(seq: 3), from: .h2c, now: 120 * Self.ms)
        core.handle(Self.quic(), from: .h2c, now: 121 * Self.ms)
        core.handle(Self.media(seq: 4), from: .c2h, now: 122 * Self.ms)  // c2h not impaired
        core.handle(Self.media(seq: 0xDEAD_BEEF), from: .h2c, now: 123 * Self.ms)
        #expect(core.h2c.received == 5 && core.h2c.media == 4 && core.h2c.quic == 1 && core.h2c.droppedLoss == 2)
        #expect(core.c2h.received == 2 && core.c2h.droppedLoss == 0)
        #expect(core.takeDrops() == [DropRecord(direction: .h2c, seqLow: 3, monoNs: 120 * Self.ms),
                                     DropRecord(direction: .h2c, seqLow: 0xDEAD_BEEF, monoNs: 123 * Self.ms)])
        #expect(core.takeDrops().isEmpty)
        #expect(DropRecord(direction: .h2c, seqLow: 3, monoNs: 7).json == "{\"dir\":\"h2c\",\"seq_low\":3,\"mono_ns\":7}")
    }

    @Test func fullQueueDropsAndCountsAddUp() {
        var core = RelayCore(c2h: ImpairmentConfig(delayNs: 1_000 * Self.ms, duplicateProbability: 0.5), h2c: .none,
                             policy: RelayPolicy(queueLimit: 10, recordDrops: true), seed: 2)
        for i in 0..<20 { core.handle(Self.media(seq: UInt32(i)), from: .c2h, now: UInt64(i)) }
        let c = core.c2h
        #expect(core.inFlight(.c2h) == 10)
        #expect(c.received + c.duplicated == c.droppedQueue + core.inFlight(.c2h))
        #expect(core.takeDrops().count == c.droppedQueue)
        #expect(core.pollRelease(now: 999 * Self.ms) == nil)
        var released = 0
        while let out = core.pollRelease(now: 1_000 * Self.ms + 20) { core.noteSent(out.direction, ok: true); released += 1 }
        #expect(released == 10 && core.c2h.forwarded == 10 && core.inFlight(.c2h) == 0)
    }

    @Test func loopbackAddressesOnly() {
        #expect(LoopbackAddress("127.0.0.1:9777")?.description == "127.0.0.1:9777")
        #expect(LoopbackAddress("127.1.2.3:0")?.port == 0)
        #expect(LoopbackAddress("10.0.0.1:9777") == nil)
        #expect(LoopbackAddress("127.0.0.1") == nil)
        #expect(LoopbackAddress("127.0.0.256:1") == nil)
    }
}
