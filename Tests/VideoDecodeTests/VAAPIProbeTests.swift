import Foundation
import Testing
import VideoDecode

@Suite("VA-API probe")
struct VAAPIProbeTests {
    /// The probe of a display lists the HEVC profiles with their entrypoints and RT formats, and
    /// marks a profile decodable only with VLD and its RT format.
    @Test(.enabled(if: VARecordingDriver.isAvailable, VARecordingDriver.skipReason))
    func probeOfTheRecordingDriver() throws {
        let node = VAAPIProbe.node(try VARecordingDriver.Device().connect())
        #expect(node.vendor == "punktfunk VA recording driver (test fake)")
        #expect(node.vaAPIVersion == "1.17")
        let byName = Dictionary(uniqueKeysWithValues: node.hevcProfiles.map { ($0.name, $0) })
        #expect(byName["VAProfileHEVCMain"]?.entrypoints == ["VAEntrypointVLD"])
        #expect(byName["VAProfileHEVCMain"]?.rtFormats == ["YUV420"])
        #expect(byName["VAProfileHEVCMain10"]?.rtFormats == ["YUV420", "YUV420_10"])
        #expect(byName.values.allSatisfy { $0.decodable })
        let json = String(decoding: try JSONEncoder().encode(node), as: UTF8.self)
        #expect(json.contains("\"hevcProfiles\""))

        let noMain10 = VAAPIProbe.node(try VARecordingDriver.Device(config: ["main10": "0"]).connect())
        #expect(noMain10.hevcProfiles.map(\.name) == ["VAProfileHEVCMain"])
    }

    /// Nodes that do not open are reported with the reason, not dropped.
    @Test func unusableNodeIsReportedWithItsError() throws {
        let report = VAAPIProbe.report(nodes: ["/nonexistent/renderD200"])
        #expect(report.renderNodes.count == 1)
        #expect(report.renderNodes[0].error?.contains("cannot open /nonexistent/renderD200") == true)
        #expect(report.decodableHEVCProfiles.isEmpty)
        #expect(!String(decoding: try JSONEncoder().encode(report), as: UTF8.self).isEmpty)
    }
}
