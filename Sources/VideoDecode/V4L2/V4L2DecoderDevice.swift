internal import CV4L2
import Foundation

/// A V4L2 stateless HEVC decoder: a memory-to-memory video node whose OUTPUT queue takes
/// `V4L2_PIX_FMT_HEVC_SLICE` ('S265'), with the media device its requests are allocated on, and
/// what the driver offers (read once, when found).
public struct V4L2DecoderDevice: Sendable, Equatable, Encodable {
    /// HEVC decoding modes (V4L2_CID_STATELESS_HEVC_DECODE_MODE).
    public enum DecodeMode: Int32, Sendable, Equatable, Encodable {
        /// One slice per OUTPUT buffer and request.
        case sliceBased = 0
        /// Every slice of a picture in one OUTPUT buffer and request.
        case frameBased = 1

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            try c.encode(self == .sliceBased ? "slice-based" : "frame-based")
        }
    }

    /// Slice start codes (V4L2_CID_STATELESS_HEVC_START_CODE).
    public enum StartCode: Int32, Sendable, Equatable, Encodable {
        case none = 0
        /// Each slice prefixed with 00 00 01.
        case annexB = 1

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            try c.encode(self == .none ? "none" : "annex-b")
        }
    }

    public var mediaPath: String
    public var videoPath: String
    /// VIDIOC_QUERYCAP driver, card and bus.
    public var driver: String
    public var card: String
    public var busInfo: String
    /// The multi-planar buffer API (VIDEO_M2M_MPLANE) rather than the single-planar one.
    public var multiPlanar: Bool
    /// Decode modes and start codes the driver's menus offer, and the ones it starts with.
    public var decodeModes: [DecodeMode]
    public var startCodes: [StartCode]
    public var defaultDecodeMode: DecodeMode
    public var defaultStartCode: StartCode
    /// Optional controls the driver has.
    public var hasSliceParams: Bool
    public var hasScalingMatrix: Bool
    public var hasEntryPointOffsets: Bool
    /// Largest coded size for 'S265' (VIDIOC_ENUM_FRAMESIZES), nil when the driver does not say.
    public var maxWidth: Int?
    public var maxHeight: Int?
    /// CAPTURE formats (V4L2 fourccs as text) for an 8-bit and a 10-bit SPS.
    public var captureFormats8Bit: [String]
    public var captureFormats10Bit: [String]

    /// A virtual test driver (visl): it accepts and traces the controls but draws test patterns
    /// instead of decoding. Never chosen automatically.
    public var isVirtual: Bool { Self.virtualDrivers.contains(driver) }
    static let virtualDrivers: Set<String> = ["visl"]

    /// Can decode HEVC Main / Main10 into a format the kiosk hands to the display.
    public var decodesMain: Bool { CaptureFormat.choose(captureFormats8Bit.compactMap(fourcc), bitDepth: 8) != nil }
    public var decodesMain10: Bool { CaptureFormat.choose(captureFormats10Bit.compactMap(fourcc), bitDepth: 10) != nil }

    private func fourcc(_ text: String) -> UInt32? { V4L2FourCC.value(text) }
}

/// Finding V4L2 stateless HEVC decoders through the media controller.
public enum V4L2Decoders {
    /// One media device that did not yield a decoder, and why (for `probe` and `check`).
    public struct Skipped: Sendable, Equatable, Encodable {
        public var path: String
        public var reason: String
    }

