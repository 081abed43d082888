import Crypto
import Foundation
import X509

/// A long-lived self-signed TLS identity: an ECDSA P-256 certificate with its PKCS#8 private key,
/// both PEM, plus the SHA-256 fingerprint of the leaf DER that hosts and clients pin
/// (control-plane.md §1.3–§1.5).
///
/// Invariant: `certificateDER` is the DER inside `certificatePEM`, `fingerprint` is
/// `CertificateFingerprint.sha256Hex(certificateDER)`, and the private key matches the
/// certificate's public key (checked on load).
public struct TLSIdentity: Sendable, Equatable {
    /// Common names the two roles use (control-plane.md §1.3, §1.5).
    public static let clientCommonName = "punktfunk-client"
    public static let hostCommonName = "punktfunk"

    /// File names inside the identity directory.
    public static let certificateFileName = "identity-cert.pem"
    public static let privateKeyFileName = "identity-key.pem"

    /// The X.509 certificate, PEM ("CERTIFICATE").
    public let certificatePEM: String
    /// The private key, PKCS#8 PEM ("PRIVATE KEY").
    public let privateKeyPEM: String
    /// The certificate's DER encoding (what the fingerprint covers).
    public let certificateDER: [UInt8]
    /// SHA-256 of `certificateDER`, 64 lowercase hex characters.
    public var fingerprint: String { CertificateFingerprint.sha256Hex(certificateDER) }

    /// Parses and cross-checks a PEM pair.
    /// - Throws: `IdentityError.malformed` when either PEM does not parse or the key does not
    ///   belong to the certificate.
    public init(certificatePEM: String, privateKeyPEM: String) throws(IdentityError) {
        let certificate: Certificate
        let key: P256.Signing.PrivateKey
        do {
            certificate = try Certificate(pemEncoded: certificatePEM)
        } catch {
            throw .malformed("the certificate PEM does not parse: \(error)")
        }
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw .malformed("the private key PEM is not a P-256 key: \(error)")
        }
        guard certificate.publicKey == Certificate.PublicKey(key.publicKey) else {
            throw .malformed("the private key does not belong to the certificate")
        }
        do {
            self.certificateDER = try certificate.serializeAsPEM().derBytes
        } catch {
            throw .malformed("the certificate does not re-encode: \(error)")
        }
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
    }

    /// Test hook: pairs a certificate with any key, skipping the parse and match checks, so tests can
    /// prove that a peer whose CertificateVerify is signed by the wrong key is refused.
    init(uncheckedCertificatePEM certificatePEM: String, privateKeyPEM: String, certificateDER: [UInt8]) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
        self.certificateDER = certificateDER
    }

    /// Makes a fresh self-signed identity: ECDSA P-256 with SHA-256, subject = issuer = `CN=commonName`,
    /// valid 2020-01-01 … 2040-01-01 like the host's (control-plane.md §1.3), with a random
    /// positive 16-byte serial, no extensions beyond basic constraints (not a CA).
    public static func generate(commonName: String = clientCommonName) throws(IdentityError) -> TLSIdentity {
        let key = P256.Signing.PrivateKey()
        let name: DistinguishedName
        do {
            name = try DistinguishedName { CommonName(commonName) }
        } catch {
            throw .generation("the common name \"\(commonName)\" is not encodable: \(error)")
        }
        var serial = (0..<16).map { _ in UInt8.random(in: 0...255) }
        serial[0] = (serial[0] & 0x7F) | 0x01  // positive and without a leading zero octet
        do {
            let certificate = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(bytes: serial),
                publicKey: Certificate.PublicKey(key.publicKey),
                notValidBefore: Date(timeIntervalSince1970: 1_577_836_800),  // 2020-01-01T00:00:00Z
                notValidAfter: Date(timeIntervalSince1970: 2_208_988_800),  // 2040-01-01T00:00:00Z
                issuer: name,
                subject: name,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                },
                issuerPrivateKey: Certificate.PrivateKey(key)
            )
            let pem = try certificate.serializeAsPEM().pemString
            return try TLSIdentity(certificatePEM: pem, privateKeyPEM: key.pemRepresentation)
        } catch let error as IdentityError {
            throw error
        } catch {
            throw .generation("swift-certificates could not sign the certificate: \(error)")
        }
    }

    /// Loads the identity stored in `directory`.
    /// - Returns: nil when neither file exists.
    /// - Throws: `IdentityError` when only one file exists, a file is unreadable or malformed.
    public static func load(from directory: URL) throws(IdentityError) -> TLSIdentity? {
        let certURL = directory.appendingPathComponent(certificateFileName)
        let keyURL = directory.appendingPathComponent(privateKeyFileName)
        let fm = FileManager.default
        let haveCert = fm.fileExists(atPath: certURL.path)
        let haveKey = fm.fileExists(atPath: keyURL.path)
        if !haveCert && !haveKey { return nil }
        guard haveCert && haveKey else {
            throw .io("only one of \(certificateFileName) and \(privateKeyFileName) exists in \(directory.path)")
        }
        let certPEM: String
        let keyPEM: String
        do {
            certPEM = try String(contentsOf: certURL, encoding: .utf8)
            keyPEM = try String(contentsOf: keyURL, encoding: .utf8)
        } catch {
            throw .io("cannot read the identity in \(directory.path): \(error)")
        }
        return try TLSIdentity(certificatePEM: certPEM, privateKeyPEM: keyPEM)
    }

    /// Writes both PEMs into `directory` (created 0700 if missing). The key file is created with
    /// mode 0600 before any byte is written; the certificate is 0644. Existing files are replaced.
    public func store(in directory: URL) throws(IdentityError) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .io("cannot create \(directory.path): \(error)")
        }
        try PrivateFile.write(privateKeyPEM, to: directory.appendingPathComponent(Self.privateKeyFileName), mode: 0o600)
        try PrivateFile.write(certificatePEM, to: directory.appendingPathComponent(Self.certificateFileName), mode: 0o644)
    }

    /// Loads the identity in `directory`, or generates one with `commonName` and stores it.
    public static func loadOrCreate(in directory: URL,
                                    commonName: String = clientCommonName) throws(IdentityError) -> TLSIdentity {
        if let existing = try load(from: directory) { return existing }
        let fresh = try generate(commonName: commonName)
        try fresh.store(in: directory)
        return fresh
    }
}

