internal import CV4L2
import Foundation
import HEVC
import VideoFrames

/// One decode session on a V4L2 stateless decoder: an open video node (its own m2m context), the
/// OUTPUT format 'S265' at the coded size, the CAPTURE format chosen for the bit depth, MMAP
/// OUTPUT buffers (bitstream, written by us) each with its own media request, and MMAP CAPTURE
/// buffers exported once as dma-bufs (one per planner surface: buffer index = SurfaceID).
///
/// Lifetime: a format change opens a new session; the old one stays open until the display has
/// returned every picture of it (its exported memory stays valid either way).
final class V4L2Session {
    struct OutputBuffer {
        var index: UInt32
        var memory: UnsafeMutableRawPointer
        var length: Int
        var request: Int32
        /// Queued with its request and not yet dequeued.
        var inFlight = false
    }

    struct CaptureBuffer {
        /// Exported dma-buf fd and size per V4L2 plane (kept open for the session).
        var fds: [Int32]
        var sizes: [UInt32]
    }

    let device: V4L2DecoderDevice
    let types: BufferTypes
    let fd: Int32
    let mediaFd: Int32
    let generation: Int
    let width: Int, height: Int
    let mode: V4L2DecoderDevice.DecodeMode
    let startCode: V4L2DecoderDevice.StartCode
    // Set once while the session opens (defaults only until then).
    private(set) var format = CaptureFormat.known[0]
    /// CAPTURE height in lines and bytes per line of each V4L2 plane (the driver's alignment).
    private(set) var captureHeight = 0
    private(set) var bytesPerLine: [UInt32] = []
    /// The driver keeps a CAPTURE buffer across OUTPUT buffers of one picture (several slices per
    /// picture in slice-based mode need it).
    private(set) var holdsCapture = false
    private(set) var outputs: [OutputBuffer] = []
    private(set) var captures: [CaptureBuffer] = []
    /// The CAPTURE timestamp (ns) each surface was last decoded with: how the DPB names it.
    var timestamps: [SurfaceID: UInt64] = [:]
    var info: [SurfaceID: PictureInfo] = [:]
    /// Leases handed out and not yet returned.
    var outstanding = 0
    private var closed = false

