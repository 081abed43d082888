import Testing
import Audio
import COpus
import Foundation

/// The mic uplink's packets as the host decodes them (libopus, mono 48 kHz): 10 ms each, the
/// tone's pitch, and in-band FEC that recovers a lost packet from its successor.
@Suite struct MicEncoderTests {
    static func tone(_ frame: Int, hz: Double = 440) -> [Int16] {
        (0..<MicEncoder.frameSamples).map { i in
            Int16((12_000 * sin(2 * Double.pi * hz * Double(frame * MicEncoder.frameSamples + i) / 48_000)).rounded())
        }
    }

    @Test func packetsAreTenMillisecondsOfTheToneWithInbandFEC() throws {
        let encoder = try MicEncoder()
        var packets: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: MicEncoder.maxPacketBytes)
        for f in 0..<50 {
            let pcm = Self.tone(f)
            let n = try pcm.withUnsafeBufferPointer { p in try buffer.withUnsafeMutableBytes { try encoder.encode(p, into: $0) } }
            packets.append(Array(buffer.prefix(n)))
        }
        // 48 kbit/s × 10 ms = 60 bytes on average; every packet one 10 ms frame.
        let mean = packets.map(\.count).reduce(0, +) / packets.count
        #expect((30...120).contains(mean), "mean packet \(mean) bytes")
        for p in packets {
            #expect(p.withUnsafeBufferPointer { opus_packet_get_samples_per_frame($0.baseAddress!, 48_000) * opus_packet_get_nb_frames($0.baseAddress!, Int32($0.count)) } == 480)
        }
        var error: Int32 = 0
        let decoder = try #require(opus_decoder_create(48_000, 1, &error))
        defer { opus_decoder_destroy(decoder) }
        var pcm = [Int16](repeating: 0, count: 480)
        var left: [Int16] = []
        var fecEnergy = 0.0
        for (i, p) in packets.enumerated() {
            if i == 30 {
                // Packet 30 lost: its successor's FEC copy (decode_fec = 1) stands in for it.
                let next = packets[31]
                let n = next.withUnsafeBufferPointer { opus_decode(decoder, $0.baseAddress, Int32($0.count), &pcm, 480, 1) }
                #expect(n == 480)
                fecEnergy = pcm.map { Double($0) * Double($0) }.reduce(0, +) / 480
                left += pcm
                continue
            }
            let n = p.withUnsafeBufferPointer { opus_decode(decoder, $0.baseAddress, Int32($0.count), &pcm, 480, 0) }
            #expect(n == 480)
            left += pcm
        }
        // The FEC copy is the tone at roughly its level (12 000 peak ⇒ mean square 7.2e7), not PLC silence.
        #expect(fecEnergy > 1e7, "FEC frame mean square \(fecEnergy)")
        let settled = Array(left.dropFirst(4_800))
        var crossings = 0
        for i in 1..<settled.count where (settled[i - 1] < 0) != (settled[i] < 0) { crossings += 1 }
        let hz = Double(crossings) / 2 / (Double(settled.count) / 48_000)
        #expect(abs(hz - 440) < 10, "tone measured at \(hz) Hz")
    }
}
