import ArgumentParser
import Foundation
import PunktfunkSession
import PunktfunkWire
import SystemClock

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
        var c = MediaSelfTest.Configuration()
        c.frames = frames; c.auBytes = auBytes; c.gop = gop; c.lossPercent = loss; c.fecPercent = fec; c.shardBytes = shard
        c.suite = MediaSuite(name: suite)!
        c.seed = seed
        let o = try MediaSelfTest.run(c, now: MonotonicClock.nowNs)
        let report: [(String, String)] = [
            ("frames_sent", "\(o.framesSent)"),
            ("frames_delivered", "\(o.counters.framesDelivered)"),
            ("frames_lost", "\(o.counters.framesLost)"),
            ("frames_corrupt", "\(o.framesCorrupt)"),
            ("frames_unseen", "\(o.framesUnseen)"),
            ("packets_sent", "\(o.packetsSent)"),
            ("packets_dropped", "\(o.packetsDropped)"),
            ("shards_recovered", "\(o.counters.shardsRecovered)"),
            ("blocks_recovered", "\(o.counters.blocksRecovered)"),
            ("packets_refused", "\(o.counters.packetsDropped)"),
            ("packets_redundant", "\(o.counters.redundant)"),
            ("receive_gbps", String(format: "%.2f", o.receiveGbps)),
            ("delivered_mb", String(format: "%.1f", Double(o.deliveredBytes) / 1e6)),
            ("fec_kernel", "\"\(LeopardFEC.kernel)\""),
        ]
        if json {
            print("{" + report.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}")
        } else {
            print("punktfunk/2 media self-test: \(frames) AUs, \(String(format: "%.1f", loss)) % loss, \(fec) % FEC, P = \(shard), \(suite)")
            for (k, v) in report { print("  \(k.replacingOccurrences(of: "_", with: " ")): \(v.replacingOccurrences(of: "\"", with: ""))") }
        }
        if !o.passed { throw ExitCode.failure }
    }
}
