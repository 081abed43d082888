import Audio
import PunktfunkWire
import Testing

/// Loss and DTX: PLC fills exactly the frames asked for; an empty payload yields nothing and
/// leaves the decoder state as it was (data-plane.md §5.1).
@Suite struct ConcealmentTests {
    static let layouts: [OpusLayout] = [.stereo, .surround51Standard, .surround71Legacy]

    @Test(arguments: layouts)
    func plcYieldsExactlyTheRequestedFrames(_ layout: OpusLayout) throws {
        let decoder = try AudioDecoder(format: .opus(layout))
        let packets = try ToneEncoder(layout: layout).packets(10)
        var out = [Float](repeating: .nan, count: 4 * decoder.maxSamplesPerPacket)
        for p in packets { _ = try decoder.decode(p, into: &out) }
        var concealed = 0
        // One 5 ms packet, one 2.5 ms granule, 20 ms, and a 250 ms gap (over libopus' 120 ms
        // per call, so filled in pieces).
        for frames in [240, 120, 960, 12_000] {
            out = [Float](repeating: .nan, count: out.count)
            #expect(try decoder.conceal(frames: frames, into: &out) == frames)
            let written = frames * layout.channels
            #expect(!out[0..<written].contains { $0.isNaN }, "\(frames) frames: a sample was not written")
            #expect(out[written...].allSatisfy { $0.isNaN }, "\(frames) frames: wrote past the concealed duration")
            if concealed == 0 {
                // The first PLC frame continues the tone rather than dropping to silence.
                #expect(out[0..<written].contains { abs($0) > 0.01 }, "PLC after a tone is silent")
            }
            concealed += frames
        }
        #expect(decoder.counters.concealedFrames == UInt64(concealed))
        #expect(decoder.counters.decodedPackets == 10)
        // PLC before any packet works too (libopus conceals silence).
        let fresh = try AudioDecoder(format: .opus(layout))
        #expect(try fresh.conceal(frames: 240, into: &out) == 240)
    }

    @Test func aBadConcealDurationThrowsAndChangesNothing() throws {
        let decoder = try AudioDecoder(format: .opus(.stereo))
        var out = [Float](repeating: 7, count: decoder.maxSamplesPerPacket)
        for frames in [-240, 1, 100, 239, 241] {
            #expect(throws: AudioError.concealDuration(frames: frames)) { try decoder.conceal(frames: frames, into: &out) }
        }
        var small = [Float](repeating: 7, count: 2 * 239)
        #expect(throws: AudioError.oversize(frames: 240, limit: 239)) { try decoder.conceal(frames: 240, into: &small) }
        #expect(try decoder.conceal(frames: 0, into: &out) == 0)
        #expect(out.allSatisfy { $0 == 7 } && small.allSatisfy { $0 == 7 })
        #expect(decoder.counters == DecodeCounters())
    }

    /// Two decoders see the same packets; one also gets DTX (empty payloads) in between. DTX
    /// writes nothing, and every real packet decodes to the same samples in both — so no PLC ran.
    @Test(arguments: layouts)
    func dtxYieldsNothingAndLeavesTheStateAlone(_ layout: OpusLayout) throws {
        let packets = try ToneEncoder(layout: layout).packets(20)
        let plain = try AudioDecoder(format: .opus(layout)), withDTX = try AudioDecoder(format: .opus(layout))
        var a = [Float](repeating: 0, count: plain.maxSamplesPerPacket)
        var b = [Float](repeating: 0, count: plain.maxSamplesPerPacket)
        for (i, p) in packets.enumerated() {
            if i % 3 == 1 {
                b = [Float](repeating: 9, count: b.count)
                #expect(try withDTX.decode([], into: &b) == 0)
                #expect(try withDTX.decode(AudioPacket.opus(AudioFrame(seq: UInt32(i), ptsNs: 0, payload: [])), into: &b) == 0)
                #expect(b.allSatisfy { $0 == 9 }, "DTX wrote samples")
            }
            let n = try plain.decode(p, into: &a), m = try withDTX.decode(p, into: &b)
            #expect(n == 240 && m == 240)
            #expect(a[0..<n * layout.channels] == b[0..<m * layout.channels], "packet \(i) differs after DTX")
        }
        #expect(withDTX.counters.dtxPackets == 14 && withDTX.counters.concealedFrames == 0)
        #expect(withDTX.counters.decodedPackets == 20 && plain.counters.dtxPackets == 0)
    }

    /// Contrast: concealing instead of DTX does change what follows (the test above can fail).
    @Test func plcInPlaceOfDTXChangesTheNextPacket() throws {
        let packets = try ToneEncoder().packets(6)
        let plain = try AudioDecoder(format: .opus(.stereo)), concealing = try AudioDecoder(format: .opus(.stereo))
        var a = [Float](repeating: 0, count: 480), b = [Float](repeating: 0, count: 480)
        for p in packets.prefix(5) {
            _ = try plain.decode(p, into: &a)
            _ = try concealing.decode(p, into: &b)
        }
        _ = try concealing.conceal(frames: 240, into: &b)
        _ = try plain.decode(packets[5], into: &a)
        _ = try concealing.decode(packets[5], into: &b)
        #expect(a != b)
    }

    @Test func pcmConcealsWithSilenceOfAnyLength() throws {
        let decoder = try AudioDecoder(format: .pcm(channels: 6, rateHz: 44_100, bits: 16))
        var out = [Float](repeating: .nan, count: decoder.maxSamplesPerPacket)
        #expect(try decoder.conceal(frames: 220, into: &out) == 220)
        #expect(out[0..<220 * 6].allSatisfy { $0 == 0 } && out[(220 * 6)...].allSatisfy { $0.isNaN })
        #expect(try decoder.decode([], into: &out) == 0)
        #expect(decoder.counters.concealedFrames == 220 && decoder.counters.dtxPackets == 1)
    }
}
