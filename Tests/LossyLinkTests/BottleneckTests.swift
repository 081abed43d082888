#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import SystemClock
@testable import LossyLink

/// The bottleneck model against its formulas: serialization = bytes·8/capacity, drop-tail at
/// capacity·queue_ms, the schedule integrated piecewise, outages that hold then burst, delay
/// percentiles; then inside RelayCore (release times, the 100 ms queue log) and the real relay.
@Suite struct BottleneckTests {
    static let ms: UInt64 = 1_000_000
    static let t0: UInt64 = 5_000_000_000

    static func departs(_ v: Bottleneck.Verdict) -> UInt64? {
        if case .depart(let at) = v { return at } else { return nil }
    }

    @Test func scheduleAndOutageParsing() throws {
        let s = try #require(CapacitySchedule(parsing: "0:40000,40:10000,80:25000"))
        #expect(s.kbps(at: 0) == 40_000 && s.kbps(at: 39_999_999_999) == 40_000)
        #expect(s.kbps(at: 40_000_000_000) == 10_000 && s.kbps(at: 79 * 1_000_000_000) == 10_000)
        #expect(s.kbps(at: 500 * 1_000_000_000) == 25_000)
        #expect(s.nextChange(after: 0) == 40_000_000_000 && s.nextChange(after: 80_000_000_000) == nil)
        #expect(CapacitySchedule(parsing: "20000") == .constant(kbps: 20_000))
        #expect(CapacitySchedule(parsing: "5:100") == nil)          // must start at 0
        #expect(CapacitySchedule(parsing: "0:100,3:5,2:7") == nil)  // ascending
        #expect(CapacitySchedule(parsing: "0:x") == nil)
        let o = try #require(Outage(parsing: "150@30"))
        #expect(o.durationNs == 150 * Self.ms && o.periodNs == 30_000_000_000 && o.offsetNs == 30_000_000_000)
        #expect(o.end(containing: 29_999_999_999) == nil && o.end(containing: 30_000_000_000) == 30_150_000_000)
        #expect(o.end(containing: 60_149_999_999) == 60_150_000_000 && o.end(containing: 60_150_000_000) == nil)
        #expect(o.nextStart(after: 0) == 30_000_000_000 && o.nextStart(after: 30_000_000_000) == 60_000_000_000)
        #expect(Outage(parsing: "150@30+5")?.offsetNs == 5_000_000_000)
        #expect(Outage(parsing: "40000@30") == nil && Outage(parsing: "0@30") == nil && Outage(parsing: "150") == nil)
    }

    /// 10 Mbit/s = 10 bits/µs: 1250 bytes take exactly 1 ms; back-to-back packets leave 1 ms apart,
    /// a packet on an idle link leaves one serialization after it arrives.
    @Test func backToBackDepartures() {
        var b = Bottleneck(BottleneckConfig(schedule: .constant(kbps: 10_000), queueNs: 100 * Self.ms))
        let times = (0..<5).map { _ in Self.departs(b.offer(bytes: 1250, now: Self.t0)) }
        #expect(times == (1...5).map { Self.t0 + UInt64($0) * Self.ms })
        #expect(b.queueBytes == 5 * 1250 && b.queueDelayNs(at: Self.t0) == 5 * Self.ms)
        // 500 bytes = 0.4 ms, queued behind the others.
        #expect(Self.departs(b.offer(bytes: 500, now: Self.t0 + Self.ms / 2)) == Self.t0 + 5 * Self.ms + 400_000)
        // Idle again: serialization only.
        let later = Self.t0 + 50 * Self.ms
        #expect(Self.departs(b.offer(bytes: 125, now: later)) == later + 100_000)
        #expect(b.queueBytes == 125 && b.totals.departedPackets == 6 && b.totals.departedBytes == 6750)
    }

