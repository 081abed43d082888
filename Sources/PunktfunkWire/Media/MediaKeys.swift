import Crypto
import Foundation

/// The media AEAD suite (ServerHello tag 3, control-plane.md §3.3).
public enum MediaSuite: UInt8, Sendable, CaseIterable {
    case aes128GCM = 0
    case chaCha20Poly1305 = 1

    public var keyLength: Int { self == .aes128GCM ? 16 : 32 }
}

/// Which way a packet travels. Each direction has its own secret and packet numbers.
public enum MediaDirection: Sendable {
    case hostToClient
    case clientToHost

    var label: String { self == .hostToClient ? "pf2 media h2c" : "pf2 media c2h" }
}

/// punktfunk/2 media key schedule (data-plane.md §8.4).
///
/// `exporter` is the 32-byte TLS exporter output (label `EXPORTER-punktfunk/2 media`, context =
/// session id). Every derivation is one HKDF-Expand block with the input used directly as the PRK:
/// `Expand(PRK, info) = HMAC-SHA256(PRK, info ‖ 0x01)`, truncated.
public enum MediaKeySchedule {
    /// Packets sealed under one key: the key index is `seq >> 23`.
    public static let packetsPerKey: UInt64 = 1 << 23
    public static let keyIndexShift: UInt64 = 23

    static func expand(_ prk: [UInt8], _ info: [UInt8]) -> [UInt8] {
        var mac = HMAC<SHA256>(key: SymmetricKey(data: prk))
        mac.update(data: info)
        mac.update(data: [0x01])
        return Array(mac.finalize())
    }

    /// The direction secret: `Expand(exporter, "pf2 media h2c" | "pf2 media c2h")`.
    public static func directionSecret(exporter: [UInt8], direction: MediaDirection) -> [UInt8] {
        precondition(exporter.count == 32, "the exporter secret is 32 bytes")
        return expand(exporter, Array(direction.label.utf8))
    }

    /// Key and IV for key index `n`: `Expand(secret, "pf2 key" ‖ n_be64)` truncated to the
    /// suite's key length, `Expand(secret, "pf2 iv" ‖ n_be64)` truncated to 12 bytes.
    public static func keyAndIV(secret: [UInt8], index n: UInt64, suite: MediaSuite) -> (key: [UInt8], iv: [UInt8]) {
        var be = WireWriter(capacity: 8)
        be.writeBE(n)
        let key = expand(secret, Array("pf2 key".utf8) + be.bytes).prefix(suite.keyLength)
        let iv = expand(secret, Array("pf2 iv".utf8) + be.bytes).prefix(12)
        return (Array(key), Array(iv))
    }

    /// `iv XOR (0x00000000 ‖ seq as u64 BE)` — the QUIC-style nonce.
    public static func nonce(iv: [UInt8], seq: UInt64) -> [UInt8] {
        var n = [UInt8](repeating: 0, count: 12)
        n.withUnsafeMutableBytes { writeNonce(iv: iv, seq: seq, into: $0) }
        return n
    }

    /// `nonce(iv:seq:)` into 12 caller-owned bytes (the per-packet path allocates nothing).
    public static func writeNonce(iv: [UInt8], seq: UInt64, into out: UnsafeMutableRawBufferPointer) {
        precondition(iv.count == 12 && out.count >= 12)
        for i in 0..<12 { out[i] = iv[i] }
        for i in 0..<8 { out[4 + i] ^= UInt8(truncatingIfNeeded: seq >> (8 * (7 - i))) }
    }
}
