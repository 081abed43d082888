internal import CDRM
import Synchronization
import VideoFrames
import Display
#if canImport(Glibc)
import Glibc
#endif

/// **Test fake** standing in for the VA-API rung's surface exports where no VA-API device exists
/// (the VM harness): copies CPU NV12/P010 frames into linear dumb buffers of a vgem device
/// (`/dev/dri/cardN`, driver "vgem") and exports each as a DRM PRIME dma-buf, handed out as a
/// `DMABufFrame` exactly like an exported VA surface — one object, a luma and a chroma layer,
/// `surface` = the buffer's pool index, a lease that closes the fd and recycles the buffer.
/// The dma-bufs are real kernel objects, so the presenter's import and copy routes run against
/// the real PRIME/ADDFB2/atomic code of the guest's drivers.
public final class VGEMExporter {
    private final class Buffer {
        let handle: UInt32, pitch: Int, size: Int
        let map: UnsafeMutableRawPointer
        init(handle: UInt32, pitch: Int, size: Int, map: UnsafeMutableRawPointer) {
            self.handle = handle; self.pitch = pitch; self.size = size; self.map = map
        }
    }

    public let path: String
    private let fd: Int32
    private var buffers: [Buffer] = []
    /// Per pool index of the current generation: whether a lease holds the buffer (released
    /// from any thread; a release of an older generation's buffer changes nothing).
    private let busy = BusyFlags()
    /// Buffers of earlier layouts that were still leased; freed at deinit.
    private var stale: [Buffer] = []
    private var layout: (width: Int, height: Int, format: DecodedPixelFormat)?
    /// Bumped when the frame layout changes (a new pool, like a rebuilt VA session).
    public private(set) var generation = 0

    /// At most this many buffers (the presenter holds ≤ 4 pictures; the rest is slack).
    public static let maxBuffers = 12

    public init(path: String) throws(KMSError) {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw .openFailed(path: path, errno: errno) }
        self.path = path
        self.fd = fd
    }

    deinit {
        for b in buffers + stale { free(b) }
        close(fd)
    }

    private func free(_ b: Buffer) {
        munmap(b.map, b.size)
        _ = drmModeDestroyDumbBuffer(fd, b.handle)
    }

    /// Exports `frame` (full decoded picture, crop and colour carried) as a dma-buf picture.
    /// - Throws: `.ioctl` when vgem refuses a buffer or the export; `.badFrame` when all
    ///   `maxBuffers` buffers are still leased.
    public func export(_ frame: DecodedFrame) throws(KMSError) -> DMABufFrame {
        let bps = frame.pixelFormat.bytesPerSample
        let w = frame.width, h = frame.height, chromaRows = (h + 1) / 2
        if layout == nil || layout! != (w, h, frame.pixelFormat) {
            // Leased buffers of the old layout stay mapped until the exporter goes away.
            layout = (w, h, frame.pixelFormat)
            generation += 1
            let flags = busy.withLock { state in
                defer { state = (generation, []) }
                return state.flags
            }
            for (i, b) in buffers.enumerated() {
                if flags[i] { stale.append(b) } else { free(b) }
            }
            buffers = []
        }
        let index = try freeBuffer(width: w, rows: h + chromaRows, bytesPerSample: bps)
        let b = buffers[index]
        let lumaRow = w * bps, chromaRow = ((w + 1) / 2) * 2 * bps
        frame.planes[0].bytes.withUnsafeBytes { src in
            for r in 0..<h { (b.map + r * b.pitch).copyMemory(from: src.baseAddress! + r * frame.planes[0].stride, byteCount: lumaRow) }
        }
        frame.planes[1].bytes.withUnsafeBytes { src in
            for r in 0..<chromaRows {
                (b.map + (h + r) * b.pitch).copyMemory(from: src.baseAddress! + r * frame.planes[1].stride, byteCount: chromaRow)
            }
        }
        var prime: Int32 = -1
        guard drmPrimeHandleToFD(fd, b.handle, UInt32(O_CLOEXEC | O_RDWR), &prime) == 0, prime >= 0 else {
            let e = errno
            busy.withLock { $0.flags[index] = false }
            throw .ioctl("PRIME_HANDLE_TO_FD (vgem export)", errno: e)
        }
        let nv12 = frame.pixelFormat == .nv12
        let gen = generation
        let busy = self.busy
        let lease = SurfaceLease(fds: [prime]) {
            busy.withLock { if $0.generation == gen, index < $0.flags.count { $0.flags[index] = false } }
        }
        return DMABufFrame(pts: frame.pts, width: w, height: h, crop: frame.crop, colour: frame.colour,
                           pixelFormat: frame.pixelFormat, fourcc: (nv12 ? FourCC.nv12 : FourCC.p010).rawValue,
                           objects: [DMABufFrame.Object(fd: prime, size: UInt32(b.size), modifier: FormatModifier.linear)],
                           planes: [DMABufFrame.Plane(drmFormat: FourCC(nv12 ? "R8  " : "R16 ").rawValue, objectIndex: 0,
                                                      offset: 0, pitch: UInt32(b.pitch)),
                                    DMABufFrame.Plane(drmFormat: FourCC(nv12 ? "GR88" : "GR32").rawValue, objectIndex: 0,
                                                      offset: UInt32(b.pitch * h), pitch: UInt32(b.pitch))],
                           fence: .completed, surface: UInt32(index), generation: generation, lease: lease)
    }

    /// A buffer no lease holds (marked busy), creating one when all are leased.
    private func freeBuffer(width: Int, rows: Int, bytesPerSample: Int) throws(KMSError) -> Int {
        if let i = busy.withLock({ state -> Int? in
            guard let i = state.flags.firstIndex(of: false) else { return nil }
            state.flags[i] = true
            return i
        }) { return i }
        guard buffers.count < Self.maxBuffers else { throw .badFrame("all \(Self.maxBuffers) vgem buffers are leased") }
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        let rc = drmModeCreateDumbBuffer(fd, UInt32(width), UInt32(rows), UInt32(8 * bytesPerSample), 0, &handle, &pitch, &size)
        guard rc == 0 else { throw .ioctl("CREATE_DUMB on \(path)", errno: -rc) }
        var offset: UInt64 = 0
        guard drmModeMapDumbBuffer(fd, handle, &offset) == 0 else {
            _ = drmModeDestroyDumbBuffer(fd, handle)
            throw .ioctl("MAP_DUMB on \(path)", errno: errno)
        }
        guard let m = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset)), m != MAP_FAILED else {
            _ = drmModeDestroyDumbBuffer(fd, handle)
            throw .ioctl("mmap vgem buffer", errno: errno)
        }
        buffers.append(Buffer(handle: handle, pitch: Int(pitch), size: Int(size), map: m))
        busy.withLock { $0.flags.append(true) }
        return buffers.count - 1
    }
}

/// The exporter's busy flags, shared with the leases' release closures.
private final class BusyFlags: Sendable {
    private let state = Mutex<(generation: Int, flags: [Bool])>((0, []))
    func withLock<R>(_ body: (inout (generation: Int, flags: [Bool])) -> R) -> R { state.withLock { body(&$0) } }
}
