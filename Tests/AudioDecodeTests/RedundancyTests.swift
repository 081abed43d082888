import Audio
import PunktfunkWire
import Testing

/// RED (0xD2, data-plane.md §5.2): the datagram for `seq` carries a copy of `seq − 1`; decoding
/// that copy in place of the lost packet must equal decoding the lost packet itself.
@Suite struct RedundancyTests {
    @Test(arguments: [OpusLayout.stereo, .surround51Legacy, .surround71Uncoupled])
    func thePreviousCopyDecodesLikeThePacketItself(_ layout: OpusLayout) throws {
        let packets = try ToneEncoder(layout: layout).packets(12)
        let direct = try AudioDecoder(format: .opus(layout)), recovering = try AudioDecoder(format: .opus(layout))
        var a = [Float](repeating: 0, count: direct.maxSamplesPerPacket)
        var b = [Float](repeating: 0, count: direct.maxSamplesPerPacket)
        let lost = 7
        // What decoding packet `lost` in sequence gives, replayed on a decoder of its own.
        let replay = try AudioDecoder(format: .opus(layout))
        let lostSamples = try replay.decodeAll(Array(packets.prefix(lost + 1))).suffix(240 * layout.channels)
        // The datagrams as the host sends them, through the wire codec both ways.
        let datagrams = try packets.indices.map { i in
            let sent = AudioPacket.redundant(RedundantAudioFrame(seq: UInt32(i), ptsNs: UInt64(i) * 5_000_000,
                                                                 primary: packets[i], previous: i == 0 ? [] : packets[i - 1]))
            return try AudioPacket(decoding: sent.encoded)
        }
        for (i, datagram) in datagrams.enumerated() {
            let n = try direct.decode(packets[i], into: &a)
            #expect(n == 240)
            if i == lost { continue }   // datagram `lost` never arrives
            guard case .redundant(let frame) = datagram else { Issue.record("not RED"); return }
            if i == lost + 1 {
                let copy = try #require(try recovering.decodeRedundantCopy(of: frame, into: &b))
                #expect(copy == 240)
                #expect(b[0..<copy * layout.channels] == lostSamples, "the RED copy decodes differently")
            }
            let m = try recovering.decode(datagram, into: &b)
            #expect(b[0..<m * layout.channels] == a[0..<n * layout.channels], "packet \(i) differs after RED recovery")
        }
        #expect(recovering.counters.redundantPackets == 1)
        #expect(recovering.counters.decodedPackets == UInt64(packets.count))
        #expect(recovering.counters.concealedFrames == 0 && recovering.counters.malformedPackets == 0)
    }

    @Test func noPreviousCopyMeansConcealInstead() throws {
        let decoder = try AudioDecoder(format: .opus(.stereo))
        var out = [Float](repeating: 0, count: 480)
        let packet = try ToneEncoder().nextPacket()
        let first = RedundantAudioFrame(seq: 0, ptsNs: 0, primary: packet, previous: [])
        #expect(try decoder.decodeRedundantCopy(of: first, into: &out) == nil)
        #expect(decoder.counters == DecodeCounters())
        #expect(try decoder.decode(.redundant(first), into: &out) == 240)
        // An empty primary is DTX, as on 0xC9.
        #expect(try decoder.decode(.redundant(RedundantAudioFrame(seq: 1, ptsNs: 0, primary: [], previous: packet)), into: &out) == 0)
        #expect(decoder.counters.dtxPackets == 1 && decoder.counters.decodedPackets == 1)
    }

    @Test func datagramsOfTheOtherPlaneAreMalformedHere() throws {
        let opus = try AudioDecoder(format: .opus(.stereo))
        let pcm = try AudioDecoder(format: .pcm(channels: 2, rateHz: 48_000, bits: 16))
        var out = [Float](repeating: 0, count: opus.maxSamplesPerPacket)
        let frame = AudioFrame(seq: 1, ptsNs: 0, payload: [0, 0, 0, 0])
        let red = RedundantAudioFrame(seq: 1, ptsNs: 0, primary: [0xFC], previous: [0xFC])
        #expect(throws: AudioError.unexpectedPacket(tag: 0xD3)) { try opus.decode(.pcm(frame), into: &out) }
        #expect(throws: AudioError.unexpectedPacket(tag: 0xCB)) { try opus.decode(.mic(frame), into: &out) }
        #expect(throws: AudioError.unexpectedPacket(tag: 0xD1)) {
            try opus.decode(.pad(PadAudioFrame(pad: 0, kind: .haptics, seq: 1, ptsNs: 0, payload: [0xFC])), into: &out)
        }
        #expect(throws: AudioError.unexpectedPacket(tag: 0xC9)) { try pcm.decode(.opus(frame), into: &out) }
        #expect(throws: AudioError.unexpectedPacket(tag: 0xD2)) { try pcm.decode(.redundant(red), into: &out) }
        #expect(throws: AudioError.unexpectedPacket(tag: 0xD2)) { try pcm.decodeRedundantCopy(of: red, into: &out) }
        #expect(opus.counters.malformedPackets == 3 && pcm.counters.malformedPackets == 3)
        #expect(try pcm.decode(.pcm(frame), into: &out) == 1)
    }
}
