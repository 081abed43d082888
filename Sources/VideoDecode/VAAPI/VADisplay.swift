internal import CVA
import Foundation
import VideoFrames

/// The HEVC profiles the VA-API rung decodes (H.265 A.3), as libva names them.
public enum HEVCProfile: String, Sendable, CaseIterable, Codable {
    case main = "Main"
    case main10 = "Main10"

    var vaProfile: VAProfile { self == .main ? VAProfileHEVCMain : VAProfileHEVCMain10 }
    /// The RT format a config and its surfaces must be created with (never the driver default:
    /// on Main10 that is 8-bit and 10-bit samples would be narrowed silently).
    var rtFormat: UInt32 { self == .main ? UInt32(VA_RT_FORMAT_YUV420) : UInt32(VA_RT_FORMAT_YUV420_10) }
    /// The surface pixel format: NV12 or P010.
    var fourcc: UInt32 { self == .main ? PF_VA_FOURCC_NV12 : PF_VA_FOURCC_P010 }
    var pixelFormat: DecodedPixelFormat { self == .main ? .nv12 : .p010 }
}

/// One initialised libva display on a DRM render node: owns the node's fd and the VADisplay
/// (vaTerminate and close in deinit). Use from one thread at a time.
public final class VADisplayConnection: @unchecked Sendable {
    let display: VADisplay
    private let fd: Int32
    /// The render node (or, for a display adopted from a test fake, the file behind its fd).
    public let devicePath: String
    /// vaQueryVendorString, the driver's name and version.
    public let vendor: String
    /// The DRM driver behind the node ("i915", "amdgpu", "xe" …); nil when the fd is not a DRM
    /// node (a test fake's file) or the kernel would not say.
    public let drmDriver: String?
    /// libva's API version (1.17 for libva 2.17).
    public let apiVersion: (major: Int, minor: Int)

