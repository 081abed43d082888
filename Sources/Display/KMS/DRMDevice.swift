internal import CDRM
#if canImport(Glibc)
import Glibc
#endif

/// A connector as mode choice and the start-up report need it.
public struct ConnectorInfo: Sendable {
    public var id: UInt32
    /// `<type>-<type_id>`, e.g. `HDMI-A-1`, `Virtual-1` (the kernel's sysfs spelling).
    public var name: String
    public var connected: Bool
    public var modes: [DisplayMode]
    /// Bit i = CRTC index i can drive the connector (union over its encoders).
    public var possibleCRTCs: UInt32
    /// The CRTC currently driving it (0 = none).
    public var currentCRTC: UInt32
}

/// One open DRM primary node, owned: `deinit` closes the fd (which also drops master).
///
/// Invariant after `init`: universal planes and atomic client caps are set, and the process is
/// DRM master (`init` throws otherwise).
public final class DRMDevice {
    public let path: String
    /// The open fd (owned; closed in deinit).
    let fd: Int32
    /// Kernel driver name (`bochs-drm`, `virtio_gpu`, `i915`, …).
    public let driver: String
    /// Resource ids in kernel order (a CRTC's index here is its bit in `possible_crtcs`).
    public private(set) var crtcs: [UInt32] = []
    public private(set) var connectors: [UInt32] = []
    public private(set) var planes: [UInt32] = []
    /// `DRM_CAP_ADDFB2_MODIFIERS`.
    public private(set) var supportsModifiers = false

