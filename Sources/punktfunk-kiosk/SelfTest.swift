import ArgumentParser
import Foundation
import PunktfunkSession
import PunktfunkWire

/// `punktfunk-kiosk selftest`: pushes a synthetic HEVC-sized AU stream through the real wire
/// core — packetizer → GF(2^16) FEC → AEAD seal → seeded random loss and reordering → open →
/// replay window → reassembler — and checks every delivered AU byte for byte.
struct SelfTest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selftest",
        abstract: "Run the punktfunk/2 media path end to end in memory and report what survived.")

    @Option(help: "Access units to send.") var frames = 600
    @Option(help: "Mean P-frame size in bytes (keyframes are 8× larger, every --gop frames).") var auBytes = 60_000
    @Option(help: "Keyframe interval in frames.") var gop = 120
    @Option(help: "Random packet loss, percent.") var loss = 3.0
    @Option(help: "FEC parity, percent (0…90).") var fec = 20
    @Option(help: "Shard payload P in bytes (1408 IPv4, 1388 IPv6).") var shard = 1408
    @Option(help: "AEAD suite: aes128gcm or chacha20poly1305.") var suite = "aes128gcm"
    @Option(help: "Seed for sizes, contents and loss.") var seed: UInt64 = 1
    @Flag(help: "Print one JSON object instead of text.") var json = false

    func validate() throws {
        guard (0...100).contains(loss) else { throw ValidationError("--loss must be 0…100") }
        guard (0...90).contains(fec) else { throw ValidationError("--fec must be 0…90") }
        guard shard >= 512, shard <= 9152, shard % 2 == 0 else { throw ValidationError("--shard must be even, 512…9152") }
        guard frames > 0, auBytes > 0, gop > 0 else { throw ValidationError("--frames, --au-bytes and --gop must be positive") }
        guard MediaSuite(name: suite) != nil else { throw ValidationError("--suite must be aes128gcm or chacha20poly1305") }
    }

    func run() throws {
        var rng = SplitMix64(seed: seed)
        var exporter = [UInt8](repeating: 0, count: 32)
        for i in exporter.indices { exporter[i] = UInt8(truncatingIfNeeded: rng.next()) }
        let mediaSuite = MediaSuite(name: suite)!
        let sender = MediaSender(exporter: exporter, suite: mediaSuite,
                                 packetizer: Packetizer(shardBytes: shard, maxDataPerBlock: 4096, fecPercent: fec),
                                 aead: GnuTLSMediaAEAD.factory)
        let receiver = MediaReceiver(exporter: exporter, suite: mediaSuite,
                                     limits: MediaLimits(shardBytes: shard), clockOriginNs: 0,
                                     aead: GnuTLSMediaAEAD.factory)

        var sent: [UInt32: [UInt8]] = [:]
        var corrupt = 0
        var deliveredBytes = 0
        receiver.video.onAccessUnit = { au in
            if sent.removeValue(forKey: au.frame) != Array(au.data) { corrupt += 1 }
            deliveredBytes += au.data.count
        }
        var packets = 0, dropped = 0, wireBytes = 0
        let lossThreshold = UInt64(loss / 100 * Double(UInt64.max))
        var receiveTime: Duration = .zero
        let clock = ContinuousClock()

        for frame in 0..<UInt32(frames) {
            let key = frame % UInt32(gop) == 0
            let size = key ? auBytes * 8 : Int(rng.next() % UInt64(auBytes)) + auBytes / 2
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
            packets += datagrams.count
            // Loss, then a little reordering: swap a few neighbours.
            var survivors = datagrams.filter { _ in
                let lost = rng.next() < lossThreshold
                if lost { dropped += 1 }
                return !lost
            }
            if survivors.count > 2 {
                for _ in 0..<survivors.count / 16 {
                    let i = Int(rng.next() % UInt64(survivors.count - 1))
                    survivors.swapAt(i, i + 1)
                }
            }
            let start = clock.now
            for d in survivors {
                wireBytes += d.count
                d.withUnsafeBytes { try? receiver.receive($0) }
            }
            receiveTime += clock.now - start
        }
        receiver.video.flush()

        let c = receiver.counters
        let seconds = Double(receiveTime.components.seconds) + Double(receiveTime.components.attoseconds) / 1e18
        let gbps = seconds > 0 ? Double(wireBytes) * 8 / seconds / 1e9 : 0
        let report: [(String, String)] = [
            ("frames_sent", "\(frames)"),
            ("frames_delivered", "\(c.framesDelivered)"),
            ("frames_lost", "\(c.framesLost)"),
            ("frames_corrupt", "\(corrupt)"),
            // Every packet of these was dropped, so the receiver never saw them (the session
            // detects such gaps from frame numbers).
            ("frames_unseen", "\(UInt64(frames) - c.framesDelivered - c.framesLost)"),
            ("packets_sent", "\(packets)"),
            ("packets_dropped", "\(dropped)"),
            ("shards_recovered", "\(c.shardsRecovered)"),
            ("blocks_recovered", "\(c.blocksRecovered)"),
            ("packets_refused", "\(c.packetsDropped)"),
            ("packets_redundant", "\(c.redundant)"),
            ("receive_gbps", String(format: "%.2f", gbps)),
            ("delivered_mb", String(format: "%.1f", Double(deliveredBytes) / 1e6)),
            ("fec_kernel", "\"\(LeopardFEC.kernel)\""),
        ]
        if json {
            print("{" + report.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}")
        } else {
            print("punktfunk/2 media self-test: \(frames) AUs, \(String(format: "%.1f", loss)) % loss, \(fec) % FEC, P = \(shard), \(suite)")
            for (k, v) in report { print("  \(k.replacingOccurrences(of: "_", with: " ")): \(v.replacingOccurrences(of: "\"", with: ""))") }
        }
        if corrupt > 0 || c.packetsDropped > 0 {
            throw ExitCode.failure
        }
    }
}

extension MediaSuite {
    init?(name: String) {
        switch name.lowercased() {
        case "aes128gcm", "aes", "aes-128-gcm": self = .aes128GCM
        case "chacha20poly1305", "chacha", "chacha20-poly1305": self = .chaCha20Poly1305
        default: return nil
        }
    }
}
