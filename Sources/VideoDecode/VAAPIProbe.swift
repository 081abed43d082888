internal import CVA
import Foundation

/// What the VA-API drivers of this machine offer for HEVC, for `punktfunk-kiosk probe` and for
/// deciding what the client advertises (a profile only with a VLD entrypoint and its RT format).
public enum VAAPIProbe {
    public struct Report: Encodable, Sendable {
        public var renderNodes: [Node]
        /// Profiles some node can decode (VLD + RT format): what a Hello may advertise.
        public var decodableHEVCProfiles: [String]
    }

    public struct Node: Encodable, Sendable {
        public var path: String
        /// The kernel driver bound to the node (sysfs), e.g. "i915", "amdgpu".
        public var kernelDriver: String?
        /// The node's DRM driver name (DRM_IOCTL_VERSION), which the sync decision reads.
        public var drmDriver: String?
        /// How decoded pictures are fenced on this node, and why (`DecodeSyncDecision`).
        public var decodeSync: Sync?
        /// vaQueryVendorString of the VA driver libva loaded; nil when it did not initialise.
        public var vendor: String?
        public var vaAPIVersion: String?
        public var hevcProfiles: [Profile]
        /// Why the node could not be used.
        public var error: String?
    }

    public struct Sync: Encodable, Sendable {
        /// "sync-file" or "va-sync-surface".
        public var path: String
        public var why: String
    }

    public struct Profile: Encodable, Sendable {
        /// libva's name, e.g. "VAProfileHEVCMain10".
        public var name: String
        public var entrypoints: [String]
        /// RT formats for the VLD entrypoint, e.g. ["YUV420", "YUV420_10"].
        public var rtFormats: [String]
        public var decodable: Bool
    }

    /// Probes every render node (`VADisplayConnection.renderNodes()`); `decodeSync` is the
    /// config's setting the sync decision is made with.
    public static func report(nodes: [String] = VADisplayConnection.renderNodes(),
                              decodeSync: DecodeSyncSetting = .auto) -> Report {
        let probed = nodes.map { path -> Node in
            do throws(VAAPIError) {
                return node(try VADisplayConnection.open(renderNode: path), decodeSync: decodeSync)
            } catch {
                return Node(path: path, kernelDriver: kernelDriver(path), drmDriver: nil, decodeSync: nil, vendor: nil,
                            vaAPIVersion: nil, hevcProfiles: [], error: error.description)
            }
        }
        return Report(renderNodes: probed, decodableHEVCProfiles: decodable(probed))
    }

    /// Probes one initialised display.
    public static func node(_ c: VADisplayConnection, decodeSync: DecodeSyncSetting = .auto) -> Node {
        let profiles = c.profiles().filter { vaProfileName($0).contains("HEVC") }.map { p -> Profile in
            let entrypoints = c.entrypoints(p)
            let rt = entrypoints.contains(VAEntrypointVLD) ? c.rtFormats(p) : 0
            let needed = p == VAProfileHEVCMain ? HEVCProfile.main.rtFormat
                : p == VAProfileHEVCMain10 ? HEVCProfile.main10.rtFormat : 0
            return Profile(name: vaProfileName(p), entrypoints: entrypoints.map(entrypointName),
                           rtFormats: rtFormatNames(rt), decodable: needed != 0 && rt & needed != 0)
        }
        let sync = DecodeSyncDecision.decide(drmDriver: c.drmDriver, setting: decodeSync)
        return Node(path: c.devicePath, kernelDriver: kernelDriver(c.devicePath), drmDriver: c.drmDriver,
                    decodeSync: Sync(path: sync.path.rawValue, why: sync.why), vendor: c.vendor,
                    vaAPIVersion: "\(c.apiVersion.major).\(c.apiVersion.minor)", hevcProfiles: profiles, error: nil)
    }

    static func decodable(_ nodes: [Node]) -> [String] {
        var out: [String] = []
        for p in HEVCProfile.allCases {
            let name = vaProfileName(p.vaProfile)
            if nodes.contains(where: { $0.hevcProfiles.contains { $0.name == name && $0.decodable } }) { out.append(p.rawValue) }
        }
        return out
    }

    static func vaProfileName(_ p: VAProfile) -> String { vaProfileStr(p).map { String(cString: $0) } ?? "\(p.rawValue)" }
    static func entrypointName(_ e: VAEntrypoint) -> String {
        vaEntrypointStr(e).map { String(cString: $0) } ?? "\(e.rawValue)"
    }

    /// Names of the VA_RT_FORMAT_* bits set in `mask`.
    static func rtFormatNames(_ mask: UInt32) -> [String] {
        let names: [(UInt32, String)] = [
            (0x1, "YUV420"), (0x2, "YUV422"), (0x4, "YUV444"), (0x8, "YUV411"), (0x10, "YUV400"),
            (0x100, "YUV420_10"), (0x200, "YUV422_10"), (0x400, "YUV444_10"), (0x1000, "YUV420_12"),
            (0x2000, "YUV422_12"), (0x4000, "YUV444_12"), (0x10000, "RGB16"), (0x20000, "RGB32"),
            (0x100000, "RGBP"), (0x200000, "RGB32_10"), (0x80000000, "PROTECTED"),
        ]
        return names.filter { mask & $0.0 != 0 }.map(\.1)
    }

    /// The kernel driver behind a /dev/dri node, from /sys/class/drm/<node>/device/driver.
    static func kernelDriver(_ path: String) -> String? {
        let node = (path as NSString).lastPathComponent
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/sys/class/drm/\(node)/device/driver")
        else { return nil }
        return (target as NSString).lastPathComponent
    }
}