    /// Every `/dev/media*` whose topology has a V4L video interface that is an HEVC stateless
    /// decoder, in path order; media devices that could not be read are in `skipped`.
    public static func scan(devDirectory: String = "/dev") -> (devices: [V4L2DecoderDevice], skipped: [Skipped]) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: devDirectory)) ?? [])
            .filter { $0.hasPrefix("media") && Int($0.dropFirst(5)) != nil }
            .sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }
        var devices: [V4L2DecoderDevice] = []
        var skipped: [Skipped] = []
        for name in names {
            let media = "\(devDirectory)/\(name)"
            let videos: [String]
            do { videos = try videoNodes(media: media) } catch {
                skipped.append(Skipped(path: media, reason: error.description))
                continue
            }
            var found = false
            for video in videos {
                if let d = try? describe(video: video, media: media) {
                    devices.append(d)
                    found = true
                }
            }
            if !found { skipped.append(Skipped(path: media, reason: "no HEVC stateless decoder among \(videos.isEmpty ? "its (no) video nodes" : videos.joined(separator: ", "))")) }
        }
        return (devices, skipped)
    }

    /// The device the ladder uses: `path` (a video node, any driver) when given, else the one the
    /// environment's PUNKTFUNK_V4L2_DEVICE names, else the first decoder found that is not a
    /// virtual test driver.
    public static func choose(path: String? = nil) throws(V4L2Error) -> V4L2DecoderDevice {
        let path = path ?? ProcessInfo.processInfo.environment["PUNKTFUNK_V4L2_DEVICE"].flatMap { $0.isEmpty ? nil : $0 }
        let (devices, skipped) = scan()
        if let path {
            if let d = devices.first(where: { $0.videoPath == path }) { return d }
            throw .noDecoder("\(path) is not an HEVC stateless decoder (found: \(devices.map(\.videoPath).joined(separator: ", ")))")
        }
        if let d = devices.first(where: { !$0.isVirtual }) { return d }
        if let v = devices.first { throw .noDecoder("only \(v.driver) (\(v.videoPath)), the kernel's virtual test decoder, which draws test patterns") }
        if skipped.isEmpty { throw .noDecoder("no media controller device (/dev/media*)") }
        throw .noDecoder(skipped.map { "\($0.path): \($0.reason)" }.joined(separator: "; "))
    }

    /// The /dev/video* nodes of a media device's V4L video interfaces (MEDIA_IOC_G_TOPOLOGY,
    /// devnode major:minor resolved through /sys/dev/char).
    static func videoNodes(media: String) throws(V4L2Error) -> [String] {
        let fd = pf_v4l2_open(media)
        guard fd >= 0 else { throw .device("open \(media)", errno: -fd) }
        defer { close(fd) }
        var ne: UInt32 = 0, ni: UInt32 = 0, nl: UInt32 = 0
        try v4l2Check(pf_media_topology(fd, nil, &ne, nil, &ni, nil, &nl), "MEDIA_IOC_G_TOPOLOGY \(media)")
        var interfaces = [media_v2_interface](repeating: media_v2_interface(), count: Int(ni))
        var n0: UInt32 = 0, l0: UInt32 = 0
        try v4l2Check(interfaces.withUnsafeMutableBufferPointer { pf_media_topology(fd, nil, &n0, $0.baseAddress, &ni, nil, &l0) },
                      "MEDIA_IOC_G_TOPOLOGY \(media)")
        return interfaces.prefix(Int(ni)).filter { $0.intf_type == UInt32(MEDIA_INTF_T_V4L_VIDEO) }.compactMap { i in
            devicePath(major: i.devnode.major, minor: i.devnode.minor)
        }
    }

    /// /dev/<DEVNAME> of a character device, from /sys/dev/char/MAJ:MIN/uevent.
    static func devicePath(major: UInt32, minor: UInt32) -> String? {
        guard let text = try? String(contentsOfFile: "/sys/dev/char/\(major):\(minor)/uevent", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("DEVNAME=") {
            return "/dev/" + line.dropFirst("DEVNAME=".count)
        }
        return nil
    }

    /// Opens `video` and reads what it offers; throws unless it is an HEVC stateless decoder.
    static func describe(video: String, media: String) throws(V4L2Error) -> V4L2DecoderDevice {
        let fd = pf_v4l2_open(video)
        guard fd >= 0 else { throw .device("open \(video)", errno: -fd) }
        defer { close(fd) }
        var cap = v4l2_capability()
        try v4l2Check(pf_v4l2_querycap(fd, &cap), "VIDIOC_QUERYCAP \(video)")
        let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
        let multiPlanar: Bool
        if caps & UInt32(V4L2_CAP_VIDEO_M2M_MPLANE) != 0 { multiPlanar = true }
        else if caps & UInt32(V4L2_CAP_VIDEO_M2M) != 0 { multiPlanar = false }
        else { throw .unsupportedStream("\(video) is not a memory-to-memory device") }
        guard caps & UInt32(V4L2_CAP_STREAMING) != 0 else { throw .unsupportedStream("\(video) has no streaming I/O") }
        let types = BufferTypes(multiPlanar: multiPlanar)
        guard enumerateFormats(fd, type: types.output).contains(V4L2FourCC.hevcSlice) else {
            throw .unsupportedStream("\(video) takes no 'S265' on its OUTPUT queue")
        }
        func menu(_ id: Int32) -> (items: [Int32], current: Int32?) {
            var q = v4l2_query_ext_ctrl()
            guard pf_v4l2_query_ext_ctrl(fd, UInt32(id), &q) == 0 else { return ([], nil) }
            let items = (q.minimum...max(q.minimum, q.maximum)).filter { pf_v4l2_querymenu(fd, UInt32(id), UInt32($0)) == 0 }.map { Int32($0) }
            var value: Int32 = 0
            return (items, pf_v4l2_get_control(fd, UInt32(id), &value) == 0 ? value : nil)
        }
        func has(_ id: Int32) -> Bool {
            var q = v4l2_query_ext_ctrl()
            return pf_v4l2_query_ext_ctrl(fd, UInt32(id), &q) == 0
        }
        let modes = menu(V4L2_CID_STATELESS_HEVC_DECODE_MODE)
        let codes = menu(V4L2_CID_STATELESS_HEVC_START_CODE)
        let decodeModes = modes.items.compactMap(V4L2DecoderDevice.DecodeMode.init(rawValue:))
        let startCodes = codes.items.compactMap(V4L2DecoderDevice.StartCode.init(rawValue:))
        guard !decodeModes.isEmpty, !startCodes.isEmpty, has(V4L2_CID_STATELESS_HEVC_SPS), has(V4L2_CID_STATELESS_HEVC_PPS),
              has(V4L2_CID_STATELESS_HEVC_DECODE_PARAMS) else {
            throw .unsupportedStream("\(video) lacks the HEVC stateless controls (SPS, PPS, DECODE_PARAMS, DECODE_MODE, START_CODE)")
        }
        var sizes = v4l2_frmsizeenum()
        sizes.pixel_format = V4L2FourCC.hevcSlice
        var maxSize: (Int, Int)?
        if pf_v4l2_enum_framesizes(fd, &sizes) == 0 {
            switch sizes.type {
            case V4L2_FRMSIZE_TYPE_DISCRETE.rawValue: maxSize = (Int(sizes.discrete.width), Int(sizes.discrete.height))
            default: maxSize = (Int(sizes.stepwise.max_width), Int(sizes.stepwise.max_height))
            }
        }
        let formats8 = captureFormats(fd, types: types, bitDepth: 8)
        let formats10 = captureFormats(fd, types: types, bitDepth: 10)
        return V4L2DecoderDevice(
            mediaPath: media, videoPath: video, driver: cString(cap.driver), card: cString(cap.card),
            busInfo: cString(cap.bus_info), multiPlanar: multiPlanar, decodeModes: decodeModes, startCodes: startCodes,
            defaultDecodeMode: modes.current.flatMap(V4L2DecoderDevice.DecodeMode.init(rawValue:)) ?? decodeModes[0],
            defaultStartCode: codes.current.flatMap(V4L2DecoderDevice.StartCode.init(rawValue:)) ?? startCodes[0],
            hasSliceParams: has(V4L2_CID_STATELESS_HEVC_SLICE_PARAMS), hasScalingMatrix: has(V4L2_CID_STATELESS_HEVC_SCALING_MATRIX),
            hasEntryPointOffsets: has(V4L2_CID_STATELESS_HEVC_ENTRY_POINT_OFFSETS),
            maxWidth: maxSize?.0, maxHeight: maxSize?.1,
            captureFormats8Bit: formats8.map(V4L2FourCC.text), captureFormats10Bit: formats10.map(V4L2FourCC.text))
    }

    /// The CAPTURE formats offered once the OUTPUT queue takes 'S265' at 1280x720 and the SPS
    /// control says `bitDepth` (the stateless decoder interface: the SPS decides them). Changes
    /// only this file handle's state.
    static func captureFormats(_ fd: Int32, types: BufferTypes, bitDepth: Int) -> [UInt32] {
        var f = v4l2_format()
        types.setCodedFormat(&f, width: 1280, height: 720, sizeImage: 1 << 20)
        guard pf_v4l2_s_fmt(fd, &f) == 0 else { return [] }
        var sps = v4l2_ctrl_hevc_sps()
        sps.pic_width_in_luma_samples = 1280
        sps.pic_height_in_luma_samples = 720
        sps.bit_depth_luma_minus8 = UInt8(bitDepth - 8)
        sps.bit_depth_chroma_minus8 = UInt8(bitDepth - 8)
        sps.chroma_format_idc = 1
        sps.log2_diff_max_min_luma_coding_block_size = 3
        sps.log2_diff_max_min_luma_transform_block_size = 3
        var ids = [UInt32(V4L2_CID_STATELESS_HEVC_SPS)], sizes = [UInt32(MemoryLayout<v4l2_ctrl_hevc_sps>.size)]
        var errorIndex: UInt32 = 0
        let set = withUnsafeMutablePointer(to: &sps) { p in
            var values: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(p)]
            return pf_v4l2_set_compound_controls(fd, -1, 1, &ids, &sizes, &values, &errorIndex)
        }
        guard set == 0 else { return bitDepth == 8 ? enumerateFormats(fd, type: types.capture) : [] }
        return enumerateFormats(fd, type: types.capture)
    }

    static func enumerateFormats(_ fd: Int32, type: UInt32) -> [UInt32] {
        var out: [UInt32] = []
        for index in 0..<64 {
            var d = v4l2_fmtdesc()
            d.type = type
            d.index = UInt32(index)
            guard pf_v4l2_enum_fmt(fd, &d) == 0 else { break }
            out.append(d.pixelformat)
        }
        return out
    }

    static func cString<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// The OUTPUT and CAPTURE buffer types of a memory-to-memory device, single- or multi-planar.