    /// Opens and configures the session.
    /// - Parameters:
    ///   - sps: the SPS control, set before the CAPTURE format is chosen (it decides the formats).
    ///   - anyCaptureFormat: accept the driver's first NV12 layout whatever the bit depth (a
    ///     virtual test driver, whose pictures are test patterns anyway).
    init(device: V4L2DecoderDevice, width: Int, height: Int, bitDepth: Int, sps: v4l2_ctrl_hevc_sps,
         captureBuffers: Int, outputBuffers: Int, generation: Int, anyCaptureFormat: Bool) throws(V4L2Error) {
        self.device = device
        types = BufferTypes(multiPlanar: device.multiPlanar)
        self.width = width
        self.height = height
        self.generation = generation
        mode = device.defaultDecodeMode
        startCode = device.defaultStartCode
        if let w = device.maxWidth, let h = device.maxHeight, width > w || height > h {
            throw .unsupportedStream("\(width)x\(height) exceeds the driver's \(w)x\(h)")
        }
        let fd = pf_v4l2_open(device.videoPath)
        guard fd >= 0 else { throw .device("open \(device.videoPath)", errno: -fd) }
        let mediaFd = pf_v4l2_open(device.mediaPath)
        guard mediaFd >= 0 else {
            close(fd)
            throw .device("open \(device.mediaPath)", errno: -mediaFd)
        }
        self.fd = fd
        self.mediaFd = mediaFd
        var opened = false
        defer { if !opened { closeAll() } }

        var f = v4l2_format()
        types.setCodedFormat(&f, width: width, height: height, sizeImage: max(1 << 20, width * height * 3 / 2))
        try v4l2Check(pf_v4l2_s_fmt(fd, &f), "VIDIOC_S_FMT(OUTPUT 'S265' \(width)x\(height))")
        // The uAPI wants both menus set by the application; the driver's own choice is kept.
        try v4l2Check(pf_v4l2_set_control(fd, UInt32(V4L2_CID_STATELESS_HEVC_DECODE_MODE), mode.rawValue), "DECODE_MODE")
        try v4l2Check(pf_v4l2_set_control(fd, UInt32(V4L2_CID_STATELESS_HEVC_START_CODE), startCode.rawValue), "START_CODE")
        var spsValue = sps
        try V4L2Session.setControls(fd, request: -1, [.init(id: V4L2_CID_STATELESS_HEVC_SPS, name: "SPS", value: &spsValue)])

        let offered = V4L2Decoders.enumerateFormats(fd, type: types.capture)
        guard let chosen = CaptureFormat.choose(offered, bitDepth: bitDepth)
            ?? (anyCaptureFormat ? CaptureFormat.known.first(where: { $0.pixelFormat == .nv12 && offered.contains($0.v4l2) }) : nil) else {
            throw .unsupportedStream("\(device.driver) offers no display format for \(bitDepth)-bit pictures (CAPTURE: "
                                     + offered.map(V4L2FourCC.text).joined(separator: ", ") + ")")
        }
        format = chosen
        var c = v4l2_format()
        c.type = types.capture
        if types.multiPlanar {
            c.fmt.pix_mp.pixelformat = chosen.v4l2
            c.fmt.pix_mp.width = UInt32(width)
            c.fmt.pix_mp.height = UInt32(height)
        } else {
            c.fmt.pix.pixelformat = chosen.v4l2
            c.fmt.pix.width = UInt32(width)
            c.fmt.pix.height = UInt32(height)
        }
        try v4l2Check(pf_v4l2_s_fmt(fd, &c), "VIDIOC_S_FMT(CAPTURE '\(V4L2FourCC.text(chosen.v4l2))')")
        try v4l2Check(pf_v4l2_g_fmt(fd, &c), "VIDIOC_G_FMT(CAPTURE)")
        let gotFormat = types.multiPlanar ? c.fmt.pix_mp.pixelformat : c.fmt.pix.pixelformat
        guard gotFormat == chosen.v4l2 else {
            throw .unsupportedStream("the driver switched CAPTURE to '\(V4L2FourCC.text(gotFormat))'")
        }
        if types.multiPlanar {
            let planes = Int(c.fmt.pix_mp.num_planes)
            captureHeight = Int(c.fmt.pix_mp.height)
            bytesPerLine = withUnsafeBytes(of: c.fmt.pix_mp.plane_fmt) { raw in
                raw.bindMemory(to: v4l2_plane_pix_format.self).prefix(max(1, min(planes, 2))).map(\.bytesperline)
            }
        } else {
            captureHeight = Int(c.fmt.pix.height)
            bytesPerLine = [c.fmt.pix.bytesperline]
        }
        guard captureHeight >= height, bytesPerLine.allSatisfy({ $0 > 0 }) else {
            throw .unsupportedStream("CAPTURE format \(bytesPerLine) bytes per line, \(captureHeight) lines for \(width)x\(height)")
        }

        // OUTPUT: MMAP buffers, each with its own request.
        var req = v4l2_requestbuffers()
        req.count = UInt32(outputBuffers)
        req.type = types.output
        req.memory = V4L2_MEMORY_MMAP.rawValue
        try v4l2Check(pf_v4l2_reqbufs(fd, &req), "VIDIOC_REQBUFS(OUTPUT, \(outputBuffers))")
        guard req.capabilities & UInt32(V4L2_BUF_CAP_SUPPORTS_REQUESTS) != 0 else {
            throw .unsupportedStream("the OUTPUT queue does not support requests")
        }
        holdsCapture = req.capabilities & UInt32(V4L2_BUF_CAP_SUPPORTS_M2M_HOLD_CAPTURE_BUF) != 0
        guard req.count > 0 else { throw .unsupportedStream("the driver gave no OUTPUT buffers") }
        for index in 0..<req.count {
            var planes = [v4l2_plane](repeating: v4l2_plane(), count: 1)
            var b = v4l2_buffer()
            b.type = types.output
            b.memory = V4L2_MEMORY_MMAP.rawValue
            b.index = index
            let (offset, length): (UInt32, UInt32) = try planes.withUnsafeMutableBufferPointer { (p) throws(V4L2Error) -> (UInt32, UInt32) in
                if types.multiPlanar { b.m.planes = p.baseAddress; b.length = 1 }
                try v4l2Check(pf_v4l2_querybuf(fd, &b), "VIDIOC_QUERYBUF(OUTPUT \(index))")
                return types.multiPlanar ? (p[0].m.mem_offset, p[0].length) : (b.m.offset, b.length)
            }
            guard let memory = mmap(nil, Int(length), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset)), memory != MAP_FAILED else {
                throw .ioctl("mmap(OUTPUT \(index))", errno: errno)
            }
            let request = pf_media_request_alloc(mediaFd)
            guard request >= 0 else {
                munmap(memory, Int(length))
                throw .ioctl("MEDIA_IOC_REQUEST_ALLOC", errno: -request)
            }
            outputs.append(OutputBuffer(index: index, memory: memory, length: Int(length), request: request))
        }

