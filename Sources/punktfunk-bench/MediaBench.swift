import Foundation
import PunktfunkWire

/// The media receive path (open + replay + reassemble + FEC) on one core, against bare AEAD
/// open of the same datagrams measured in the same run.
///
/// Stream: AUs of ~100 KB (shard 1408, K 4096, `fec` % parity), sealed once up front. Every
/// pass copies each datagram into a scratch buffer first (opening is in place), in both the
/// baseline and the measured path, so the ratio compares like with like.
struct MediaBench {
    let frames: Int
    let auBytes: Int
    let passes: Int

    struct Result {
        var gbps: Double
        var seconds: Double
        var delivered: Int
        var recovered: UInt64
    }

    func stream(fec: Int, suite: MediaSuite) throws -> (exporter: [UInt8], datagrams: [[UInt8]], wireBytes: Int) {
        var rng = SplitMix64(seed: 7)
        let exporter = (0..<32).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let sender = MediaSender(exporter: exporter, suite: suite,
                                 packetizer: Packetizer(shardBytes: 1408, maxDataPerBlock: 4096, fecPercent: fec))
        var datagrams: [[UInt8]] = []
        var au = [UInt8](repeating: 0, count: auBytes)
        for frame in 0..<UInt32(frames) {
            for i in au.indices { au[i] = UInt8(truncatingIfNeeded: rng.next()) }
            try au.withUnsafeBytes { raw in
                try sender.send(raw, frame: frame, epoch: 0, userFlags: 1, ptsMicros: frame * 8333) { datagrams.append(Array($0)) }
            }
        }
        return (exporter, datagrams, datagrams.reduce(0) { $0 + $1.count })
    }

    /// Seconds for the fastest of `passes` runs of `body` (each on fresh state).
    func best(_ body: () throws -> Void) rethrows -> Double {
        var best = Double.infinity
        let clock = ContinuousClock()
        for _ in 0..<passes {
            let start = clock.now
            try body()
            let d = clock.now - start
            best = min(best, Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
        }
        return best
    }

    func run(lossPercent: Double, fec: Int, suite: MediaSuite) throws -> (receive: Result, aead: Result) {
        let (exporter, all, _) = try stream(fec: fec, suite: suite)
        var rng = SplitMix64(seed: 11)
        let threshold = UInt64(lossPercent / 100 * Double(UInt64.max))
        let datagrams = all.filter { _ in rng.next() >= threshold }
        let wire = datagrams.reduce(0) { $0 + $1.count }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: MediaLimits.maxDatagramBytes, alignment: 64)
        defer { scratch.deallocate() }

        var aeadSeconds = 0.0
        aeadSeconds = best {
            let cipher = MediaCipher(exporter: exporter, direction: .hostToClient, suite: suite)
            var seq: UInt64 = 0
            for d in datagrams {
                d.withUnsafeBytes { scratch.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: d.count) }
                let low: UInt32 = UInt32(d[1]) | UInt32(d[2]) << 8 | UInt32(d[3]) << 16 | UInt32(d[4]) << 24
                seq = ReplayWindow.expand(reference: seq, low: low)
                try? cipher.open(seq: seq, datagram: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<d.count]))
            }
        }
        var delivered = 0
        var recovered: UInt64 = 0
        let receiveSeconds = best {
            let receiver = MediaReceiver(exporter: exporter, suite: suite, limits: MediaLimits(), clockOriginNs: 0)
            var n = 0
            receiver.video.onAccessUnit = { _ in n += 1 }
            for d in datagrams {
                d.withUnsafeBytes { scratch.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: d.count) }
                try? receiver.receive(UnsafeMutableRawBufferPointer(rebasing: scratch[0..<d.count]))
            }
            delivered = n
            recovered = receiver.counters.shardsRecovered
        }
        let bits = Double(wire) * 8
        return (Result(gbps: bits / receiveSeconds / 1e9, seconds: receiveSeconds, delivered: delivered, recovered: recovered),
                Result(gbps: bits / aeadSeconds / 1e9, seconds: aeadSeconds, delivered: 0, recovered: 0))
    }

    func report() throws -> [String] {
        var lines: [String] = []
        lines.append("media receive path, one core: \(frames) AUs × \(auBytes) B, P 1408, best of \(passes)")
        for suite in MediaSuite.allCases {
            for (loss, fec) in [(0.0, 10), (5.0, 20)] {
                let (rx, aead) = try run(lossPercent: loss, fec: fec, suite: suite)
                lines.append(String(format: "  %@ loss %4.1f %% fec %2d %%: receive %6.2f Gbps | bare AEAD open %6.2f Gbps | ratio %.2f× | delivered %d/%d, shards rebuilt %llu",
                                    "\(suite)", loss, fec, rx.gbps, aead.gbps, rx.seconds / aead.seconds,
                                    rx.delivered, frames, rx.recovered))
            }
        }
        return lines
    }
}