    /// limit = 10 Mbit/s × 10 ms = 12 500 bytes: ten 1250-byte packets fill it, the eleventh is
    /// dropped; once one has left there is room for one more. An idle link passes a packet bigger
    /// than the whole limit.
    @Test func dropTailAtTheLimit() {
        var b = Bottleneck(BottleneckConfig(schedule: .constant(kbps: 10_000), queueNs: 10 * Self.ms))
        #expect(b.limitBytes(at: Self.t0) == 12_500)
        for _ in 0..<10 { #expect(Self.departs(b.offer(bytes: 1250, now: Self.t0)) != nil) }
        #expect(b.offer(bytes: 1250, now: Self.t0) == .drop)
        #expect(b.offer(bytes: 1, now: Self.t0 + Self.ms - 1) == .drop)
        #expect(Self.departs(b.offer(bytes: 1250, now: Self.t0 + Self.ms)) == Self.t0 + 11 * Self.ms)
        #expect(b.offer(bytes: 1250, now: Self.t0 + Self.ms) == .drop)
        #expect(b.totals.drops == 3 && b.totals.dropBytes == 2501 && b.totals.acceptedPackets == 11)
        var idle = Bottleneck(BottleneckConfig(schedule: .constant(kbps: 1_000), queueNs: Self.ms))  // 125-byte limit
        #expect(Self.departs(idle.offer(bytes: 1250, now: Self.t0)) == Self.t0 + 10 * Self.ms)
        #expect(idle.offer(bytes: 10, now: Self.t0) == .drop)
        var dead = Bottleneck(BottleneckConfig(schedule: .constant(kbps: 0)))
        #expect(dead.offer(bytes: 10, now: Self.t0) == .drop)
    }

    /// The capacity is integrated across a step: 2000 bytes from t = 0 at 8 Mbit/s until 1 ms
    /// (8000 bits), the other 8000 bits at 16 Mbit/s (0.5 ms) → 1.5 ms. The limit follows the
    /// capacity in force at arrival. The origin is the start call, not the first offer.
    @Test func scheduleChangesMidPacket() throws {
        let schedule = try #require(CapacitySchedule(parsing: "0:8000,0.001:16000,0.010:0"))
        var b = Bottleneck(BottleneckConfig(schedule: schedule, queueNs: 10 * Self.ms))
        b.start(originNs: Self.t0)
        #expect(Self.departs(b.offer(bytes: 2000, now: Self.t0)) == Self.t0 + 1_500_000)
        #expect(Self.departs(b.offer(bytes: 1000, now: Self.t0 + 1_200_000)) == Self.t0 + 2_000_000)
        #expect(b.limitBytes(at: Self.t0) == 10_000 && b.limitBytes(at: Self.t0 + 2 * Self.ms) == 20_000)
        // Capacity 0 from 10 ms: a packet that cannot finish before it is dropped, not held for ever.
        #expect(b.offer(bytes: 20_000, now: Self.t0 + 9 * Self.ms) == .drop)
        #expect(b.offer(bytes: 10, now: Self.t0 + 11 * Self.ms) == .drop)
        // Origin at the first offer when nobody started it.
        var c = Bottleneck(BottleneckConfig(schedule: schedule))
        #expect(Self.departs(c.offer(bytes: 1000, now: Self.t0 + 7)) == Self.t0 + 7 + Self.ms)
        #expect(c.originNs == Self.t0 + 7)
    }

    /// 100 ms outage every second (first at 1 s), 10 Mbit/s, 100 ms queue (125 000 bytes):
    /// arrivals during it are held and leave back to back from its end; a packet being serialized
    /// when it starts finishes after it; beyond the queue limit arrivals are dropped.
    @Test func outageHoldsThenBursts() {
        let outage = Outage(durationNs: 100 * Self.ms, periodNs: 1_000 * Self.ms)
        var b = Bottleneck(BottleneckConfig(schedule: .constant(kbps: 10_000), queueNs: 100 * Self.ms, outages: [outage]))
        b.start(originNs: Self.t0)
        let second = Self.t0 + 1_000 * Self.ms
        // 1250 bytes from 0.5 ms before the outage: half before, half after it.
        #expect(Self.departs(b.offer(bytes: 1250, now: second - Self.ms / 2)) == second + 100 * Self.ms + Self.ms / 2)
        #expect(b.inOutage(at: second + 20 * Self.ms) && !b.inOutage(at: second + 100 * Self.ms))
        var held: [UInt64] = []
        for _ in 0..<99 { held.append(Self.departs(b.offer(bytes: 1250, now: second + 20 * Self.ms)) ?? 0) }
        #expect(held == (1...99).map { second + 100 * Self.ms + Self.ms / 2 + UInt64($0) * Self.ms })
        #expect(b.queueBytes == 125_000)
        #expect(b.offer(bytes: 1250, now: second + 30 * Self.ms) == .drop)
        #expect(b.queueDelayNs(at: second + 30 * Self.ms) == 70 * Self.ms + 100 * Self.ms - Self.ms / 2)
        let s = b.snapshot(at: second + 50 * Self.ms)
        #expect(s.inOutage && s.queueBytes == 125_000 && s.departedBytes == 0 && s.drops == 1)
        // The burst: everything has left 100 ms after the outage ended.
        let after = b.snapshot(at: second + 200 * Self.ms)
        #expect(after.queueBytes == 0 && after.departedBytes == 125_000)
    }

    /// Ten 1250-byte packets at once on 10 Mbit/s wait 1…10 ms: p50 = 5 ms, p95 = 10 ms (within one
    /// 50 µs histogram bin), max 10 ms.
    @Test func queueDelayFigures() {
        var b = Bottleneck(BottleneckConfig(schedule: .constant(kbps: 10_000), queueNs: 100 * Self.ms))
        for _ in 0..<10 { _ = b.offer(bytes: 1250, now: Self.t0) }
        let p50 = b.queueDelayPercentileNs(0.5), p95 = b.queueDelayPercentileNs(0.95)
        #expect(p50 >= 5 * Self.ms && p50 <= 5 * Self.ms + Bottleneck.histogramBinNs)
        #expect(p95 == 10 * Self.ms && b.totals.maxQueueDelayNs == 10 * Self.ms)
        b.advance(to: Self.t0 + 20 * Self.ms)
        #expect(b.summaryJSON.contains("\"delivered_packets\":10,\"delivered_bytes\":12500,\"drops\":0"))
        #expect(b.summaryJSON.contains("\"queue_delay_p95_ms\":10.0,"))
    }

    /// In the relay core: a datagram counts payload + 28 bytes; its release is the departure plus
    /// the one-way delay; QUIC goes through the bottleneck too; the 100 ms log sees the queue.
    @Test func relayCoreReleasesAfterTheQueueAndLogs() {
        let policy = RelayPolicy(bottleneck: BottleneckConfig(schedule: .constant(kbps: 10_000), queueNs: 100 * Self.ms),
                                 queueLogIntervalNs: 100 * Self.ms)
        var core = RelayCore(c2h: .none, h2c: ImpairmentConfig(delayNs: 20 * Self.ms), policy: policy, seed: 1)
        core.handle(LinkImpairmentTests.quic(), from: .c2h, now: Self.t0)  // origin; c2h has no bottleneck
        #expect(core.pollRelease(now: Self.t0)?.direction == .c2h)
        let payload = [UInt8](repeating: 0, count: 1222)  // + 28 = 1250 bytes = 1 ms
        var packet = LinkImpairmentTests.media(seq: 0)
        packet += payload[packet.count...]
        for _ in 0..<100 { core.handle(packet, from: .h2c, now: Self.t0) }
        core.handle(packet, from: .h2c, now: Self.t0)  // the 101st: queue full
        var quic = LinkImpairmentTests.quic()
        quic += payload[quic.count...]
        core.handle(quic, from: .h2c, now: Self.t0 + 50 * Self.ms)  // queued behind 50 ms of media
        #expect(core.h2c.droppedBottleneck == 1)
        #expect(core.pollRelease(now: Self.t0 + 21 * Self.ms - 1) == nil)
        #expect(core.pollRelease(now: Self.t0 + 21 * Self.ms) != nil)
        #expect(core.pollRelease(now: Self.t0 + 21 * Self.ms) == nil)
        var released = 1
        while core.pollRelease(now: Self.t0 + 121 * Self.ms - 1) != nil { released += 1 }
        #expect(released == 100)
        #expect(core.pollRelease(now: Self.t0 + 121 * Self.ms)?.bytes.first == 0xC0)
        let lines = core.takeQueueLog(upTo: Self.t0 + 200 * Self.ms)
        #expect(lines == [
            "{\"t_ms\":100,\"dir\":\"h2c\",\"capacity_kbps\":10000,\"outage\":false,\"queue_ms\":1.0,\"queue_bytes\":1250,\"sent_kbps\":10000.0,\"drops\":1,\"mono_ns\":\(Self.t0 + 100 * Self.ms)}",
            "{\"t_ms\":200,\"dir\":\"h2c\",\"capacity_kbps\":10000,\"outage\":false,\"queue_ms\":0.0,\"queue_bytes\":0,\"sent_kbps\":100.0,\"drops\":0,\"mono_ns\":\(Self.t0 + 200 * Self.ms)}",
        ])
        #expect(core.nextLogDeadline == Self.t0 + 300 * Self.ms)
        #expect(core.h2c.received == 102 && core.h2c.droppedBottleneck == 1 && core.inFlight(.h2c) == 0)
    }

    /// The relay over loopback: 40 datagrams of 972 bytes (1000 counted) host → client through
    /// 8 Mbit/s (1 ms each) arrive spread over ≈ 40 ms, not at once; the queue log is written.
    @Test func realRelayPacesAtTheCapacity() throws {
        let client = try LoopbackPeer(), host = try LoopbackPeer()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("pf-relay-queue-\(getpid()).jsonl")
        defer { try? FileManager.default.removeItem(at: log) }
        let policy = RelayPolicy(bottleneck: BottleneckConfig(schedule: .constant(kbps: 8_000), queueNs: 100 * Self.ms))
        let running = try RunningRelay(.init(listen: LoopbackAddress("127.0.0.1:0")!, upstream: host.address,
                                             policy: policy, seed: 1, queueLogPath: log.path))
        client.send(LinkImpairmentTests.quic(), to: running.relay.listenAddress)
        _ = try #require(host.receive(timeoutMs: 2000))
        var datagram = LinkImpairmentTests.media(seq: 1)
        datagram += [UInt8](repeating: 7, count: 972 - datagram.count)
        let sent = MonotonicClock.nowNs()
        for _ in 0..<40 { host.send(datagram, to: running.relay.upstreamLocalAddress) }
        var arrivals: [UInt64] = []
        while arrivals.count < 40, client.receive(timeoutMs: 1000) != nil { arrivals.append(MonotonicClock.nowNs() - sent) }
        usleep(250_000)
        let summary = running.finish()
        #expect(arrivals.count == 40)
        let spread = Double(arrivals.last! - arrivals.first!) / 1e6
        #expect(spread > 30 && spread < 80, "39 ms of serialization, got \(spread) ms")
        #expect(Double(arrivals.last!) / 1e6 >= 39.5)
        #expect(summary.h2c.droppedBottleneck == 0 && summary.h2c.forwarded == 40)
        #expect(summary.json.contains("\"bottleneck\":{\"accepted_packets\":40,\"accepted_bytes\":40000,\"delivered_packets\":40,"))
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count >= 2)
        #expect(lines.first?.hasPrefix("{\"t_ms\":100,\"dir\":\"h2c\",\"capacity_kbps\":8000,") == true)
    }
}

