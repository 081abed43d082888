import PunktfunkWire

/// The punktfunk/2 media path end to end in memory (`punktfunk-kiosk selftest`): synthetic
/// HEVC-sized AUs through the real wire core — packetizer → GF(2^16) FEC → AEAD seal (GnuTLS) →
/// seeded random loss and a little reordering → open → replay window → reassembler — each
/// delivered AU compared byte for byte with what was sent.
public enum MediaSelfTest {
    public struct Configuration: Sendable {
        public var frames = 600
        /// Mean P-frame size, bytes; a keyframe (every `gop` frames) is 8× larger.
        public var auBytes = 60_000
        public var gop = 120
        /// Random datagram loss, percent (0…100).
        public var lossPercent = 3.0
        /// FEC parity, percent of the data shards (0…90).
        public var fecPercent = 20
        /// Shard payload P, bytes.
        public var shardBytes = 1408
        public var suite = MediaSuite.aes128GCM
        public var seed: UInt64 = 1

        public init() {}
    }

    public struct Outcome: Sendable {
        public var framesSent = 0
        public var counters = MediaCounters()
        /// Delivered AUs whose bytes differ from what was sent.
        public var framesCorrupt = 0
        public var packetsSent = 0
        public var packetsDropped = 0
        /// Wire bytes handed to the receiver, and the time its `receive` calls took, ns.
        public var wireBytes = 0
        public var receiveNs: UInt64 = 0
        public var deliveredBytes = 0

        /// Frames every packet of which was dropped: the receiver never saw them (a session
        /// detects such gaps from frame numbers).
        public var framesUnseen: UInt64 { UInt64(framesSent) - counters.framesDelivered - counters.framesLost }
        public var receiveGbps: Double { receiveNs > 0 ? Double(wireBytes) * 8 / Double(receiveNs) : 0 }
        /// Nothing delivered differs from what was sent and no authentic packet was refused
        /// (either would be a wire-core bug).
        public var passed: Bool { framesCorrupt == 0 && counters.packetsDropped == 0 }
    }

    /// - Parameter now: CLOCK_MONOTONIC ns (the receive time is measured with it).
    public static func run(_ c: Configuration, now: () -> UInt64) throws -> Outcome {
        var rng = SplitMix64(seed: c.seed)
        var exporter = [UInt8](repeating: 0, count: 32)
        for i in exporter.indices { exporter[i] = UInt8(truncatingIfNeeded: rng.next()) }
        let sender = MediaSender(exporter: exporter, suite: c.suite,
                                 packetizer: Packetizer(shardBytes: c.shardBytes, maxDataPerBlock: 4096, fecPercent: c.fecPercent),
                                 aead: GnuTLSMediaAEAD.factory)
        let receiver = MediaReceiver(exporter: exporter, suite: c.suite, limits: MediaLimits(shardBytes: c.shardBytes),
                                     clockOriginNs: 0, aead: GnuTLSMediaAEAD.factory)
        var o = Outcome()
        o.framesSent = c.frames
        var sent: [UInt32: [UInt8]] = [:]
        var corrupt = 0, delivered = 0
        receiver.video.onAccessUnit = { au in
            if sent.removeValue(forKey: au.frame) != Array(au.data) { corrupt += 1 }
            delivered += au.data.count
        }
        let lossThreshold = UInt64(c.lossPercent / 100 * Double(UInt64.max))
        for frame in 0..<UInt32(c.frames) {
            let key = frame % UInt32(c.gop) == 0
            let size = key ? c.auBytes * 8 : Int(rng.next() % UInt64(c.auBytes)) + c.auBytes / 2
            var au = [UInt8](repeating: 0, count: size)
            for i in stride(from: 0, to: size, by: 8) {
                var word = rng.next()
                for j in i..<min(i + 8, size) { au[j] = UInt8(truncatingIfNeeded: word); word >>= 8 }
            }
            sent[frame] = au
            var datagrams: [[UInt8]] = []
            try au.withUnsafeBytes { raw in
                try sender.send(raw, frame: frame, epoch: 0, userFlags: key ? 0x05 : 0x01,
                                ptsMicros: frame * 16_667) { datagrams.append(Array($0)) }
            }
            o.packetsSent += datagrams.count
            // Loss, then a little reordering: swap a few neighbours.
            var survivors = datagrams.filter { _ in
                let lost = rng.next() < lossThreshold
                if lost { o.packetsDropped += 1 }
                return !lost
            }
            if survivors.count > 2 {
                for _ in 0..<survivors.count / 16 {
                    let i = Int(rng.next() % UInt64(survivors.count - 1))
                    survivors.swapAt(i, i + 1)
                }
            }
            let start = now()
            for d in survivors {
                o.wireBytes += d.count
                d.withUnsafeBytes { try? receiver.receive($0) }
            }
            o.receiveNs += now() - start
        }
        receiver.video.flush()
        o.counters = receiver.counters
        o.framesCorrupt = corrupt
        o.deliveredBytes = delivered
        return o
    }
}

extension MediaSuite {
    /// `aes128gcm` (`aes`, `aes-128-gcm`) or `chacha20poly1305` (`chacha`, `chacha20-poly1305`).
    public init?(name: String) {
        switch name.lowercased() {
        case "aes128gcm", "aes", "aes-128-gcm": self = .aes128GCM
        case "chacha20poly1305", "chacha", "chacha20-poly1305": self = .chaCha20Poly1305
        default: return nil
        }
    }
}
