import Crypto
import Foundation

/// One AEAD key, sealing and opening media packets without allocating (data-plane.md §8.4).
///
/// The wire core ships `SwiftCryptoMediaAEAD` (portable, allocates per call through swift-crypto's
/// `Data` API). The session layer supplies a faster system implementation through a
/// `MediaAEADFactory`; both must agree byte for byte, which the vector tests check.
public protocol MediaAEAD: AnyObject {
    /// Encrypts `plaintext` and writes `ciphertext ‖ tag` (plaintext.count + 16 bytes) to `out`.
    /// `out` may not overlap `plaintext`.
    func seal(nonce: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer,
              plaintext: UnsafeRawBufferPointer, out: UnsafeMutableRawPointer) throws
    /// Verifies and decrypts `sealed` (= ciphertext ‖ 16-byte tag), writing sealed.count − 16
    /// bytes to `out`. Returns false, writing nothing usable, when authentication fails.
    /// `out` may not overlap `sealed`.
    func open(nonce: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer,
              sealed: UnsafeRawBufferPointer, out: UnsafeMutableRawPointer) -> Bool
}

/// Makes the AEAD for one key of one suite. - Precondition: `key.count == suite.keyLength`.
public typealias MediaAEADFactory = @Sendable (MediaSuite, [UInt8]) -> any MediaAEAD

/// swift-crypto (BoringSSL) behind `MediaAEAD`: the portable default.
public final class SwiftCryptoMediaAEAD: MediaAEAD {
    public static let factory: MediaAEADFactory = { suite, key in SwiftCryptoMediaAEAD(suite: suite, key: key) }

    private let suite: MediaSuite
    private let key: SymmetricKey

    public init(suite: MediaSuite, key: [UInt8]) {
        precondition(key.count == suite.keyLength, "wrong key length for \(suite)")
        self.suite = suite
        self.key = SymmetricKey(data: key)
    }

    public func seal(nonce: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer,
                     plaintext: UnsafeRawBufferPointer, out: UnsafeMutableRawPointer) throws {
        let ciphertext: Data, tag: Data
        switch suite {
        case .aes128GCM:
            let box = try AES.GCM.seal(plaintext, using: key, nonce: AES.GCM.Nonce(data: nonce), authenticating: aad)
            (ciphertext, tag) = (box.ciphertext, box.tag)
        case .chaCha20Poly1305:
            let box = try ChaChaPoly.seal(plaintext, using: key, nonce: ChaChaPoly.Nonce(data: nonce), authenticating: aad)
            (ciphertext, tag) = (box.ciphertext, box.tag)
        }
        ciphertext.copyBytes(to: UnsafeMutableRawBufferPointer(start: out, count: ciphertext.count))
        tag.copyBytes(to: UnsafeMutableRawBufferPointer(start: out + ciphertext.count, count: tag.count))
    }

    public func open(nonce: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer,
                     sealed: UnsafeRawBufferPointer, out: UnsafeMutableRawPointer) -> Bool {
        let n = sealed.count - MediaCipher.tagLength
        guard n >= 0 else { return false }
        let ct = UnsafeRawBufferPointer(rebasing: sealed[0..<n])
        let tag = UnsafeRawBufferPointer(rebasing: sealed[n...])
        let plain: Data
        do {
            switch suite {
            case .aes128GCM:
                let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce), ciphertext: ct, tag: tag)
                plain = try AES.GCM.open(box, using: key, authenticating: aad)
            case .chaCha20Poly1305:
                let box = try ChaChaPoly.SealedBox(nonce: ChaChaPoly.Nonce(data: nonce), ciphertext: ct, tag: tag)
                plain = try ChaChaPoly.open(box, using: key, authenticating: aad)
            }
        } catch {
            return false
        }
        plain.copyBytes(to: UnsafeMutableRawBufferPointer(start: out, count: n))
        return true
    }
}