/// `--doze`: a receiver in power save misses the head of every burst after an idle stretch.
@Suite struct DozeTests {
    @Test func theFirstDatagramsAfterAnIdleStretchAreLostAndTheRestPass() {
        var policy = RelayPolicy(impairedDirections: [], startAfterNs: 0)
        policy.dozeAfterNs = 5_000_000
        policy.dozeLoss = 2
        var relay = RelayCore(c2h: ImpairmentConfig(), h2c: ImpairmentConfig(), policy: policy, seed: 1)
        relay.handle([0x40], from: .c2h, now: 0)   // the first client datagram starts the clock
        let media: [UInt8] = [0x00, 1, 2, 3]
        // Three bursts of five datagrams 16 ms apart, 100 µs between datagrams.
        for burst in 0..<3 {
            for k in 0..<5 { relay.handle(media, from: .h2c, now: UInt64(burst) * 16_000_000 + UInt64(k) * 100_000 + 1_000_000) }
        }
        // The first burst follows no media (nothing to doze after); each later one loses two.
        #expect(relay.counters(.h2c).droppedLoss == 4)
        // QUIC and the client's direction are never dozed.
        relay.handle([0x40, 1], from: .h2c, now: 100_000_000)
        relay.handle(media, from: .c2h, now: 200_000_000)
        #expect(relay.counters(.h2c).droppedLoss == 4 && relay.counters(.c2h).droppedLoss == 0)
    }
}
