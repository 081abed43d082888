internal import CDRM
#if canImport(Glibc)
import Glibc
#endif

/// One dumb buffer (CPU-mapped, linear) with its framebuffer, owned: `deinit` removes the FB,
/// unmaps and destroys the buffer. Removing an FB that is on screen disables its plane, so the
/// presenter keeps a buffer alive until the flip that replaces it has completed.
///
/// Layouts: XRGB8888 = one plane, `pitch` bytes per row; NV12 = Y rows then CbCr rows in the same
/// buffer (created as 8 bpp, `height + ⌈height/2⌉` rows), both with `pitch`; P010 likewise at
/// 16 bpp.
final class DumbBuffer {
    let device: DRMDevice
    let width: Int, height: Int
    let format: FourCC
    let handle: UInt32
    let pitch: Int
    let size: Int
    /// Byte offset of the chroma plane (0 for single-plane formats).
    let chromaOffset: Int
    let map: UnsafeMutableRawPointer
    /// Framebuffer id (0 only during init).
    private(set) var framebuffer: UInt32 = 0

    init(device: DRMDevice, width: Int, height: Int, format: FourCC) throws(KMSError) {
        guard width > 0, height > 0, width <= 16384, height <= 16384 else { throw .badFrame("buffer \(width)x\(height)") }
        self.device = device; self.width = width; self.height = height; self.format = format
        let bpp: UInt32, rows: Int
        switch format {
        case .xrgb8888, .argb8888: bpp = 32; rows = height
        case .nv12: bpp = 8; rows = height + (height + 1) / 2
        case .p010: bpp = 16; rows = height + (height + 1) / 2
        default: throw .noPlane(format: "\(format) (no dumb-buffer layout)")
        }
        var h: UInt32 = 0, p: UInt32 = 0, s: UInt64 = 0
        let rc = drmModeCreateDumbBuffer(device.fd, UInt32(width), UInt32(rows), bpp, 0, &h, &p, &s)
        guard rc == 0 else { throw .ioctl("CREATE_DUMB \(width)x\(rows)x\(bpp)", errno: -rc) }
        handle = h; pitch = Int(p); size = Int(s)
        chromaOffset = (format == .nv12 || format == .p010) ? pitch * height : 0
        var offset: UInt64 = 0
        if drmModeMapDumbBuffer(device.fd, h, &offset) != 0 {
            _ = drmModeDestroyDumbBuffer(device.fd, h)
            throw .ioctl("MAP_DUMB", errno: errno)
        }
        let m = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, device.fd, off_t(offset))
        guard let m, m != MAP_FAILED else {
            _ = drmModeDestroyDumbBuffer(device.fd, h)
            throw .ioctl("mmap dumb buffer", errno: errno)
        }
        map = m
        var handles: (UInt32, UInt32, UInt32, UInt32) = (h, 0, 0, 0)
        var pitches: (UInt32, UInt32, UInt32, UInt32) = (p, 0, 0, 0)
        var offsets: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        if chromaOffset != 0 {
            handles.1 = h; pitches.1 = p; offsets.1 = UInt32(chromaOffset)
        }
        var fb: UInt32 = 0
        let frc = withUnsafePointer(to: &handles) { hp in
            withUnsafePointer(to: &pitches) { pp in
                withUnsafePointer(to: &offsets) { op in
                    drmModeAddFB2(device.fd, UInt32(width), UInt32(height), format.rawValue,
                                  UnsafeRawPointer(hp).assumingMemoryBound(to: UInt32.self),
                                  UnsafeRawPointer(pp).assumingMemoryBound(to: UInt32.self),
                                  UnsafeRawPointer(op).assumingMemoryBound(to: UInt32.self), &fb, 0)
                }
            }
        }
        guard frc == 0 else {
            munmap(m, size)
            _ = drmModeDestroyDumbBuffer(device.fd, h)
            throw .ioctl("ADDFB2 \(format) \(width)x\(height)", errno: errno)
        }
        framebuffer = fb
    }

    deinit {
        if framebuffer != 0 { _ = drmModeRmFB(device.fd, framebuffer) }
        munmap(map, size)
        _ = drmModeDestroyDumbBuffer(device.fd, handle)
    }

    /// Fills the buffer with black (XRGB 0xFF000000; NV12/P010 limited-range black).
    func clearToBlack() {
        switch format {
        case .nv12:
            memset(map, 16, chromaOffset)
            memset(map + chromaOffset, 128, size - chromaOffset)
        case .p010:
            fill16(map, count: chromaOffset / 2, value: 64 << 6)
            fill16(map + chromaOffset, count: (size - chromaOffset) / 2, value: 512 << 6)
        default:
            let words = map.assumingMemoryBound(to: UInt32.self)
            for i in 0..<(size / 4) { words[i] = 0xFF00_0000 }
        }
    }

    private func fill16(_ p: UnsafeMutableRawPointer, count: Int, value: UInt16) {
        let w = p.assumingMemoryBound(to: UInt16.self)
        for i in 0..<count { w[i] = value.littleEndian }
    }

    /// Copies a CPU frame's full decoded picture (NV12 or P010) into this buffer row by row.
    /// - Precondition: the buffer was created with the frame's format and at least its size.
    func copyPlanes(of frame: VideoFramePlanes) {
        let rowsY = min(frame.height, height)
        frame.luma.withUnsafeBytes { src in
            for r in 0..<rowsY {
                memcpy(map + r * pitch, src.baseAddress! + r * frame.lumaStride, min(frame.lumaRowBytes, pitch))
            }
        }
        let rowsC = min(frame.chromaRows, (height + 1) / 2)
        frame.chroma.withUnsafeBytes { src in
            for r in 0..<rowsC {
                memcpy(map + chromaOffset + r * pitch, src.baseAddress! + r * frame.chromaStride,
                       min(frame.chromaRowBytes, pitch))
            }
        }
    }
}

import VideoFrames

/// The two CPU planes of a decoded frame, as `copyPlanes` reads them.
struct VideoFramePlanes {
    var height: Int
    var luma: PlaneBytes, lumaStride: Int, lumaRowBytes: Int
    var chroma: PlaneBytes, chromaStride: Int, chromaRowBytes: Int, chromaRows: Int

    init(_ f: DecodedFrame) {
        height = f.height
        luma = f.planes[0].bytes; lumaStride = f.planes[0].stride; lumaRowBytes = f.planes[0].rowBytes
        chroma = f.planes[1].bytes; chromaStride = f.planes[1].stride; chromaRowBytes = f.planes[1].rowBytes
        chromaRows = f.planes[1].height
    }
}
