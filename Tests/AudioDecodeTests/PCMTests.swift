import Audio
import PunktfunkWire
import Testing

/// 0xD3 PCM (data-plane.md §5.3): interleaved little-endian signed 16/24-bit at the session
/// rate, to Float in the same channel order, scaled by the host's symmetric full scale
/// (2^(bits−1) − 1, `pcm.rs`), no resampling.
@Suite struct PCMTests {
    static func le16(_ v: [Int16]) -> [UInt8] { v.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] } }
    static func le24(_ v: [Int32]) -> [UInt8] {
        v.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0 >> 16)] }
    }

    @Test func sixteenBitSamplesScaleBySymmetricFullScale() throws {
        let decoder = try AudioDecoder(format: .pcm(channels: 2, rateHz: 48_000, bits: 16))
        let codes: [Int16] = [0, 1, -1, 16_384, -16_384, 32_767, -32_767, -32_768]
        var out = [Float](repeating: .nan, count: decoder.maxSamplesPerPacket)
        #expect(try decoder.decode(Self.le16(codes), into: &out) == 4)
        #expect(Array(out[0..<8]) == codes.map { Float($0) * (1 / 32_767 as Float) })
        #expect(out[5] == 1 && out[6] == -1, "±32767 is exactly ±1")
        #expect(out[7] < -1 && out[7] > -1.0001, "the most negative code, which the host never sends")
        #expect(out[8].isNaN)
    }

    @Test func twentyFourBitSamplesSignExtend() throws {
        let decoder = try AudioDecoder(format: .pcm(channels: 2, rateHz: 96_000, bits: 24))
        let codes: [Int32] = [0, 1, -1, 4_194_304, -4_194_304, 8_388_607, -8_388_607, -8_388_608, 0x12_3456, -0x12_3456]
        var out = [Float](repeating: 0, count: decoder.maxSamplesPerPacket)
        #expect(try decoder.decode(Self.le24(codes), into: &out) == 5)
        #expect(Array(out[0..<10]) == codes.map { Float($0) * (1 / 8_388_607 as Float) })
        #expect(out[2] < 0 && out[4] < -0.49 && out[4] > -0.51, "negatives stay negative")
        #expect(out[5] == 1 && out[6] == -1)
    }

    /// What the host quantises from a float (`pcm.rs` `from_f32`: × full scale, round, clamp)
    /// decodes back to the same code: PCM round-trips bit-exactly through our Float.
    @Test(arguments: [16, 24])
    func hostQuantisedSamplesRoundTrip(_ bits: Int) throws {
        let decoder = try AudioDecoder(format: .pcm(channels: 2, rateHz: 48_000, bits: bits))
        let fullScale = Float((1 << (bits - 1)) - 1)
        var rng = SplitMix64(seed: UInt64(bits))
        let codes: [Int32] = (0..<1_000).map { _ in Int32.random(in: -Int32(fullScale)...Int32(fullScale), using: &rng) }
        let wire = bits == 16 ? Self.le16(codes.map { Int16($0) }) : Self.le24(codes)
        var out = [Float](repeating: 0, count: decoder.maxSamplesPerPacket)
        #expect(try decoder.decode(wire, into: &out) == 500)
        let back = out[0..<1_000].map { Int32(($0 * fullScale).rounded().clamped(-fullScale, fullScale)) }
        #expect(back == codes)
    }

    @Test func channelOrderIsKept() throws {
        let decoder = try AudioDecoder(format: .pcm(channels: 8, rateHz: 48_000, bits: 16))
        let frames = 3
        // Channel c of frame f is 1000c + f.
        let codes: [Int16] = (0..<frames * 8).map { (i: Int) -> Int16 in Int16(1_000 * (i % 8) + i / 8) }
        var out = [Float](repeating: 0, count: decoder.maxSamplesPerPacket)
        #expect(try decoder.decode(Self.le16(codes), into: &out) == frames)
        for f in 0..<frames {
            for c in 0..<8 {
                let code = Int((out[f * 8 + c] * 32_767).rounded())
                #expect(code == 1_000 * c + f)
            }
        }
    }

    @Test func theSessionRateIsKeptAndBoundsTheLongestPacket() throws {
        for rate in [44_100, 48_000, 88_200, 96_000, 176_400] {
            let decoder = try AudioDecoder(format: .pcm(channels: 2, rateHz: rate, bits: 16))
            #expect(decoder.sampleRate == rate)
            #expect(decoder.maxFramesPerPacket == rate * 120 / 1000)
            var out = [Float](repeating: 0, count: decoder.maxSamplesPerPacket + 2)
            let max = decoder.maxFramesPerPacket
            #expect(try decoder.decode([UInt8](repeating: 0, count: 4 * max), into: &out) == max)
            #expect(throws: AudioError.oversize(frames: max + 1, limit: max)) {
                try decoder.decode([UInt8](repeating: 0, count: 4 * (max + 1)), into: &out)
            }
        }
    }

    /// Odd byte counts and payloads of another channel count are skipped, counted, and the
    /// decoder carries on.
    @Test func raggedPayloadsAreMalformed() throws {
        let stereo16 = try AudioDecoder(format: .pcm(channels: 2, rateHz: 48_000, bits: 16))
        let surround24 = try AudioDecoder(format: .pcm(channels: 6, rateHz: 48_000, bits: 24))
        var out = [Float](repeating: 7, count: surround24.maxSamplesPerPacket)
        for bytes in [1, 2, 3, 5, 6, 481 * 2] {
            #expect(throws: AudioError.pcmLength(bytes: bytes, frameBytes: 4)) {
                try stereo16.decode([UInt8](repeating: 1, count: bytes), into: &out)
            }
        }
        // 8 channels × 24 bit × 5 frames is not a whole number of 6-channel frames.
        #expect(throws: AudioError.pcmLength(bytes: 120, frameBytes: 18)) {
            try surround24.decode([UInt8](repeating: 1, count: 8 * 3 * 5), into: &out)
        }
        #expect(out.allSatisfy { $0 == 7 }, "a skipped packet writes nothing")
        #expect(stereo16.counters.malformedPackets == 6 && surround24.counters.malformedPackets == 1)
        #expect(try stereo16.decode([UInt8](repeating: 0, count: 960), into: &out) == 240)
        #expect(try surround24.decode(.pcm(AudioFrame(seq: 0, ptsNs: 0, payload: [UInt8](repeating: 0, count: 18 * 240))), into: &out) == 240)
    }
}

extension Float {
    func clamped(_ low: Float, _ high: Float) -> Float { Swift.min(high, Swift.max(low, self)) }
}