    /// Opens `path`, sets the client caps and (with `master`) becomes master. Without master the
    /// device can be inspected but not committed to (what `probe` needs beside a compositor).
    public init(path: String, master: Bool = true) throws(KMSError) {
        self.path = path
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw .openFailed(path: path, errno: errno) }
        self.fd = fd  // owned from here; deinit closes it on every throw below
        var name = "unknown"
        if let v = drmGetVersion(fd) {
            if let n = v.pointee.name { name = String(cString: n) }
            drmFreeVersion(v)
        }
        driver = name
        if drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_UNIVERSAL_PLANES), 1) != 0 {
            throw .capabilityRefused("UNIVERSAL_PLANES", errno: errno)
        }
        if drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_ATOMIC), 1) != 0 {
            throw .capabilityRefused("ATOMIC", errno: errno)
        }
        // The first opener of a card node is master already; SET_MASTER then succeeds as a no-op.
        if master, drmSetMaster(fd) != 0 { throw .notMaster(errno: errno) }
        var cap: UInt64 = 0
        if drmGetCap(fd, UInt64(DRM_CAP_ADDFB2_MODIFIERS), &cap) == 0 { supportsModifiers = cap != 0 }
        guard let res = drmModeGetResources(fd) else { throw .ioctl("drmModeGetResources", errno: errno) }
        crtcs = (0..<Int(res.pointee.count_crtcs)).map { res.pointee.crtcs[$0] }
        connectors = (0..<Int(res.pointee.count_connectors)).map { res.pointee.connectors[$0] }
        drmModeFreeResources(res)
        guard let pres = drmModeGetPlaneResources(fd) else { throw .ioctl("drmModeGetPlaneResources", errno: errno) }
        planes = (0..<Int(pres.pointee.count_planes)).map { pres.pointee.planes[$0] }
        drmModeFreePlaneResources(pres)
    }

    deinit { close(fd) }

    /// `/dev/dri/card*` nodes, by number.
    public static func cardNodes() -> [String] {
        guard let dir = opendir("/dev/dri") else { return [] }
        defer { closedir(dir) }
        var numbers: [Int] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix("card"), let n = Int(name.dropFirst(4)) { numbers.append(n) }
        }
        return numbers.sorted().map { "/dev/dri/card\($0)" }
    }

    /// The first card node (by number) with a connected connector that has modes.
    /// - Throws: `.noDevice` listing what was tried.
    public static func openFirstConnected() throws(KMSError) -> DRMDevice {
        let nodes = cardNodes()
        guard !nodes.isEmpty else { throw .noDevice("no /dev/dri/card* node") }
        var tried: [String] = []
        for node in nodes {
            do {
                let device = try DRMDevice(path: node)
                if device.connectors.contains(where: { c in
                    device.connector(c).map { $0.connected && !$0.modes.isEmpty } ?? false
                }) { return device }
                tried.append("\(node): nothing connected")
            } catch {
                tried.append("\(node): \(error)")
            }
        }
        throw .noDevice(tried.joined(separator: "; "))
    }

    // MARK: objects

    /// Reads one connector (nil when the id is gone).
    public func connector(_ id: UInt32) -> ConnectorInfo? {
        guard let c = drmModeGetConnector(fd, id) else { return nil }
        defer { drmModeFreeConnector(c) }
        let typeName = drmModeGetConnectorTypeName(c.pointee.connector_type).map { String(cString: $0) }
            ?? "Unknown\(c.pointee.connector_type)"
        var modes: [DisplayMode] = []
        for i in 0..<Int(c.pointee.count_modes) {
            let m = c.pointee.modes[i]
            modes.append(DisplayMode(
                index: i, width: Int(m.hdisplay), height: Int(m.vdisplay),
                refreshMilliHz: DisplayMode.refreshMilliHz(clockKHz: Int(m.clock), htotal: Int(m.htotal), vtotal: Int(m.vtotal)),
                vrefresh: Int(m.vrefresh), preferred: m.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0,
                interlaced: m.flags & UInt32(DRM_MODE_FLAG_INTERLACE) != 0))
        }
        var possible: UInt32 = 0
        for e in 0..<Int(c.pointee.count_encoders) {
            if let enc = drmModeGetEncoder(fd, c.pointee.encoders[e]) {
                possible |= enc.pointee.possible_crtcs
                drmModeFreeEncoder(enc)
            }
        }
        var current: UInt32 = 0
        if c.pointee.encoder_id != 0, let enc = drmModeGetEncoder(fd, c.pointee.encoder_id) {
            current = enc.pointee.crtc_id
            drmModeFreeEncoder(enc)
        }
        return ConnectorInfo(id: id, name: "\(typeName)-\(c.pointee.connector_type_id)",
                             connected: c.pointee.connection == DRM_MODE_CONNECTED,
                             modes: modes, possibleCRTCs: possible, currentCRTC: current)
    }

    /// Creates a `MODE_ID` blob for mode `index` of a connector. The caller owns the blob id.
    func createModeBlob(connector: UInt32, index: Int) throws(KMSError) -> UInt32 {
        guard let c = drmModeGetConnector(fd, connector) else { throw .ioctl("drmModeGetConnector", errno: errno) }
        defer { drmModeFreeConnector(c) }
        guard index >= 0, index < Int(c.pointee.count_modes) else { throw .noConnector }
        var mode = c.pointee.modes[index]
        var blob: UInt32 = 0
        let rc = withUnsafePointer(to: &mode) { drmModeCreatePropertyBlob(fd, $0, MemoryLayout<drmModeModeInfo>.size, &blob) }
        if rc != 0 { throw .ioctl("drmModeCreatePropertyBlob", errno: -rc > 0 ? -rc : errno) }
        return blob
    }

    func destroyBlob(_ id: UInt32) { _ = drmModeDestroyPropertyBlob(fd, id) }

    /// A blob of our own holding the mode `crtc` scans out now, or nil when it is off. The CRTC's
    /// own MODE_ID blob is freed by the kernel once a commit of ours replaces it, so restoring
    /// the start-up state needs this copy.
    func createBlobForCurrentMode(crtc: UInt32) -> UInt32? {
        guard let c = drmModeGetCrtc(fd, crtc) else { return nil }
        defer { drmModeFreeCrtc(c) }
        guard c.pointee.mode_valid != 0 else { return nil }
        var mode = c.pointee.mode
        var blob: UInt32 = 0
        let rc = withUnsafePointer(to: &mode) { drmModeCreatePropertyBlob(fd, $0, MemoryLayout<drmModeModeInfo>.size, &blob) }
        return rc == 0 ? blob : nil
    }

    /// Reads one plane's scan-out description.
    public func plane(_ id: UInt32) -> PlaneDescription? {
        guard let p = drmModeGetPlane(fd, id) else { return nil }
        defer { drmModeFreePlane(p) }
        let props = properties(of: id, type: UInt32(DRM_MODE_OBJECT_PLANE))
        let kind: PlaneDescription.Kind
        switch props["type"]?.value {
        case UInt64(DRM_PLANE_TYPE_PRIMARY): kind = .primary
        case UInt64(DRM_PLANE_TYPE_CURSOR): kind = .cursor
        default: kind = .overlay
        }
        var formats: [FourCC: [UInt64]] = [:]
        if let blobId = props["IN_FORMATS"]?.value, let bytes = blob(blobId), let parsed = FormatModifierBlob.parse(bytes) {
            formats = parsed
        }
        // Formats without an IN_FORMATS entry (or no blob at all) scan out linear.
        for i in 0..<Int(p.pointee.count_formats) {
            let f = FourCC(rawValue: p.pointee.formats[i])
            if formats[f, default: []].isEmpty { formats[f] = [FormatModifier.linear] }
        }
        var zpos: PlaneDescription.ZPos?
        if let z = props["zpos"] {
            zpos = .init(value: z.value, min: z.range?.lowerBound ?? z.value, max: z.range?.upperBound ?? z.value,
                         immutable: z.immutable)
        }
        return PlaneDescription(id: id, kind: kind, possibleCRTCs: p.pointee.possible_crtcs, formats: formats,
                                zpos: zpos,
                                colorEncodings: props["COLOR_ENCODING"].map { Array($0.enums.keys).sorted() } ?? [],
                                colorRanges: props["COLOR_RANGE"].map { Array($0.enums.keys).sorted() } ?? [])
    }

    func planeProperties(_ id: UInt32) -> ObjectProperties { properties(of: id, type: UInt32(DRM_MODE_OBJECT_PLANE)) }
    func crtcProperties(_ id: UInt32) -> ObjectProperties { properties(of: id, type: UInt32(DRM_MODE_OBJECT_CRTC)) }
    func connectorProperties(_ id: UInt32) -> ObjectProperties { properties(of: id, type: UInt32(DRM_MODE_OBJECT_CONNECTOR)) }

    /// A `DRM_CAP_*` value (nil when the kernel does not know it).
    public func capability(_ cap: UInt64) -> UInt64? {
        var v: UInt64 = 0
        return drmGetCap(fd, cap, &v) == 0 ? v : nil
    }

    // MARK: master

    /// Gives up master (VT switch away). Commits fail with EACCES until `acquireMaster`.
    func dropMaster() { _ = drmDropMaster(fd) }

    func acquireMaster() throws(KMSError) {
        if drmSetMaster(fd) != 0 { throw .notMaster(errno: errno) }
    }

    // MARK: events

    /// Reads pending DRM events into `buffer` (non-blocking poll first is the caller's job).
    /// - Returns: bytes read (0 when nothing was pending).
    func readEvents(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let n = read(fd, buffer.baseAddress, buffer.count)
        return n > 0 ? n : 0
    }
}