    /// The render nodes to try, in order: `PUNKTFUNK_VAAPI_DEVICE` alone when set, else every
    /// /dev/dri/renderD* in name order — the ones on the same GPU as `displayNode` (the KMS card
    /// presenting, e.g. /dev/dri/card1) first, so a box with two GPUs decodes where it scans out
    /// and dma-bufs need not cross devices.
    public static func renderNodes(environment: [String: String] = ProcessInfo.processInfo.environment,
                                   preferringDeviceOf displayNode: String? = nil,
                                   sysfsDRM: String = "/sys/class/drm", devDRI: String = "/dev/dri") -> [String] {
        if let pinned = environment["PUNKTFUNK_VAAPI_DEVICE"], !pinned.isEmpty { return [pinned] }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: devDRI)) ?? []).filter { $0.hasPrefix("renderD") }.sorted()
        guard let displayNode, let gpu = parentDevice(of: displayNode, sysfsDRM: sysfsDRM) else {
            return names.map { "\(devDRI)/\($0)" }
        }
        let same = names.filter { parentDevice(of: "\(devDRI)/\($0)", sysfsDRM: sysfsDRM) == gpu }
        return (same + names.filter { !same.contains($0) }).map { "\(devDRI)/\($0)" }
    }

    /// The device (PCI function, platform device …) a DRM node belongs to: the resolved
    /// `<sysfsDRM>/<node name>/device` link; nil when sysfs does not know the node.
    static func parentDevice(of node: String, sysfsDRM: String) -> String? {
        let name = (node as NSString).lastPathComponent
        let link = "\(sysfsDRM)/\(name)/device"
        guard FileManager.default.fileExists(atPath: link) else { return nil }
        return URL(fileURLWithPath: link).resolvingSymlinksInPath().path
    }

    /// Opens `path` (a DRM render node) with libva-drm and initialises the driver libva picks
    /// for it (or `LIBVA_DRIVER_NAME`).
    public static func open(renderNode path: String) throws(VAAPIError) -> VADisplayConnection {
        let fd = Glibc.open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw .deviceOpenFailed(path: path, errno: errno) }
        guard let display = vaGetDisplayDRM(fd) else {
            Glibc.close(fd)
            throw .displayUnavailable(path: path)
        }
        return try VADisplayConnection(display: display, fd: fd, path: path)
    }

    /// The first render node whose driver initialises, trying the display's GPU first.
    public static func openFirst(preferringDeviceOf displayNode: String? = nil) throws(VAAPIError) -> VADisplayConnection {
        var last: VAAPIError = .noRenderNode
        for node in renderNodes(preferringDeviceOf: displayNode) {
            do throws(VAAPIError) { return try open(renderNode: node) } catch { last = error }
        }
        throw last
    }

    /// Takes over a VADisplay made elsewhere (e.g. by a test fake's display constructor) and
    /// the fd behind it; initialises it through libva's loader like `open(renderNode:)`.
    public static func adopt(display: UnsafeMutableRawPointer, fd: Int32, path: String) throws(VAAPIError) -> VADisplayConnection {
        try VADisplayConnection(display: display, fd: fd, path: path)
    }

    private init(display: VADisplay, fd: Int32, path: String) throws(VAAPIError) {
        self.display = display
        self.fd = fd
        devicePath = path
        drmDriver = Self.drmDriverName(fd: fd)
        vaSetInfoCallback(display, nil, nil)  // libva's info lines stay off stderr
        var major: Int32 = 0, minor: Int32 = 0
        let status = vaInitialize(display, &major, &minor)
        guard status == VA_STATUS_SUCCESS else {
            vaTerminate(display)
            Glibc.close(fd)
            throw .call("vaInitialize(\(path))", status: status)
        }
        apiVersion = (Int(major), Int(minor))
        vendor = vaQueryVendorString(display).map { String(cString: $0) } ?? ""
    }

    static func drmDriverName(fd: Int32) -> String? {
        var name = [CChar](repeating: 0, count: 64)
        guard pf_drm_driver_name(fd, &name, name.count) == 0 else { return nil }
        let s = String(cString: name)
        return s.isEmpty ? nil : s
    }

    deinit {
        vaTerminate(display)
        Glibc.close(fd)
    }

    /// The entrypoints the driver offers for `profile` (empty when the profile is unsupported).
    func entrypoints(_ profile: VAProfile) -> [VAEntrypoint] {
        var list = [VAEntrypoint](repeating: VAEntrypoint(0), count: Int(max(1, vaMaxNumEntrypoints(display))))
        var count: Int32 = 0
        guard vaQueryConfigEntrypoints(display, profile, &list, &count) == VA_STATUS_SUCCESS else { return [] }
        return Array(list.prefix(Int(max(0, min(count, Int32(list.count))))))
    }

    /// The profiles the driver lists (vaQueryConfigProfiles).
    func profiles() -> [VAProfile] {
        var list = [VAProfile](repeating: VAProfileNone, count: Int(max(1, vaMaxNumProfiles(display))))
        var count: Int32 = 0
        guard vaQueryConfigProfiles(display, &list, &count) == VA_STATUS_SUCCESS else { return [] }
        return Array(list.prefix(Int(max(0, min(count, Int32(list.count))))))
    }

    /// VAConfigAttribRTFormat for (profile, VLD): the RT formats a config may ask for; 0 if none.
    func rtFormats(_ profile: VAProfile) -> UInt32 {
        var attrib = VAConfigAttrib(type: VAConfigAttribRTFormat, value: 0)
        guard vaGetConfigAttributes(display, profile, VAEntrypointVLD, &attrib, 1) == VA_STATUS_SUCCESS,
              attrib.value != VA_ATTRIB_NOT_SUPPORTED else { return 0 }
        return attrib.value
    }

    /// True when the driver offers `VAEntrypointVLD` for `profile` and the profile's RT format:
    /// the condition for advertising the profile to a host.
    public func canDecode(_ profile: HEVCProfile) -> Bool {
        entrypoints(profile.vaProfile).contains(VAEntrypointVLD) && rtFormats(profile.vaProfile) & profile.rtFormat != 0
    }
}