        // CAPTURE: MMAP buffers, exported.
        var creq = v4l2_requestbuffers()
        creq.count = UInt32(captureBuffers)
        creq.type = types.capture
        creq.memory = V4L2_MEMORY_MMAP.rawValue
        try v4l2Check(pf_v4l2_reqbufs(fd, &creq), "VIDIOC_REQBUFS(CAPTURE, \(captureBuffers))")
        guard creq.count >= UInt32(captureBuffers) else {
            throw .unsupportedStream("the driver gave \(creq.count) CAPTURE buffers, the stream needs \(captureBuffers)")
        }
        let planeCount = types.multiPlanar ? (chosen.separatePlanes ? 2 : 1) : 1
        for index in 0..<UInt32(captureBuffers) {
            var planes = [v4l2_plane](repeating: v4l2_plane(), count: planeCount)
            var b = v4l2_buffer()
            b.type = types.capture
            b.memory = V4L2_MEMORY_MMAP.rawValue
            b.index = index
            let sizes: [UInt32] = try planes.withUnsafeMutableBufferPointer { (p) throws(V4L2Error) -> [UInt32] in
                if types.multiPlanar { b.m.planes = p.baseAddress; b.length = UInt32(planeCount) }
                try v4l2Check(pf_v4l2_querybuf(fd, &b), "VIDIOC_QUERYBUF(CAPTURE \(index))")
                return types.multiPlanar ? p.map(\.length) : [b.length]
            }
            var fds: [Int32] = []
            for plane in 0..<planeCount {
                let e = pf_v4l2_expbuf(fd, types.capture, index, UInt32(plane))
                guard e >= 0 else {
                    for f in fds { close(f) }
                    throw .ioctl("VIDIOC_EXPBUF(CAPTURE \(index) plane \(plane))", errno: -e)
                }
                fds.append(e)
            }
            captures.append(CaptureBuffer(fds: fds, sizes: sizes))
        }
        try v4l2Check(pf_v4l2_streamon(fd, types.output), "VIDIOC_STREAMON(OUTPUT)")
        try v4l2Check(pf_v4l2_streamon(fd, types.capture), "VIDIOC_STREAMON(CAPTURE)")
        opened = true
    }

    deinit { closeAll() }

    /// Unmaps, closes every fd; the device frees its buffers once exported ones are released.
    func closeAll() {
        guard !closed else { return }
        closed = true
        _ = pf_v4l2_streamoff(fd, types.output)
        _ = pf_v4l2_streamoff(fd, types.capture)
        for o in outputs {
            munmap(o.memory, o.length)
            close(o.request)
        }
        for c in captures { for f in c.fds { close(f) } }
        outputs = []
        captures = []
        close(mediaFd)
        close(fd)
    }

    var captureCount: Int { captures.count }
    /// Bytes of each V4L2 plane of CAPTURE buffer `index`.
    func planeSizes(_ index: Int) -> [UInt32] { captures[index].sizes }

    // MARK: - Controls

    /// One compound control value for VIDIOC_S_EXT_CTRLS.
    struct Control {
        var id: UInt32
        var name: String
        var size: UInt32
        var pointer: UnsafeMutableRawPointer
        init<T>(id: Int32, name: String, value: UnsafeMutablePointer<T>) {
            self.id = UInt32(id); self.name = name; size = UInt32(MemoryLayout<T>.stride); pointer = UnsafeMutableRawPointer(value)
        }
        init(id: Int32, name: String, bytes: UnsafeMutableRawBufferPointer) {
            self.id = UInt32(id); self.name = name; size = UInt32(bytes.count); pointer = bytes.baseAddress!
        }
    }

    /// Sets `controls` in `request` (or now with request -1). A refusal names the control the
    /// kernel blamed.
    static func setControls(_ fd: Int32, request: Int32, _ controls: [Control]) throws(V4L2Error) {
        var ids = controls.map(\.id), sizes = controls.map(\.size)
        var values: [UnsafeMutableRawPointer?] = controls.map(\.pointer)
        var errorIndex: UInt32 = 0
        let r = pf_v4l2_set_compound_controls(fd, request, UInt32(controls.count), &ids, &sizes, &values, &errorIndex)
        if r < 0 {
            let blamed = Int(errorIndex) < controls.count ? controls[Int(errorIndex)].name : controls.map(\.name).joined(separator: "+")
            throw .controlsRefused("the HEVC \(blamed) control\(request >= 0 ? " in a request" : "")", errno: -r)
        }
    }

    // MARK: - Buffers

    /// Index into `outputs` of a buffer free for writing, waiting for the oldest in flight when
    /// every buffer is busy.
    func freeOutput(timeoutMs: Int32) throws(V4L2Error) -> Int {
        if let i = outputs.firstIndex(where: { !$0.inFlight }) { return i }
        try completeOldestOutput(timeoutMs: timeoutMs)
        guard let i = outputs.firstIndex(where: { !$0.inFlight }) else { throw .decodeFailed("no OUTPUT buffer came back") }
        return i
    }

    /// The order OUTPUT buffers were queued in (dequeued in the same order).
    private var queuedOrder: [Int] = []

    /// Copies `bytes` (already laid out with start codes as the driver wants) into OUTPUT buffer
    /// `k`, sets `controls` in its request, queues the buffer and the request.
    func queue(output k: Int, bytes: [UInt8], controls: [Control], timestampMicros: UInt64, holdCapture: Bool) throws(V4L2Error) {
        guard bytes.count <= outputs[k].length else {
            throw .decodeFailed("\(bytes.count) bytes of slice data exceed the \(outputs[k].length)-byte OUTPUT buffer")
        }
        bytes.withUnsafeBytes { outputs[k].memory.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        let request = outputs[k].request
        do throws(V4L2Error) {
            try Self.setControls(fd, request: request, controls)
            var planes = [v4l2_plane](repeating: v4l2_plane(), count: 1)
            var b = v4l2_buffer()
            b.type = types.output
            b.memory = V4L2_MEMORY_MMAP.rawValue
            b.index = outputs[k].index
            b.flags = UInt32(V4L2_BUF_FLAG_REQUEST_FD) | (holdCapture ? UInt32(V4L2_BUF_FLAG_M2M_HOLD_CAPTURE_BUF) : 0)
            b.request_fd = request
            b.timestamp.tv_sec = Int(timestampMicros / 1_000_000)
            b.timestamp.tv_usec = Int(timestampMicros % 1_000_000)
            try planes.withUnsafeMutableBufferPointer { (p) throws(V4L2Error) in
                if types.multiPlanar {
                    p[0].bytesused = UInt32(bytes.count)
                    p[0].length = UInt32(outputs[k].length)
                    b.m.planes = p.baseAddress
                    b.length = 1
                } else {
                    b.bytesused = UInt32(bytes.count)
                    b.length = UInt32(outputs[k].length)
                }
                try v4l2Check(pf_v4l2_qbuf(fd, &b), "VIDIOC_QBUF(OUTPUT \(b.index), request)")
            }
            try v4l2Check(pf_media_request_queue(request), "MEDIA_REQUEST_IOC_QUEUE")
        } catch {
            _ = pf_media_request_reinit(request)
            throw error
        }
        outputs[k].inFlight = true
        queuedOrder.append(k)
    }

    /// Queues CAPTURE buffer `index` (the picture's target).
    func queueCapture(_ index: Int) throws(V4L2Error) {
        let planeCount = captures[index].fds.count
        var planes = [v4l2_plane](repeating: v4l2_plane(), count: planeCount)
        var b = v4l2_buffer()
        b.type = types.capture
        b.memory = V4L2_MEMORY_MMAP.rawValue
        b.index = UInt32(index)
        try planes.withUnsafeMutableBufferPointer { (p) throws(V4L2Error) in
            if types.multiPlanar { b.m.planes = p.baseAddress; b.length = UInt32(planeCount) }
            try v4l2Check(pf_v4l2_qbuf(fd, &b), "VIDIOC_QBUF(CAPTURE \(index))")
        }
    }

    /// Waits for the oldest queued request, dequeues its OUTPUT buffer and readies the request
    /// for reuse.
    func completeOldestOutput(timeoutMs: Int32) throws(V4L2Error) {
        guard let k = queuedOrder.first else { return }
        let request = outputs[k].request
        let r = pf_v4l2_poll(request, Int16(POLLPRI), timeoutMs)
        if r < 0 { throw .ioctl("poll(request)", errno: -r) }
        if r == 0 { throw .decodeFailed("the driver did not finish a request within \(timeoutMs) ms") }
        var planes = [v4l2_plane](repeating: v4l2_plane(), count: 1)
        var b = v4l2_buffer()
        b.type = types.output
        b.memory = V4L2_MEMORY_MMAP.rawValue
        try planes.withUnsafeMutableBufferPointer { (p) throws(V4L2Error) in
            if types.multiPlanar { b.m.planes = p.baseAddress; b.length = 1 }
            try v4l2Check(pf_v4l2_dqbuf(fd, &b), "VIDIOC_DQBUF(OUTPUT)")
        }
        queuedOrder.removeFirst()
        if let done = outputs.firstIndex(where: { $0.index == b.index }) { outputs[done].inFlight = false }
        try v4l2Check(pf_media_request_reinit(request), "MEDIA_REQUEST_IOC_REINIT")
    }

    /// Waits for every queued request.
    func completeAllOutputs(timeoutMs: Int32) throws(V4L2Error) {
        while !queuedOrder.isEmpty { try completeOldestOutput(timeoutMs: timeoutMs) }
    }

    /// Dequeues the decoded CAPTURE buffer; throws when it is not `index` or the driver flagged it.
    func dequeueCapture(expecting index: Int, timeoutMs: Int32) throws(V4L2Error) {
        let r = pf_v4l2_poll(fd, Int16(POLLIN), timeoutMs)
        if r < 0 { throw .ioctl("poll(CAPTURE)", errno: -r) }
        if r == 0 { throw .decodeFailed("no decoded picture within \(timeoutMs) ms") }
        let planeCount = captures[index].fds.count
        var planes = [v4l2_plane](repeating: v4l2_plane(), count: planeCount)
        var b = v4l2_buffer()
        b.type = types.capture
        b.memory = V4L2_MEMORY_MMAP.rawValue
        try planes.withUnsafeMutableBufferPointer { (p) throws(V4L2Error) in
            if types.multiPlanar { b.m.planes = p.baseAddress; b.length = UInt32(planeCount) }
            try v4l2Check(pf_v4l2_dqbuf(fd, &b), "VIDIOC_DQBUF(CAPTURE)")
        }
        guard b.index == UInt32(index) else { throw .decodeFailed("the driver returned CAPTURE buffer \(b.index), not \(index)") }
        if b.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 { throw .decodeFailed("the driver flagged the picture in CAPTURE buffer \(index)") }
    }

    /// After a failure: stops and restarts both queues, which returns every queued buffer, and
    /// readies every request again.
    func resetQueues() {
        _ = pf_v4l2_streamoff(fd, types.output)
        _ = pf_v4l2_streamoff(fd, types.capture)
        for k in outputs.indices {
            outputs[k].inFlight = false
            _ = pf_media_request_reinit(outputs[k].request)
        }
        queuedOrder = []
        _ = pf_v4l2_streamon(fd, types.output)
        _ = pf_v4l2_streamon(fd, types.capture)
    }

    /// New fds (dups) of a CAPTURE buffer's exported planes, with their sizes.
    func exportedObjects(_ index: Int, modifier: UInt64) throws(V4L2Error) -> [DMABufFrame.Object] {
        var out: [DMABufFrame.Object] = []
        for (fd, size) in zip(captures[index].fds, captures[index].sizes) {
            let d = fcntl(fd, F_DUPFD_CLOEXEC, 0)
            guard d >= 0 else {
                let e = errno
                for o in out { close(o.fd) }
                throw .ioctl("dup(dma-buf)", errno: e)
            }
            out.append(DMABufFrame.Object(fd: d, size: size, modifier: modifier))
        }
        return out
    }
}

extension V4L2Session: DecodeSession {
    func destroy() { closeAll() }
}
