import Foundation
import Testing
@testable import PunktfunkSession

@Suite struct IdentityKnownHostsTests {
    static let fp = String(repeating: "0123456789abcdef", count: 4)

    @Test func roundTripsThroughAPrivateFile() throws {
        let dir = IdentityTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try KnownHosts.load(from: dir) == KnownHosts())
        var hosts = KnownHosts()
        try hosts.trust(host: "192.168.1.20:9777", fingerprint: Self.fp.uppercased())
        try hosts.trust(host: "[::1]:9778", fingerprint: Self.fp)
        try hosts.store(in: dir)
        let attributes = try FileManager.default.attributesOfItem(
            atPath: dir.appendingPathComponent(KnownHosts.fileName).path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let loaded = try KnownHosts.load(from: dir)
        #expect(loaded.fingerprint(for: "192.168.1.20:9777") == Self.fp)
        #expect(loaded.fingerprint(for: "[::1]:9778") == Self.fp)
        #expect(loaded.fingerprint(for: "other") == nil)
    }

    @Test func parsingSkipsCommentsAndReportsBadLines() {
        let hosts = KnownHosts(text: "# comment\n\n\(Self.fp) a:1 # trailing\nnot-a-fingerprint b\n\(Self.fp)\n")
        #expect(hosts.entries == ["a:1": Self.fp])
        #expect(hosts.ignoredLines == [4, 5])
    }

    @Test func rejectsAMalformedFingerprint() {
        var hosts = KnownHosts()
        #expect(throws: IdentityError.self) { try hosts.trust(host: "h", fingerprint: "abcd") }
    }

    @Test func configDirectoryFollowsXDG() {
        #expect(ConfigDirectory.resolve(environment: ["XDG_CONFIG_HOME": "/x/cfg", "HOME": "/home/u"])?.path
                == "/x/cfg/punktfunk-kiosk")
        #expect(ConfigDirectory.resolve(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/u"])?.path
                == "/home/u/.config/punktfunk-kiosk")
        #expect(ConfigDirectory.resolve(environment: [:]) == nil)
    }
}
