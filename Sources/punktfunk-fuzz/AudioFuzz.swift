import Audio
import PunktfunkWire

/// Audio datagrams through an `AudioDecoder`. Input = `format u8 ‖ records`; a record is
/// `length u16 LE ‖ bytes`: the bytes are one host audio datagram (0xC9 / 0xD2 / 0xD3 / …) put
/// through `AudioPacket` and the decoder, or, when bit 15 of `length` is set, no bytes follow
/// and the record conceals `(length & 0x3F) × 120` frames. A 0xD2 datagram with an odd `seq`
/// first has its previous copy decoded, as a jitter buffer recovering a loss would.
///
/// Format byte: bits 0–1 codec (0, 1 Opus; 2 PCM 16-bit; 3 PCM 24-bit), bits 2–3 channels
/// (2, 6, 8, 5 — the last normalises to 2), bits 4–5 `audio_layout` id (3 is unknown and
/// refused), bits 6–7 PCM rate (44.1, 48, 96, 176.4 kHz). A new decoder per input.
///
/// Invariants: no trap; every decode lands in exactly one counter; decoded frames add up and
/// never exceed 120 ms; PCM output stays within full scale; a valid concealment writes exactly
/// the frames asked for.
enum AudioFuzz {
    /// Room for the largest packet of any format: 120 ms at 176.4 kHz × 8 channels.
    nonisolated(unsafe) static var output = [Float](repeating: 0, count: 176_400 * 120 / 1000 * 8)

    static func run(_ bytes: [UInt8]) {
        guard let f = bytes.first else { return }
        let codec: AudioCodec = f & 3 < 2 ? .opus : .pcm
        let channels: UInt8 = [2, 6, 8, 5][Int(f >> 2 & 3)]
        let rate: UInt32 = [44_100, 48_000, 96_000, 176_400][Int(f >> 6)]
        guard let format = try? AudioStreamFormat(codec: codec, channels: channels, layout: AudioLayout(rawValue: f >> 4 & 3),
                                                  rateHz: rate, bits: f & 3 == 3 ? 24 : 16),
              let decoder = try? AudioDecoder(format: format) else { return }
        var calls: UInt64 = 0, frames: UInt64 = 0, concealed: UInt64 = 0
        func decoded(_ n: Int?) {
            guard let n else { return }
            precondition(n >= 0 && n <= decoder.maxFramesPerPacket, "\(n) frames from one packet")
            frames += UInt64(n)
            if case .pcm = format {
                precondition(output[0..<n * decoder.channels].allSatisfy { abs($0) <= 1.0001 }, "PCM beyond full scale")
            }
        }
        var i = 1
        while i + 2 <= bytes.count {
            let length = Int(bytes[i]) | Int(bytes[i + 1]) << 8
            i += 2
            if length & 0x8000 != 0 {
                let n = (length & 0x3F) * AudioDecoder.opusConcealGranule
                let done = try? decoder.conceal(frames: n, into: &output)
                precondition(done == n, "conceal \(n) frames gave \(String(describing: done))")
                concealed += UInt64(n)
                continue
            }
            let datagram = Array(bytes[i..<min(i + length, bytes.count)])
            i += datagram.count
            guard let packet = try? AudioPacket(decoding: datagram) else { continue }
            if case .redundant(let red) = packet, red.seq & 1 == 1 {
                let before = decoder.counters
                if let copy = try? decoder.decodeRedundantCopy(of: red, into: &output) {
                    calls += 1
                    decoded(copy)
                } else if red.hasPrevious || codec == .pcm {
                    calls += 1   // refused: counted as malformed
                } else {
                    precondition(decoder.counters == before, "an absent RED copy changed the counters")
                }
            }
            calls += 1
            decoded(try? decoder.decode(packet, into: &output))
        }
        let c = decoder.counters
        precondition(c.decodedPackets + c.dtxPackets + c.malformedPackets == calls, "counters \(c) for \(calls) calls")
        precondition(c.decodedFrames == frames && c.concealedFrames == concealed, "frame counters \(c)")
    }
}
