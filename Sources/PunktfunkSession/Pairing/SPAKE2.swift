internal import CSodium
import Crypto

/// One side of SPAKE2 over Ed25519, byte-compatible with RustCrypto `spake2` 0.4
/// (`Ed25519Group`, `start_a`/`start_b`) and python-spake2 (control-plane.md §6.1):
///
/// - pw = HKDF-SHA256(salt empty, ikm = password, info "SPAKE2 pw", L = 48), read as a
///   **big-endian** integer mod ℓ (python-spake2 `password_to_scalar` → `bytes_to_number`,
///   i.e. `int(hexlify(okm), 16)`; checked against the oracle in Tests/Fixtures/spake2/).
/// - A: X = x·B + pw·M; B: Y = y·B + pw·N; message = side byte ‖ 32-byte point.
/// - K = x·(Y − pw·N) (A) / y·(X − pw·M) (B);
///   key = SHA-256(SHA256(pw) ‖ SHA256(idA) ‖ SHA256(idB) ‖ X ‖ Y ‖ K).
///
/// Scalars are 32-byte little-endian as libsodium takes them. Every secret (pw, x/y,
/// SHA256(pw), intermediate points, K) lives in `SecretBytes` and is wiped when this object goes
/// away. Not thread-safe: one party belongs to one ceremony step at a time.
final class SPAKE2Party {
    /// The side byte is also the message's first byte ('A' / 'B').
    enum Side: UInt8, Sendable {
        case a = 0x41
        case b = 0x42

        var peer: Side { self == .a ? .b : .a }
        /// The constant this side blinds its own point with (M for A, N for B).
        var blinding: [UInt8] { self == .a ? SPAKE2Party.m : SPAKE2Party.n }
    }

    /// M, python-spake2 `arbitrary_element(b"M")` (control-plane.md §6.1).
    static let m: [UInt8] = hexBytes("15cfd18e385952982b6a8f8c7854963b58e34388c8e6dae891db756481a02312")
    /// N, python-spake2 `arbitrary_element(b"N")` (control-plane.md §6.1).
    static let n: [UInt8] = hexBytes("f04f2e7eb734b2a8f8b472eaf9c3c632576ac64aea650b496a8a20ff00e583c3")

    static let pointBytes = 32
    static let messageBytes = 33

    let side: Side
    /// This side's blinded point (X for A, Y for B); public.
    let outboundPoint: [UInt8]
    private let idA: [UInt8]
    private let idB: [UInt8]
    /// [0, 32) pw scalar, [32, 64) x or y, [64, 96) SHA256(password).
    private let secrets: SecretBytes
    private var finished = false

    /// This side's message: side byte ‖ point (33 bytes).
    var message: [UInt8] { [side.rawValue] + outboundPoint }

    /// - Parameters:
    ///   - password: the password bytes; the caller owns (and wipes) them.
    ///   - secretScalar: tests only — a fixed x/y (32 bytes little-endian, canonical, non-zero)
    ///     instead of `crypto_core_ed25519_scalar_random`.
    init(side: Side, password: [UInt8], idA: [UInt8], idB: [UInt8],
         secretScalar: [UInt8]? = nil) throws(PairingError) {
        guard Sodium.isReady else { throw .sodiumUnavailable }
        self.side = side
        self.idA = idA
        self.idB = idB

        let secrets = SecretBytes(count: 96)
        secrets.withMutableBytes { s in
            let base = s.baseAddress!
            Self.passwordScalar(password, into: base)
            if let secretScalar {
                precondition(Self.isCanonicalNonZeroScalar(secretScalar), "injected scalar must be canonical and non-zero")
                for i in 0..<32 { base[32 + i] = secretScalar[i] }
            } else {
                crypto_core_ed25519_scalar_random(base + 32)
            }
            let pwHash = SHA256.hash(data: password)
            pwHash.withUnsafeBytes { h in
                for i in 0..<32 { base[64 + i] = h[i] }
            }
        }

        // X = x·B + pw·M (A) / Y = y·B + pw·N (B). xB and pw·M stay secret: together with the
        // public message they would open an offline dictionary attack on the PIN.
        var point = [UInt8](repeating: 0, count: Self.pointBytes)
        let scratch = SecretBytes(count: 64)
        let blinding = side.blinding
        let ok = secrets.withBytes { s in
            scratch.withMutableBytes { t in
                let s = s.baseAddress!, t = t.baseAddress!
                return crypto_scalarmult_ed25519_base_noclamp(t, s + 32) == 0
                    && crypto_scalarmult_ed25519_noclamp(t + 32, s, blinding) == 0
                    && crypto_core_ed25519_add(&point, t, t + 32) == 0
            }
        }
        // Only reachable with pw ≡ 0 or x ≡ 0 (mod ℓ), i.e. never for real PINs and scalars.
        guard ok else { throw .degenerateExchange }
        outboundPoint = point
        self.secrets = secrets
    }

