import Testing
import PunktfunkWire
@testable import PunktfunkSession

/// The GnuTLS media AEAD must be byte-identical to swift-crypto and to the spec's vector
/// (crypto-vectors.txt, "P2 media packet").
@Suite struct GnuTLSMediaAEADTests {
    static func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex {
            let j = s.index(i, offsetBy: 2)
            out.append(UInt8(s[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    @Test func sealsTheGoldenV2Packet() throws {
        let exporter = [UInt8](repeating: 0x09, count: 32)
        let header = MediaHeader(stream: .video, seqLow: 0, epoch: 3, flags: 0x0005, frame: 9, ptsMicros: 42000,
                                 block: 0, base: 0, shard: 0, k: 4, m: 2, pad: 0)
        let packet = header.encoded + Self.hex("078a0d901396199c1fa225a82bae31b4")
        let cipher = MediaCipher(exporter: exporter, direction: .hostToClient, suite: .aes128GCM, aead: GnuTLSMediaAEAD.factory)
        let sealed = try cipher.seal(seq: 0, packet: packet)
        #expect(sealed == Self.hex("0000000000bb91866a296aabfdfd65f1cd2f4968e604126585b07c06a8aac845e8a8fec5e4f766dd6194464b3bdd87856e5b791d17ee7cc49835f5d65b71"))
        #expect(try cipher.open(seq: 0, datagram: sealed) == packet)
    }

    @Test(arguments: MediaSuite.allCases)
    func agreesWithSwiftCryptoAndRejectsForgeries(suite: MediaSuite) throws {
        var rng = SplitMix64(seed: 0xAEAD)
        let exporter = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let gnutls = MediaCipher(exporter: exporter, direction: .hostToClient, suite: suite, aead: GnuTLSMediaAEAD.factory)
        let portable = MediaCipher(exporter: exporter, direction: .hostToClient, suite: suite)
        for _ in 0..<200 {
            // Sequence numbers across a key rotation exercise both cached key slots.
            let seq = MediaKeySchedule.packetsPerKey - 100 + UInt64.random(in: 0..<200, using: &rng)
            let packet = (0..<Int.random(in: 5...1500, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let a = try gnutls.seal(seq: seq, packet: packet)
            #expect(a == (try portable.seal(seq: seq, packet: packet)))
            #expect(try portable.open(seq: seq, datagram: a) == packet)
            #expect(try gnutls.open(seq: seq, datagram: a) == packet)
            var forged = a
            forged[Int.random(in: 0..<forged.count, using: &rng)] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            #expect(throws: MediaError.authenticationFailed) { try gnutls.open(seq: seq, datagram: forged) }
        }
    }
}
