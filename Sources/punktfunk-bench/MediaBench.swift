import Foundation
import PunktfunkSession
import PunktfunkWire

/// The media receive path (open + replay + reassemble + FEC) on one core, against bare AEAD
/// open of the same datagrams measured in the same run.
///
/// Stream: AUs of 100 KB (shard 1408, K 4096, `fec` % parity), sealed once up front, then
/// received from memory. The baseline opens exactly the same datagrams with the same AEAD
/// implementation (`MediaCipher.open`, nothing else), so the ratio is the cost of everything the
/// receive path adds: plausibility, replay window, header, firewall, placement, FEC.
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

    func run(lossPercent: Double, fec: Int, suite: MediaSuite, aead: @escaping MediaAEADFactory) throws -> (receive: Result, aead: Result) {
        let (exporter, all, _) = try stream(fec: fec, suite: suite)
        var rng = SplitMix64(seed: 11)
        let threshold = UInt64(lossPercent / 100 * Double(UInt64.max))
        let kept = all.indices.filter { _ in rng.next() >= threshold }
        let datagrams = kept.map { all[$0] }
        let seqs = kept.map { UInt64($0) }
        let wire = datagrams.reduce(0) { $0 + $1.count }
        let plain = UnsafeMutableRawBufferPointer.allocate(byteCount: MediaLimits.maxDatagramBytes, alignment: 64)
        defer { plain.deallocate() }

        var aeadSeconds = 0.0
        aeadSeconds = best {
            let cipher = MediaCipher(exporter: exporter, direction: .hostToClient, suite: suite, aead: aead)
            for (seq, d) in zip(seqs, datagrams) {
                d.withUnsafeBytes { try? cipher.open(seq: seq, datagram: $0, into: plain) }
            }
        }
        var delivered = 0
        var recovered: UInt64 = 0
        let receiveSeconds = best {
            let receiver = MediaReceiver(exporter: exporter, suite: suite, limits: MediaLimits(), clockOriginNs: 0, aead: aead)
            var n = 0
            receiver.video.onAccessUnit = { _ in n += 1 }
            for d in datagrams {
                d.withUnsafeBytes { try? receiver.receive($0) }
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
        let impls: [(String, MediaAEADFactory)] = [("gnutls", GnuTLSMediaAEAD.factory), ("swift-crypto", SwiftCryptoMediaAEAD.factory)]
        for (name, factory) in impls {
            for suite in MediaSuite.allCases {
                for (loss, fec) in [(0.0, 10), (5.0, 20)] {
                    let (rx, aead) = try run(lossPercent: loss, fec: fec, suite: suite, aead: factory)
                    lines.append(String(format: "  %-12@ %-16@ loss %3.1f %% fec %2d %%: receive %6.2f Gbps | bare AEAD open %6.2f Gbps | ratio %.2f× | delivered %d/%d, shards rebuilt %llu",
                                        name, "\(suite)", loss, fec, rx.gbps, aead.gbps, rx.seconds / aead.seconds,
                                        rx.delivered, frames, rx.recovered))
                }
            }
        }
        return lines
    }
}
