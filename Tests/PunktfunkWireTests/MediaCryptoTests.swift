import Crypto
import Foundation
import Testing
@testable import PunktfunkWire

/// Vectors from `shared/protocol/vectors/crypto-vectors.txt` (copied to Tests/Fixtures/),
/// also printed in data-plane.md §9.2.
@Suite struct MediaCryptoTests {
    /// The hex value after `label=` on the fixture line that starts with `prefix`.
    static func value(_ prefix: String, _ label: String) throws -> [UInt8] {
        let text = try Fixtures.text("crypto-vectors.txt")
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(prefix) }, "no line \(prefix)")
        let r = try #require(line.range(of: label + "="), "no \(label)= in \(prefix)")
        return hex(String(line[r.upperBound...].prefix { $0.isHexDigit }))
    }

    @Test func exporterToDirectionSecrets() throws {
        let exporter = [UInt8](repeating: 0x09, count: 32)
        #expect(try Self.value("P2 exporter", "exporter(32)") == exporter)
        #expect(MediaKeySchedule.directionSecret(exporter: exporter, direction: .hostToClient)
                == (try Self.value("  secret h2c", "h2c")))
        #expect(MediaKeySchedule.directionSecret(exporter: exporter, direction: .clientToHost)
                == (try Self.value("  secret c2h", "c2h")))
    }

    @Test(arguments: [UInt64(0), 1])
    func perIndexKeysAndIVs(index: UInt64) throws {
        try checkKeys(direction: .hostToClient, label: "h2c", index: index)
        try checkKeys(direction: .clientToHost, label: "c2h", index: index)
    }

    func checkKeys(direction: MediaDirection, label: String, index: UInt64) throws {
        let secret = MediaKeySchedule.directionSecret(exporter: [UInt8](repeating: 9, count: 32), direction: direction)
        let line = "  \(label) index \(index):"
        let aes = MediaKeySchedule.keyAndIV(secret: secret, index: index, suite: .aes128GCM)
        #expect(aes.key == (try Self.value(line, "aes128 key")))
        #expect(aes.iv == (try Self.value(line, "iv")))
        if direction == .hostToClient {
            let chacha = MediaKeySchedule.keyAndIV(secret: secret, index: index, suite: .chaCha20Poly1305)
            #expect(chacha.key == (try Self.value(line, "chacha key")))
            #expect(chacha.iv == aes.iv)
        }
    }

    @Test func v2MediaPacketSealsToGoldenBytes() throws {
        let golden = try Self.value("  wire=tag", "tag16")
        let exporter = [UInt8](repeating: 0x09, count: 32)
        let header = MediaHeader(stream: .video, seqLow: 0, epoch: 3, flags: 0x0005, frame: 9, ptsMicros: 42000,
                                 block: 0, base: 0, shard: 0, k: 4, m: 2, pad: 0)
        #expect(header.encoded == hex("00000000000305000900000010a400000000000000000000040002000000"))
        let shard = hex("078a0d901396199c1fa225a82bae31b4")
        let cipher = MediaCipher(exporter: exporter, direction: .hostToClient, suite: .aes128GCM)
        let packet = try cipher.seal(seq: 0, packet: header.encoded + shard)
        #expect(packet.count == 62)
        #expect(packet == golden)

        // And the receiver's cipher opens it back to the plaintext.
        let opener = MediaCipher(exporter: exporter, direction: .hostToClient, suite: .aes128GCM)
        #expect(try opener.open(seq: 0, datagram: packet) == header.encoded + shard)
    }

    @Test func nonceIsIVXorBigEndianSequence() {
        let iv = hex("92c13c354e1834812e912c65")
        #expect(MediaKeySchedule.nonce(iv: iv, seq: 0) == iv)
        let n = MediaKeySchedule.nonce(iv: iv, seq: 0x0102_0304_0506_0708)
        #expect(hexString(n) == "92c13c354f1a37852b972b6d")
    }

    @Test func forgedTagAndWrongDirectionFailAuthentication() throws {
        let exporter = [UInt8](repeating: 0x42, count: 32)
        let sealer = MediaCipher(exporter: exporter, direction: .hostToClient, suite: .chaCha20Poly1305)
        let packet = try sealer.seal(seq: 5, packet: MediaHeader(frame: 1, k: 1, m: 0).encoded + [UInt8](repeating: 7, count: 64))
        #expect(packet.count == 110)
        for flip in [0, 3, 10, 100, 109] {
            var forged = packet
            forged[flip] ^= 0x01
            let opener = MediaCipher(exporter: exporter, direction: .hostToClient, suite: .chaCha20Poly1305)
            #expect(throws: MediaError.authenticationFailed) { try opener.open(seq: 5, datagram: forged) }
        }
        let wrongDirection = MediaCipher(exporter: exporter, direction: .clientToHost, suite: .chaCha20Poly1305)
        #expect(throws: MediaError.authenticationFailed) { try wrongDirection.open(seq: 5, datagram: packet) }
        let opener = MediaCipher(exporter: exporter, direction: .hostToClient, suite: .chaCha20Poly1305)
        #expect(throws: MediaError.authenticationFailed) { try opener.open(seq: 6, datagram: packet) }
    }

    /// punktfunk/1 AEAD vectors: the nonce rule plus a standard AEAD reproduce the sealed bytes.
    @Test func legacyNoncesAndSealedPackets() throws {
        let salt = hex("03010401")
        let plain = hex("393000000000000000000000000000006400000005000000000002000400020000001000c9010105078a0d901396199c1fa225a82bae31b4")
        let key = SymmetricKey(data: [UInt8](repeating: 0x07, count: 16))
        for (client, wire) in [(false, "000000000000000035046630c6f14927345b5fe8863b407677abd5187d0621e671b90b7463d27b5ea426b59b1c8ed128c6526f6319af4c9a16fb26bdaa81ce8bf93fe854527b35fc229f0a1208eb1399"),
                               (true, "00000000000000009cd93f5e095c17af495b7fa6964a60ccb6d0c6ae8b81f57dddc70448a9bda1a91554b1165eb3e46e2f6cd8bdd5689fd54ced852aad534e08dfaa9bb30d1112f18617d88aab30a6ff")] {
            let nonce = LegacyMediaNonce.nonce(salt: salt, sealedByClient: client, seq: 0)
            #expect(hexString(nonce) == (client ? "830104010000000000000000" : "030104010000000000000000"))
            let aad = [UInt8](repeating: 0, count: 8)
            let box = try AES.GCM.seal(plain, using: key, nonce: AES.GCM.Nonce(data: nonce), authenticating: aad)
            #expect(hexString(aad + box.ciphertext + box.tag) == wire)
        }
        let chachaNonce = LegacyMediaNonce.nonce(salt: hex("93374299"), sealedByClient: false, seq: 4242)
        #expect(hexString(chachaNonce) == "133742990000000000001092")
        let box = try ChaChaPoly.seal(hex("000102030405060708090a0b0c0d0e0f10"),
                                      using: SymmetricKey(data: [UInt8](repeating: 0x5a, count: 32)),
                                      nonce: ChaChaPoly.Nonce(data: chachaNonce),
                                      authenticating: hex("0000000000001092"))
        #expect(hexString(hex("0000000000001092") + box.ciphertext + box.tag)
                == "00000000000010921fbf3ecfba435e035be22b6a5f828ef9f65e3ce817cf1dbe252c8ca0bfb3e7e4b2")
    }
}
