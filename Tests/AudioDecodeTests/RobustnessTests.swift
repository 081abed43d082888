import Audio
import PunktfunkWire
import Testing

/// Hostile payloads never trap: each is decoded or skipped with a typed error and counted;
/// the counters add up; nothing is written past the frames reported; the next valid packet
/// decodes.
@Suite struct RobustnessTests {
    static let formats: [AudioStreamFormat] = [
        .opus(.stereo), .opus(.surround51Standard), .opus(.surround51Uncoupled), .opus(.surround71Legacy),
        .pcm(channels: 2, rateHz: 48_000, bits: 16), .pcm(channels: 6, rateHz: 96_000, bits: 24),
    ]

    @Test(arguments: formats)
    func randomTruncatedAndOversizePayloadsNeverTrap(_ format: AudioStreamFormat) throws {
        let decoder = try AudioDecoder(format: format)
        let channels = format.channels
        let valid: () throws -> [UInt8]
        switch format {
        case .opus(let layout):
            let encoder = try ToneEncoder(layout: layout)
            valid = { try encoder.nextPacket() }
        case .pcm(let c, _, let bits):
            valid = { [UInt8](repeating: 0x11, count: 240 * c * bits / 8) }
        }
        var rng = SplitMix64(seed: 0xA0D1_0000 + UInt64(channels))
        // Random bytes come from one pool (drawing 200 kB per input byte by byte is slow in
        // a debug build).
        let pool = (0..<262_144).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        func random(_ count: Int) -> [UInt8] {
            let start = Int.random(in: 0...(pool.count - count), using: &rng)
            return Array(pool[start..<start + count])
        }
        // The output buffer plus a NaN guard band that must never be written.
        var storage = [Float](repeating: .nan, count: decoder.maxSamplesPerPacket + 64)
        var calls: UInt64 = 0, frames: UInt64 = 0, errors: UInt64 = 0, valids: UInt64 = 0
        for round in 0..<1_500 {
            let base = try valid()
            var payload: [UInt8]
            switch round % 5 {
            case 0: payload = random(Int.random(in: 1...1_500, using: &rng))
            case 1: payload = Array(base.prefix(Int.random(in: 1...base.count, using: &rng)))
            case 2:
                payload = base
                for _ in 0...Int.random(in: 0...3, using: &rng) {
                    payload[Int.random(in: 0..<payload.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
            case 3: payload = random(Int.random(in: 60_000...200_000, using: &rng))
            default: payload = base + random(Int.random(in: 1...64, using: &rng))
            }
            let limit = decoder.maxSamplesPerPacket
            let result: Result<Int, AudioError> = payload.withUnsafeBytes { p in
                storage.withUnsafeMutableBufferPointer { o in
                    Result { () throws(AudioError) -> Int in
                        try decoder.decode(p, into: UnsafeMutableBufferPointer(rebasing: o[0..<limit]))
                    }
                }
            }
            calls += 1
            switch result {
            case .success(let n):
                #expect(n >= 0 && n <= decoder.maxFramesPerPacket)
                frames += UInt64(n)
            case .failure(let error):
                errors += 1
                switch error {
                case .invalidOpusPacket, .oversize, .pcmLength, .opus: break
                default: Issue.record("unexpected error \(error) for \(payload.count) bytes")
                }
            }
            #expect(storage[limit...].allSatisfy { $0.isNaN }, "wrote past the output buffer")
            // A valid packet still decodes after every hostile one.
            if round % 10 == 9 {
                var out = [Float](repeating: 0, count: limit)
                #expect(try decoder.decode(valid(), into: &out) == 240)
                valids += 1
                frames += 240
            }
        }
        let c = decoder.counters
        #expect(c.decodedPackets + c.malformedPackets + c.dtxPackets == calls + valids)
        #expect(c.malformedPackets == errors && c.dtxPackets == 0)
        #expect(c.decodedFrames == frames)
        // Every kind of hostile input was refused at least sometimes (random bytes are often
        // valid Opus: a code-0 TOC with any body decodes).
        #expect(errors > 50, "only \(errors) of \(calls) refused")
    }

    /// Hand-made bad framing (RFC 6716 §3), each refused with its own error.
    @Test func badOpusFramingIsRefusedWithItsReason() throws {
        let decoder = try AudioDecoder(format: .opus(.stereo))
        var out = [Float](repeating: 7, count: decoder.maxSamplesPerPacket)
        let cases: [([UInt8], AudioError)] = [
            ([0xFF, 0x00], .invalidOpusPacket(bytes: 2)),                         // code 3, zero frames
            ([0xFB], .invalidOpusPacket(bytes: 1)),                               // code 3 without its count byte
            ([0xFA, 200, 1, 2, 3], .invalidOpusPacket(bytes: 5)),                 // code 2, first frame longer than the packet
            ([0xF9, 1, 2, 3], .invalidOpusPacket(bytes: 4)),                      // code 1, odd length for two equal frames
            ([0x83, 49] + [UInt8](repeating: 0, count: 49), .oversize(frames: 49 * 120, limit: 5_760)),   // 122.5 ms
            ([0xBB, 7] + [UInt8](repeating: 0, count: 70), .oversize(frames: 7 * 960, limit: 5_760)),     // 7 × 20 ms
            ([0xFC] + [UInt8](repeating: 0, count: 1_276), .invalidOpusPacket(bytes: 1_277)),            // > 1275-byte frame
        ]
        for (packet, error) in cases {
            #expect(throws: error) { try decoder.decode(packet, into: &out) }
        }
        #expect(out.allSatisfy { $0 == 7 })
        #expect(decoder.counters.malformedPackets == UInt64(cases.count))
        // 120 ms exactly is legal: code 3 with 48 empty 2.5 ms CELT frames (which libopus
        // treats as lost) decodes to 5760 frames.
        #expect(try decoder.decode([0x83, 48], into: &out) == 5_760)
        #expect(try decoder.decode(ToneEncoder().nextPacket(), into: &out) == 240)
    }

    /// A stereo packet is not a 5.1 multistream packet (it does not split into four streams).
    @Test func aPacketForAnotherChannelCountIsMalformed() throws {
        let stereoPacket = try ToneEncoder().nextPacket()
        for layout in [OpusLayout.surround51Legacy, .surround71Standard, .surround71Uncoupled] {
            let decoder = try AudioDecoder(format: .opus(layout))
            var out = [Float](repeating: 0, count: decoder.maxSamplesPerPacket)
            #expect(throws: AudioError.invalidOpusPacket(bytes: stereoPacket.count)) { try decoder.decode(stereoPacket, into: &out) }
            #expect(try decoder.decode(ToneEncoder(layout: layout).nextPacket(), into: &out) == 240)
            #expect(decoder.counters.malformedPackets == 1 && decoder.counters.decodedPackets == 1)
        }
    }

    /// A legal packet longer than the caller's buffer is `.oversize` with the buffer as limit,
    /// and nothing is written.
    @Test func aPacketLongerThanTheBufferIsOversize() throws {
        let encoder = try ToneEncoder(layout: .stereo, frequencies: [440, 660], frameSamples: 960)
        let decoder = try AudioDecoder(format: .opus(.stereo))
        var small = [Float](repeating: 7, count: 2 * 480)
        #expect(throws: AudioError.oversize(frames: 960, limit: 480)) { try decoder.decode(encoder.nextPacket(), into: &small) }
        #expect(small.allSatisfy { $0 == 7 })
        var empty: [Float] = []
        #expect(throws: AudioError.oversize(frames: 960, limit: 0)) { try decoder.decode(encoder.nextPacket(), into: &empty) }
        var enough = [Float](repeating: 0, count: 2 * 960)
        #expect(try decoder.decode(encoder.nextPacket(), into: &enough) == 960)
    }
}
