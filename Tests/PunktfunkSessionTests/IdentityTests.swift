import Foundation
import Testing
@testable import PunktfunkSession

@Suite struct IdentityTests {
    /// A fresh directory under the system temp dir, removed by the caller.
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("pf-identity-\(UUID().uuidString)")
    }

    @Test func generatesAP256SelfSignedIdentity() throws {
        let identity = try TLSIdentity.generate(commonName: TLSIdentity.clientCommonName)
        #expect(identity.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(identity.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))  // PKCS#8
        #expect(identity.fingerprint.count == 64)
        #expect(identity.fingerprint == identity.fingerprint.lowercased())
        #expect(identity.fingerprint == CertificateFingerprint.sha256Hex(identity.certificateDER))
        #expect(try TLSIdentity.generate().fingerprint != identity.fingerprint)
    }

    @Test func fingerprintIsSHA256OfTheDER() {
        // SHA-256("abc"), FIPS 180-2 appendix B.1.
        #expect(CertificateFingerprint.sha256Hex(Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(CertificateFingerprint.normalize("BA:78:16:BF:8F:01:CF:EA:41:41:40:DE:5D:AE:22:23:B0:03:61:A3:96:17:7A:9C:B4:10:FF:61:F2:00:15:AD")
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(CertificateFingerprint.normalize("abc") == nil)
    }

    @Test func storesWithAPrivateKeyOnlyTheOwnerCanRead() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let created = try TLSIdentity.loadOrCreate(in: dir, commonName: TLSIdentity.hostCommonName)
        let keyPath = dir.appendingPathComponent(TLSIdentity.privateKeyFileName).path
        let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let loaded = try TLSIdentity.loadOrCreate(in: dir)
        #expect(loaded == created)
        #expect(loaded.fingerprint == created.fingerprint)
    }

    @Test func missingDirectoryLoadsNothing() throws {
        #expect(try TLSIdentity.load(from: Self.temporaryDirectory()) == nil)
    }

    @Test func mismatchedKeyIsRejected() throws {
        let a = try TLSIdentity.generate()
        let b = try TLSIdentity.generate()
        #expect(throws: IdentityError.self) {
            _ = try TLSIdentity(certificatePEM: a.certificatePEM, privateKeyPEM: b.privateKeyPEM)
        }
    }
}
