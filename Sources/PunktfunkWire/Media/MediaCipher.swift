import Crypto
import Foundation

/// Seals and opens punktfunk/2 media packets of one direction (data-plane.md §8.4).
///
/// Wire form: `clear prefix (tag ‖ seq_low, 5 B) ‖ ciphertext(header[5..30) ‖ shard) ‖ tag (16 B)`;
/// the clear prefix is the AAD. Keys rotate every 2^23 packets; the two most recent key indices
/// are cached so reordering across a rotation does not re-derive. Not thread-safe: one per
/// receive (or send) thread.
public final class MediaCipher {
    public static let tagLength = 16

    public let suite: MediaSuite
    private let secret: [UInt8]
    private var slots: [(index: UInt64, key: SymmetricKey, iv: [UInt8])] = []

    public init(exporter: [UInt8], direction: MediaDirection, suite: MediaSuite) {
        self.suite = suite
        self.secret = MediaKeySchedule.directionSecret(exporter: exporter, direction: direction)
    }

    private func keyAndIV(for seq: UInt64) -> (SymmetricKey, [UInt8]) {
        let index = seq >> MediaKeySchedule.keyIndexShift
        if let s = slots.first(where: { $0.index == index }) { return (s.key, s.iv) }
        let (key, iv) = MediaKeySchedule.keyAndIV(secret: secret, index: index, suite: suite)
        let entry = (index: index, key: SymmetricKey(data: key), iv: iv)
        if slots.count == 2 { slots.removeFirst() }
        slots.append(entry)
        return (entry.key, entry.iv)
    }

    /// Seals `packet[0..<length]` in place (5-byte clear prefix, then plaintext) and appends the
    /// tag. - Precondition: `packet.count >= length + 16`. - Returns: the datagram length.
    public func seal(seq: UInt64, packet: UnsafeMutableRawBufferPointer, length: Int) throws -> Int {
        precondition(length >= MediaHeader.clearPrefixLength && packet.count >= length + Self.tagLength)
        let (key, iv) = keyAndIV(for: seq)
        let nonceBytes = MediaKeySchedule.nonce(iv: iv, seq: seq)
        let aad = UnsafeRawBufferPointer(rebasing: packet[0..<MediaHeader.clearPrefixLength])
        let plain = UnsafeRawBufferPointer(rebasing: packet[MediaHeader.clearPrefixLength..<length])
        let ciphertext: Data
        let tag: Data
        switch suite {
        case .aes128GCM:
            let box = try AES.GCM.seal(plain, using: key, nonce: AES.GCM.Nonce(data: nonceBytes), authenticating: aad)
            (ciphertext, tag) = (box.ciphertext, box.tag)
        case .chaCha20Poly1305:
            let box = try ChaChaPoly.seal(plain, using: key, nonce: ChaChaPoly.Nonce(data: nonceBytes), authenticating: aad)
            (ciphertext, tag) = (box.ciphertext, box.tag)
        }
        let out = UnsafeMutableRawBufferPointer(rebasing: packet[MediaHeader.clearPrefixLength...])
        ciphertext.copyBytes(to: out)
        tag.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: packet[length...]))
        return length + Self.tagLength
    }

    /// Opens `datagram` in place: on success the plaintext sits at
    /// `[5 ..< datagram.count − 16)`. Throws `.authenticationFailed` on any forgery.
    public func open(seq: UInt64, datagram: UnsafeMutableRawBufferPointer) throws(MediaError) {
        let n = datagram.count
        guard n >= MediaHeader.clearPrefixLength + Self.tagLength else { throw .tooShort(n) }
        let (key, iv) = keyAndIV(for: seq)
        let nonceBytes = MediaKeySchedule.nonce(iv: iv, seq: seq)
        let aad = UnsafeRawBufferPointer(rebasing: datagram[0..<MediaHeader.clearPrefixLength])
        let ct = UnsafeRawBufferPointer(rebasing: datagram[MediaHeader.clearPrefixLength..<(n - Self.tagLength)])
        let tag = UnsafeRawBufferPointer(rebasing: datagram[(n - Self.tagLength)...])
        let plain: Data
        do {
            switch suite {
            case .aes128GCM:
                let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonceBytes), ciphertext: ct, tag: tag)
                plain = try AES.GCM.open(box, using: key, authenticating: aad)
            case .chaCha20Poly1305:
                let box = try ChaChaPoly.SealedBox(nonce: ChaChaPoly.Nonce(data: nonceBytes), ciphertext: ct, tag: tag)
                plain = try ChaChaPoly.open(box, using: key, authenticating: aad)
            }
        } catch {
            throw .authenticationFailed
        }
        plain.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: datagram[MediaHeader.clearPrefixLength...]))
    }
}