    /// Finishes with the peer's 33-byte message and returns the shared key (32 bytes).
    /// A wrong password does not fail here; it yields a different key (§6.1).
    /// - Throws: `.malformedMessage`, `.wrongSide`, `.invalidPoint`, `.reflectedMessage`,
    ///   `.degenerateExchange`, or `.outOfOrder` on a second call.
    func finish(peerMessage: [UInt8]) throws(PairingError) -> SymmetricKey {
        guard !finished else { throw .outOfOrder("SPAKE2 finish") }
        guard peerMessage.count == Self.messageBytes else { throw .malformedMessage(byteCount: peerMessage.count) }
        guard peerMessage[0] == side.peer.rawValue else { throw .wrongSide(peerMessage[0]) }
        let peerPoint = Array(peerMessage[1...])
        // Canonical, on the curve, not small order, in the prime-order subgroup.
        guard crypto_core_ed25519_is_valid_point(peerPoint) == 1 else { throw .invalidPoint }
        guard peerPoint != outboundPoint else { throw .reflectedMessage }
        finished = true

        // [0, 32) pw·(peer's constant), [32, 64) peer − that, [64, 96) K.
        let scratch = SecretBytes(count: 96)
        let unblinding = side.peer.blinding
        let ok = secrets.withBytes { s in
            scratch.withMutableBytes { t in
                let s = s.baseAddress!, t = t.baseAddress!
                return crypto_scalarmult_ed25519_noclamp(t, s, unblinding) == 0
                    && crypto_core_ed25519_sub(t + 32, peerPoint, t) == 0
                    // libsodium returns -1 when peer − pw·C is the identity (or small order).
                    && crypto_scalarmult_ed25519_noclamp(t + 64, s + 32, t + 32) == 0
            }
        }
        guard ok else { throw .degenerateExchange }

        let (pointA, pointB) = side == .a ? (outboundPoint, peerPoint) : (peerPoint, outboundPoint)
        var transcript = SHA256()
        secrets.withBytes { s in
            transcript.update(bufferPointer: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: s[64..<96])))
        }
        transcript.update(data: Array(SHA256.hash(data: idA)))
        transcript.update(data: Array(SHA256.hash(data: idB)))
        transcript.update(data: pointA)
        transcript.update(data: pointB)
        scratch.withBytes { t in
            transcript.update(bufferPointer: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: t[64..<96])))
        }
        return SymmetricKey(data: transcript.finalize())
    }

    /// The password scalar, 32 bytes little-endian (tests compare it with the oracle).
    var passwordScalarBytes: [UInt8] { secrets.withBytes { Array($0[0..<32]) } }

    /// pw = HKDF-SHA256(salt empty, ikm = password, info "SPAKE2 pw", 48 bytes) as a big-endian
    /// integer mod ℓ, written little-endian to `out` (32 bytes). libsodium's reduce takes a
    /// 64-byte little-endian input, so the 48 bytes are reversed into its low end.
    static func passwordScalar(_ password: [UInt8], into out: UnsafeMutablePointer<UInt8>) {
        let okm = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: password),
                                         salt: [UInt8](), info: Array("SPAKE2 pw".utf8),
                                         outputByteCount: 48)
        let wide = SecretBytes(count: 64)
        wide.withMutableBytes { w in
            okm.withUnsafeBytes { o in
                for i in 0..<48 { w[i] = o[47 - i] }
            }
            crypto_core_ed25519_scalar_reduce(out, w.baseAddress!)
        }
    }

    /// True when `s` is 32 bytes, below ℓ and not zero.
    static func isCanonicalNonZeroScalar(_ s: [UInt8]) -> Bool {
        guard s.count == 32, s.contains(where: { $0 != 0 }) else { return false }
        var wide = s + [UInt8](repeating: 0, count: 32)
        var reduced = [UInt8](repeating: 0, count: 32)
        crypto_core_ed25519_scalar_reduce(&reduced, &wide)
        return reduced == s
    }
}

/// Lower-case hex → bytes, for compile-time constants only.
private func hexBytes(_ hex: String) -> [UInt8] {
    let chars = Array(hex.utf8)
    precondition(chars.count % 2 == 0)
    return stride(from: 0, to: chars.count, by: 2).map { i in
        UInt8(String(decoding: chars[i..<i + 2], as: UTF8.self), radix: 16)!
    }
}
