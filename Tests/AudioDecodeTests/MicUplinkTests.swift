import Testing
import Audio
import COpus
import Foundation

/// The mic thread end to end on ALSA's `null` capture device (alsa-lib's own, no hardware: it
/// hands out silence as fast as it is read): frames are read, encoded and handed to `send` with
/// rising seq, each a 10 ms Opus packet; stop ends the thread.
@Suite struct MicUplinkTests {
    @Test func framesFromTheDeviceLeaveAsTenMillisecondOpusPackets() throws {
        let uplink = MicUplink(device: "null")
        let got = Box()
        uplink.onLine = { got.line($0) }
        uplink.send = { seq, pts, bytes in got.packet(seq, pts, Array(bytes)) }
        uplink.start()
        Thread.sleep(forTimeInterval: 0.3)
        uplink.stop()
        let packets = got.packets
        #expect(packets.count >= 3, "\(packets.count) packets; \(got.lines)")
        #expect(packets.map(\.0) == Array(0..<UInt32(packets.count)))
        for p in packets.prefix(20) {
            #expect(p.2.withUnsafeBufferPointer { opus_packet_get_samples_per_frame($0.baseAddress!, 48_000) * opus_packet_get_nb_frames($0.baseAddress!, Int32($0.count)) } == 480)
        }
    }
}

private final class Box: @unchecked Sendable {
    private let lock = NSLock()
    private var _packets: [(UInt32, UInt64, [UInt8])] = []
    private var _lines: [String] = []
    func packet(_ s: UInt32, _ p: UInt64, _ b: [UInt8]) { lock.withLock { _packets.append((s, p, b)) } }
    func line(_ l: String) { lock.withLock { _lines.append(l) } }
    var packets: [(UInt32, UInt64, [UInt8])] { lock.withLock { _packets } }
    var lines: [String] { lock.withLock { _lines } }
}
