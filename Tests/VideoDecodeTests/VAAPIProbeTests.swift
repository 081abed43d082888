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
        // A plain file is no DRM node: the sync decision says so and waits in vaSyncSurface.
        #expect(node.drmDriver == nil)
        #expect(node.decodeSync?.path == "va-sync-surface")
        #expect(node.decodeSync?.why.contains("DRM driver is unknown") == true)
        let forced = VAAPIProbe.node(try VARecordingDriver.Device().connect(), decodeSync: .syncFile)
        #expect(forced.decodeSync?.path == "sync-file")

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

    /// On a box with two GPUs the render node of the GPU driving the display comes first; the
    /// pinned node alone when PUNKTFUNK_VAAPI_DEVICE is set; name order without a display.
    /// (A sysfs/dev tree in a temp directory laid out as the kernel's: /sys/class/drm/<node> and
    /// its `device` link to the GPU, chained relative symlinks as on a real system.)
    @Test func renderNodeOfTheDisplaysGPUComesFirst() throws {
        let fm = FileManager.default
        let root = fm.temporaryDirectory.appendingPathComponent("pf-sysfs-\(getpid())").path
        defer { try? fm.removeItem(atPath: root) }
        try fm.createDirectory(atPath: "\(root)/dev/dri", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: "\(root)/sys/class/drm", withIntermediateDirectories: true)
        // card0 + renderD128 on the iGPU, card1 + renderD129 on the dGPU.
        for (gpu, nodes) in [("0000:00:02.0", ["card0", "renderD128"]), ("0000:01:00.0", ["card1", "renderD129"])] {
            for node in nodes {
                let dir = "\(root)/sys/devices/pci0000:00/\(gpu)/drm/\(node)"
                try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
                try fm.createSymbolicLink(atPath: "\(dir)/device", withDestinationPath: "../../../\(gpu)")
                try fm.createSymbolicLink(atPath: "\(root)/sys/class/drm/\(node)",
                                          withDestinationPath: "../../devices/pci0000:00/\(gpu)/drm/\(node)")
                fm.createFile(atPath: "\(root)/dev/dri/\(node)", contents: nil)
            }
        }
        func order(_ display: String?, env: [String: String] = [:]) -> [String] {
            VADisplayConnection.renderNodes(environment: env, preferringDeviceOf: display,
                                            sysfsDRM: "\(root)/sys/class/drm", devDRI: "\(root)/dev/dri")
                .map { ($0 as NSString).lastPathComponent }
        }
        #expect(order("/dev/dri/card1") == ["renderD129", "renderD128"])
        #expect(order("/dev/dri/card0") == ["renderD128", "renderD129"])
        #expect(order(nil) == ["renderD128", "renderD129"])
        #expect(order("/dev/dri/card7") == ["renderD128", "renderD129"])   // unknown to sysfs: name order
        #expect(order("/dev/dri/card1", env: ["PUNKTFUNK_VAAPI_DEVICE": "/dev/dri/renderD128"]) == ["renderD128"])
    }
}
