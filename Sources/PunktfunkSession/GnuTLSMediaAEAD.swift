internal import CGnuTLS
import PunktfunkWire

/// The media AEAD on GnuTLS (AES-NI + PCLMUL on x86-64): no allocation per packet and one key
/// schedule per key index, where swift-crypto's `Data` API pays both on every packet. The session
/// hands `GnuTLSMediaAEAD.factory` to `MediaReceiver`/`MediaSender`; the vector tests check it
/// against swift-crypto byte for byte.
public final class GnuTLSMediaAEAD: MediaAEAD {
    /// Falls back to swift-crypto if GnuTLS refuses the key (it never does for valid lengths).
    public static let factory: MediaAEADFactory = { suite, key in
        GnuTLSMediaAEAD(suite: suite, key: key) ?? SwiftCryptoMediaAEAD(suite: suite, key: key)
    }

    /// Owned GnuTLS cipher handle; freed in deinit.
    private let handle: gnutls_aead_cipher_hd_t

    public init?(suite: MediaSuite, key: [UInt8]) {
        precondition(key.count == suite.keyLength, "wrong key length for \(suite)")
        let algorithm = suite == .aes128GCM ? GNUTLS_CIPHER_AES_128_GCM : GNUTLS_CIPHER_CHACHA20_POLY1305
        var h: gnutls_aead_cipher_hd_t?
        let rc = key.withUnsafeBytes { raw -> CInt in
            var datum = gnutls_datum_t(data: UnsafeMutablePointer(mutating: raw.bindMemory(to: UInt8.self).baseAddress),
                                       size: UInt32(raw.count))
            return gnutls_aead_cipher_init(&h, algorithm, &datum)
        }
        guard rc >= 0, let h else { return nil }
        handle = h
    }

    deinit { gnutls_aead_cipher_deinit(handle) }

    public func seal(nonce: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer,
                     plaintext: UnsafeRawBufferPointer, out: UnsafeMutableRawPointer) throws {
        var outLength = plaintext.count + MediaCipher.tagLength
        let rc = gnutls_aead_cipher_encrypt(handle, nonce.baseAddress, nonce.count, aad.baseAddress, aad.count,
                                            MediaCipher.tagLength, plaintext.baseAddress, plaintext.count,
                                            out, &outLength)
        guard rc >= 0, outLength == plaintext.count + MediaCipher.tagLength else {
            throw GnuTLSError(code: rc)
        }
    }

    public func open(nonce: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer,
                     sealed: UnsafeRawBufferPointer, out: UnsafeMutableRawPointer) -> Bool {
        guard sealed.count >= MediaCipher.tagLength else { return false }
        var outLength = sealed.count - MediaCipher.tagLength
        let rc = gnutls_aead_cipher_decrypt(handle, nonce.baseAddress, nonce.count, aad.baseAddress, aad.count,
                                            MediaCipher.tagLength, sealed.baseAddress, sealed.count,
                                            out, &outLength)
        return rc >= 0 && outLength == sealed.count - MediaCipher.tagLength
    }
}

/// A GnuTLS return code with its library message.
public struct GnuTLSError: Error, CustomStringConvertible {
    public let code: Int32
    public var description: String { "GnuTLS error \(code): \(String(cString: gnutls_strerror(code)))" }
}
