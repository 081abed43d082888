/// Seals and opens punktfunk/2 media packets of one direction (data-plane.md §8.4).
///
/// Wire form: `clear prefix (tag ‖ seq_low, 5 B) ‖ ciphertext(header[5..30) ‖ shard) ‖ tag (16 B)`;
/// the clear prefix is the AAD. Keys rotate every 2^23 packets; the AEADs of the two most recent
/// key indices are cached, so reordering across a rotation does not re-derive, and the steady
/// state derives nothing. Not thread-safe: one per receive (or send) thread.
public final class MediaCipher {
    public static let tagLength = 16

    public let suite: MediaSuite
    private let secret: [UInt8]
    private let factory: MediaAEADFactory
    private var slots: [(index: UInt64, aead: any MediaAEAD, iv: [UInt8])] = []
    /// 12-byte nonce scratch, rebuilt per packet.
    private let nonce = UnsafeMutableRawBufferPointer.allocate(byteCount: 12, alignment: 16)

    public init(exporter: [UInt8], direction: MediaDirection, suite: MediaSuite,
                aead factory: @escaping MediaAEADFactory = SwiftCryptoMediaAEAD.factory) {
        self.suite = suite
        self.secret = MediaKeySchedule.directionSecret(exporter: exporter, direction: direction)
        self.factory = factory
    }

    deinit { nonce.deallocate() }

    /// The AEAD for `seq`'s key index, with the nonce for `seq` written to `nonce`.
    private func prepare(_ seq: UInt64) -> any MediaAEAD {
        let index = seq >> MediaKeySchedule.keyIndexShift
        let slot: (index: UInt64, aead: any MediaAEAD, iv: [UInt8])
        if let s = slots.first(where: { $0.index == index }) {
            slot = s
        } else {
            let (key, iv) = MediaKeySchedule.keyAndIV(secret: secret, index: index, suite: suite)
            slot = (index, factory(suite, key), iv)
            if slots.count == 2 { slots.removeFirst() }
            slots.append(slot)
        }
        MediaKeySchedule.writeNonce(iv: slot.iv, seq: seq, into: nonce)
        return slot.aead
    }

    /// Seals the packet `plain` (5-byte clear prefix, then plaintext) into `out`:
    /// prefix ‖ ciphertext ‖ tag. - Precondition: `out` holds `plain.count + 16` bytes and
    /// does not overlap `plain`. - Returns: the datagram length.
    public func seal(seq: UInt64, packet plain: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) throws -> Int {
        let prefix = MediaHeader.clearPrefixLength
        precondition(plain.count >= prefix && out.count >= plain.count + Self.tagLength)
        let aead = prepare(seq)
        out.baseAddress!.copyMemory(from: plain.baseAddress!, byteCount: prefix)
        try aead.seal(nonce: UnsafeRawBufferPointer(nonce), aad: UnsafeRawBufferPointer(rebasing: plain[0..<prefix]),
                      plaintext: UnsafeRawBufferPointer(rebasing: plain[prefix...]), out: out.baseAddress! + prefix)
        return plain.count + Self.tagLength
    }

    /// Opens `datagram` into `out`: on success `out[0 ..< datagram.count − 16)` holds the clear
    /// prefix followed by the plaintext. Throws `.authenticationFailed` on any forgery.
    /// - Precondition: `out` holds `datagram.count` bytes and does not overlap it.
    public func open(seq: UInt64, datagram: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) throws(MediaError) {
        let n = datagram.count, prefix = MediaHeader.clearPrefixLength
        guard n >= prefix + Self.tagLength else { throw .tooShort(n) }
        precondition(out.count >= n)
        let aead = prepare(seq)
        guard aead.open(nonce: UnsafeRawBufferPointer(nonce), aad: UnsafeRawBufferPointer(rebasing: datagram[0..<prefix]),
                        sealed: UnsafeRawBufferPointer(rebasing: datagram[prefix...]), out: out.baseAddress! + prefix) else {
            throw .authenticationFailed
        }
        out.baseAddress!.copyMemory(from: datagram.baseAddress!, byteCount: prefix)
    }

    /// Array form of `seal` for tools and tests: `packet` = clear prefix ‖ plaintext.
    public func seal(seq: UInt64, packet: [UInt8]) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: packet.count + Self.tagLength)
        _ = try packet.withUnsafeBytes { p in try out.withUnsafeMutableBytes { try seal(seq: seq, packet: p, into: $0) } }
        return out
    }

    /// Array form of `open` for tools and tests: returns clear prefix ‖ plaintext.
    public func open(seq: UInt64, datagram: [UInt8]) throws(MediaError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: datagram.count)
        var failure: MediaError?
        datagram.withUnsafeBytes { d in
            out.withUnsafeMutableBytes { o in
                do throws(MediaError) { try open(seq: seq, datagram: d, into: o) } catch { failure = error }
            }
        }
        if let failure { throw failure }
        return Array(out.dropLast(Self.tagLength))
    }
}