/// SHA-256 fingerprints of certificates as punktfunk prints and pins them.
public enum CertificateFingerprint {
    /// SHA-256 over `der`, as 64 lowercase hex characters (control-plane.md §1.4).
    public static func sha256Hex(_ der: some Sequence<UInt8>) -> String {
        hex(SHA256.hash(data: Array(der)))
    }

    /// Lowercase hex of `bytes`.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The 32 bytes of a fingerprint given as text (any form `normalize` accepts); the SPAKE2
    /// identities of control-plane.md §6.1 are these bytes.
    /// - Returns: nil unless `normalize` accepts `text`.
    public static func bytes(_ text: String) -> [UInt8]? {
        guard let hex = normalize(text) else { return nil }
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { i in
            UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16)!  // normalize checked the digits
        }
    }

    /// Normalises a user-supplied fingerprint (case, `:` or space separators) to 64 lowercase hex.
    /// - Returns: nil unless exactly 32 bytes of hex remain.
    public static func normalize(_ text: String) -> String? {
        let kept = text.lowercased().filter { $0 != ":" && $0 != " " }
        guard kept.count == 64, kept.allSatisfy({ $0.isHexDigit }) else { return nil }
        return kept
    }
}

/// Why an identity could not be made, read or written.
public enum IdentityError: Error, Equatable, CustomStringConvertible {
    case generation(String)
    case malformed(String)
    case io(String)

    public var description: String {
        switch self {
        case .generation(let s): "identity generation failed: \(s)"
        case .malformed(let s): "identity malformed: \(s)"
        case .io(let s): "identity storage: \(s)"
        }
    }
}

/// Whole-file writes that never expose a secret: the temp file is created with the final mode.
package enum PrivateFile {
    /// Writes through a temporary file opened with `mode` (so the secret is never world-readable),
    /// then renames it over `url`.
    package static func write(_ text: String, to url: URL, mode: mode_t) throws(IdentityError) {
        let tmp = url.path + ".tmp"
        unlink(tmp)
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .io("cannot create \(tmp): errno \(errno)") }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                let e = errno
                close(fd)
                unlink(tmp)
                throw .io("cannot write \(tmp): errno \(e)")
            }
            written += n
        }
        _ = fchmod(fd, mode)  // umask may have cleared bits we asked for; never adds beyond `mode`
        fsync(fd)
        close(fd)
        guard rename(tmp, url.path) == 0 else {
            let e = errno
            unlink(tmp)
            throw .io("cannot rename \(tmp) to \(url.path): errno \(e)")
        }
    }
}
