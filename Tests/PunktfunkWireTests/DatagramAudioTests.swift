import Testing
@testable import PunktfunkWire

/// Audio datagrams, data-plane.md §5 and the §9.1 goldens from `quic/datagram.rs` @867f3f44.
@Suite struct DatagramAudioTests {
    let frame = AudioFrame(seq: 0x0102_0304, ptsNs: 0x1122_3344_5566_7788, payload: [0xAA, 0xBB])

    @Test func goldenOpusMicAndPCMShareTheHeader() throws {
        #expect(AudioPacket.opus(frame).encoded == hex("c9 04030201 8877665544332211 aabb"))
        #expect(AudioPacket.mic(frame).encoded == hex("cb 04030201 8877665544332211 aabb"))
        #expect(AudioPacket.pcm(frame).encoded == hex("d3 04030201 8877665544332211 aabb"))
        #expect(try AudioPacket(decoding: hex("c9 04030201 8877665544332211 aabb")) == .opus(frame))
        #expect(try AudioPacket(decoding: hex("d3 04030201 8877665544332211 aabb")) == .pcm(frame))
        #expect(try AudioPacket(decoding: hex("cb 04030201 8877665544332211 aabb")) == .mic(frame))
    }

    @Test func headerOnlyIsDTX() throws {
        let d = AudioPacket.opus(AudioFrame(seq: 0, ptsNs: 0, payload: [])).encoded
        #expect(d.count == AudioPacket.headerLength)
        #expect(try AudioPacket(decoding: d) == .opus(AudioFrame(seq: 0, ptsNs: 0, payload: [])))
    }

    @Test func shortHeadersThrow() {
        let d = AudioPacket.opus(frame).encoded
        for n in 0..<AudioPacket.headerLength {
            #expect(throws: WireError.self) { try AudioPacket(decoding: Array(d.prefix(n))) }
        }
        #expect(throws: WireError.self) { try AudioPacket(decoding: [UInt8](repeating: 0, count: 13)) }
    }

    @Test func redundantSplitsAtThePrimaryLength() throws {
        let red = RedundantAudioFrame(seq: 7, ptsNs: 1_000_000_123, primary: [UInt8](repeating: 1, count: 64),
                                      previous: [UInt8](repeating: 2, count: 64))
        let d = AudioPacket.redundant(red).encoded
        #expect(Array(d.prefix(15)) == hex("d2 07000000 7bca9a3b00000000 4000"))
        #expect(try AudioPacket(decoding: d) == .redundant(red))
        let first = RedundantAudioFrame(seq: 0, ptsNs: 5, primary: [9, 9], previous: [])
        let decoded = try AudioPacket(decoding: AudioPacket.redundant(first).encoded)
        #expect(decoded == .redundant(first))
        if case .redundant(let f) = decoded { #expect(!f.hasPrevious) }
    }

    @Test func redundantPrimaryLengthPastTheEndThrows() {
        var d = AudioPacket.redundant(RedundantAudioFrame(seq: 1, ptsNs: 2, primary: [0xAA], previous: [0xBB])).encoded
        d[13] = 0xFF
        d[14] = 0xFF
        #expect(throws: WireError.self) { try AudioPacket(decoding: d) }
        for n in 0..<15 {
            #expect(throws: WireError.self) { try AudioPacket(decoding: Array(d.prefix(n))) }
        }
    }

    @Test func padAudioLayout() throws {
        let pad = PadAudioFrame(pad: 3, kind: .haptics, seq: 42, ptsNs: 9_999, payload: [0x5A, 0x5B])
        let d = AudioPacket.pad(pad).encoded
        #expect(d == hex("d1 03 00 2a000000 0f27000000000000 5a5b"))
        #expect(try AudioPacket(decoding: d) == .pad(pad))
        let speaker = AudioPacket.pad(PadAudioFrame(pad: 0, kind: .speaker, seq: 0, ptsNs: 0, payload: []))
        #expect(speaker.encoded.count == 15)
        for n in 0..<15 {
            #expect(throws: WireError.self) { try AudioPacket(decoding: Array(d.prefix(n))) }
        }
    }

    @Test func accessorsAndUnknownTag() {
        var g = SplitMix64(seed: 5)
        for _ in 0..<200 {
            let p = g.audioPacket()
            #expect(p.encoded.first == p.tag)
            #expect(Array(p.encoded[p.tag == AudioPacket.padTag ? 3..<7 : 1..<5]) == withUnsafeBytes(of: p.seq.littleEndian, Array.init))
            #expect(Array(p.encoded[p.tag == AudioPacket.padTag ? 7..<15 : 5..<13]) == withUnsafeBytes(of: p.ptsNs.littleEndian, Array.init))
        }
        #expect(throws: WireError.self) { try AudioPacket(decoding: hex("ca 04030201 8877665544332211")) }
    }

    @Test func roundTripProperty() throws {
        var g = SplitMix64(seed: 0xA0D10)
        for _ in 0..<2_000 {
            let p = g.audioPacket()
            #expect(try AudioPacket(decoding: p.encoded) == p)
            decodeEveryPrefix(p.encoded) { b throws(WireError) in _ = try AudioPacket(decoding: b) }
        }
    }
}