struct BufferTypes: Sendable {
    let multiPlanar: Bool
    var output: UInt32 { (multiPlanar ? V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE : V4L2_BUF_TYPE_VIDEO_OUTPUT).rawValue }
    var capture: UInt32 { (multiPlanar ? V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE : V4L2_BUF_TYPE_VIDEO_CAPTURE).rawValue }

    /// The OUTPUT format: 'S265' of the coded size, one plane of `sizeImage` bytes.
    func setCodedFormat(_ f: inout v4l2_format, width: Int, height: Int, sizeImage: Int) {
        f = v4l2_format()
        f.type = output
        if multiPlanar {
            f.fmt.pix_mp.pixelformat = V4L2FourCC.hevcSlice
            f.fmt.pix_mp.width = UInt32(width)
            f.fmt.pix_mp.height = UInt32(height)
            f.fmt.pix_mp.num_planes = 1
            withUnsafeMutableBytes(of: &f.fmt.pix_mp.plane_fmt) { raw in
                raw.bindMemory(to: v4l2_plane_pix_format.self)[0].sizeimage = UInt32(sizeImage)
            }
        } else {
            f.fmt.pix.pixelformat = V4L2FourCC.hevcSlice
            f.fmt.pix.width = UInt32(width)
            f.fmt.pix.height = UInt32(height)
            f.fmt.pix.sizeimage = UInt32(sizeImage)
        }
    }
}

/// V4L2 pixel format codes (v4l2_fourcc: four ASCII bytes, little-endian).
enum V4L2FourCC {
    static let hevcSlice = code("S265")
    static let nv12 = code("NV12")
    static let nv12m = code("NM12")
    static let p010 = code("P010")
    /// The Raspberry Pi's 128-byte column formats (V4L2_PIX_FMT_NV12_COL128 / _10_COL128).
    static let nv12Col128 = code("NC12")
    static let nv12Col128TenBit = code("NC30")

    static func code(_ s: String) -> UInt32 {
        let b = Array(s.utf8)
        return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
    }

    static func text(_ v: UInt32) -> String {
        String(decoding: (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) }, as: UTF8.self)
    }

    static func value(_ s: String) -> UInt32? { s.utf8.count == 4 ? code(s) : nil }
}
