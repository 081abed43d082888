import PunktfunkSession
import PunktfunkWire
import SystemClock
import Testing

/// `selftest`'s in-memory media path: everything sent arrives byte for byte without loss; under
/// seeded loss FEC repairs what it can, nothing delivered differs, and every frame is accounted
/// for (delivered, lost, or never seen).
@Suite struct MediaSelfTestTests {
    @Test(arguments: [MediaSuite.aes128GCM, .chaCha20Poly1305])
    func aCleanPathDeliversEveryFrameByteForByte(suite: MediaSuite) throws {
        var c = MediaSelfTest.Configuration()
        c.frames = 60; c.auBytes = 20_000; c.gop = 30; c.lossPercent = 0; c.suite = suite
        let o = try MediaSelfTest.run(c, now: MonotonicClock.nowNs)
        #expect(o.passed)
        #expect(o.counters.framesDelivered == 60 && o.packetsDropped == 0 && o.framesCorrupt == 0)
    }

    @Test func underLossNothingDeliveredDiffersAndEveryFrameIsAccountedFor() throws {
        var c = MediaSelfTest.Configuration()
        c.frames = 120; c.auBytes = 20_000; c.gop = 60; c.lossPercent = 3; c.fecPercent = 20; c.seed = 7
        let o = try MediaSelfTest.run(c, now: MonotonicClock.nowNs)
        #expect(o.passed)
        #expect(o.packetsDropped > 0 && o.counters.shardsRecovered > 0)
        #expect(o.counters.framesDelivered + o.counters.framesLost + o.framesUnseen == 120)
        #expect(o.counters.framesDelivered >= 110, "20 % parity repairs most of 3 % random loss")
    }
}
