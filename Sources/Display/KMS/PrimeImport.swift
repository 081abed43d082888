internal import CDRM
import VideoFrames
#if canImport(Glibc)
import Glibc
#endif

/// The `drmModeAddFB2WithModifiers` arguments for an exported VA surface (SEPARATE_LAYERS: a
/// luma layer R8/R16 and a chroma layer GR88/GR1616), as one two-plane NV12/P010 framebuffer.
/// Pure: validated against the frame's own description, so a malformed export is a typed error
/// before any ioctl.
struct PrimeLayout: Equatable {
    /// NV12 or P010.
    var fourcc: FourCC
    var width: Int, height: Int
    /// Per framebuffer plane (2): the frame's object index, bytes from the object's start, row pitch.
    var objectIndex: [Int]
    var offsets: [UInt32]
    var pitches: [UInt32]
    /// The one modifier of every object; `FormatModifier.invalid` = implicit (no modifier flag).
    var modifier: UInt64

    init(_ f: DMABufFrame) throws(KMSError) {
        let (fourcc, bytesPerSample): (FourCC, Int) = f.pixelFormat == .nv12 ? (.nv12, 1) : (.p010, 2)
        guard f.fourcc == fourcc.rawValue else {
            throw .badFrame("dma-buf fourcc \(FourCC(rawValue: f.fourcc)) for a \(fourcc) picture")
        }
        guard f.width > 0, f.height > 0, f.width <= 16384, f.height <= 16384 else { throw .badFrame("dma-buf \(f.width)x\(f.height)") }
        // Layer formats (R8/GR88, R16/GR1616 …) vary by driver and are not checked; geometry is.
        guard f.planes.count == 2 else { throw .badFrame("dma-buf with \(f.planes.count) planes (want luma + chroma)") }
        guard let first = f.objects.first, f.objects.allSatisfy({ $0.modifier == first.modifier }) else {
            throw .badFrame("dma-buf objects without one common modifier")
        }
        let rows = [f.height, (f.height + 1) / 2]
        let rowBytes = [f.width * bytesPerSample, ((f.width + 1) / 2) * 2 * bytesPerSample]
        for (k, p) in f.planes.enumerated() {
            guard p.objectIndex >= 0, p.objectIndex < f.objects.count else {
                throw .badFrame("dma-buf plane \(k) names object \(p.objectIndex) of \(f.objects.count)")
            }
            guard Int(p.pitch) >= rowBytes[k] else { throw .badFrame("dma-buf plane \(k) pitch \(p.pitch) < \(rowBytes[k]) bytes of samples") }
            let end = UInt64(p.offset) + UInt64(p.pitch) * UInt64(rows[k] - 1) + UInt64(rowBytes[k])
            let size = f.objects[p.objectIndex].size
            // size 0 = the exporter did not say (some drivers); the kernel checks the object then.
            // Tiled layouts may pad differently, so the bound is checked for linear buffers only.
            guard size == 0 || first.modifier != FormatModifier.linear || end <= UInt64(size) else {
                throw .badFrame("dma-buf plane \(k) ends at byte \(end) of a \(size)-byte object")
            }
        }
        self.fourcc = fourcc
        width = f.width; height = f.height
        objectIndex = f.planes.map(\.objectIndex)
        offsets = f.planes.map(\.offset)
        pitches = f.planes.map(\.pitch)
        modifier = first.modifier
    }
}

/// KMS framebuffers for exported VA surfaces, made once per surface and decoder generation
/// (`drmPrimeFDToHandle` + `drmModeAddFB2WithModifiers`) and kept while the surface pool lives:
/// every later export of the same surface is the same buffer, so its fds are not imported again.
///
/// Owned by one pipeline of the presenter; `removeAll()` (after the flip that stopped showing
/// them) removes the framebuffers and closes the GEM handles.
final class PrimeFramebufferCache {
    struct Key: Hashable { var surface: UInt32; var generation: Int }
    private struct Entry { var framebuffer: UInt32; var handles: [UInt32] }

    let device: DRMDevice
    private var entries: [Key: Entry] = [:]

    init(device: DRMDevice) { self.device = device }

    deinit { removeAll() }

    var count: Int { entries.count }

    /// The framebuffer showing `f`'s surface (imported on first use).
    func framebuffer(for f: DMABufFrame) throws(KMSError) -> UInt32 {
        let key = Key(surface: f.surface, generation: f.generation)
        if let e = entries[key] { return e.framebuffer }
        let layout = try PrimeLayout(f)
        var handleOfObject: [Int: UInt32] = [:]
        func closeAll() { for h in Set(handleOfObject.values) { _ = drmCloseBufferHandle(device.fd, h) } }
        for index in Set(layout.objectIndex).sorted() {
            var handle: UInt32 = 0
            guard drmPrimeFDToHandle(device.fd, f.objects[index].fd, &handle) == 0 else {
                let e = errno
                closeAll()
                throw .ioctl("PRIME_FD_TO_HANDLE (dma-buf import)", errno: e)
            }
            handleOfObject[index] = handle
        }
        var handles: (UInt32, UInt32, UInt32, UInt32) = (handleOfObject[layout.objectIndex[0]]!, handleOfObject[layout.objectIndex[1]]!, 0, 0)
        var pitches: (UInt32, UInt32, UInt32, UInt32) = (layout.pitches[0], layout.pitches[1], 0, 0)
        var offsets: (UInt32, UInt32, UInt32, UInt32) = (layout.offsets[0], layout.offsets[1], 0, 0)
        let explicit = layout.modifier != FormatModifier.invalid
        var modifiers: (UInt64, UInt64, UInt64, UInt64) = explicit ? (layout.modifier, layout.modifier, 0, 0) : (0, 0, 0, 0)
        var fb: UInt32 = 0
        let rc = withUnsafePointer(to: &handles) { hp in
            withUnsafePointer(to: &pitches) { pp in
                withUnsafePointer(to: &offsets) { op in
                    withUnsafePointer(to: &modifiers) { mp in
                        drmModeAddFB2WithModifiers(device.fd, UInt32(layout.width), UInt32(layout.height), layout.fourcc.rawValue,
                                                   UnsafeRawPointer(hp).assumingMemoryBound(to: UInt32.self),
                                                   UnsafeRawPointer(pp).assumingMemoryBound(to: UInt32.self),
                                                   UnsafeRawPointer(op).assumingMemoryBound(to: UInt32.self),
                                                   UnsafeRawPointer(mp).assumingMemoryBound(to: UInt64.self),
                                                   &fb, explicit ? UInt32(DRM_MODE_FB_MODIFIERS) : 0)
                    }
                }
            }
        }
        guard rc == 0 else {
            let e = errno
            closeAll()
            throw .ioctl("ADDFB2 \(layout.fourcc) \(layout.width)x\(layout.height) modifier 0x\(String(layout.modifier, radix: 16)) (dma-buf)", errno: e)
        }
        entries[key] = Entry(framebuffer: fb, handles: Array(Set(handleOfObject.values)))
        return fb
    }

    /// Removes every framebuffer and closes the handles. The caller guarantees none is on screen
    /// or in a pending commit.
    func removeAll() {
        for e in entries.values {
            _ = drmModeRmFB(device.fd, e.framebuffer)
            for h in e.handles { _ = drmCloseBufferHandle(device.fd, h) }
        }
        entries.removeAll()
    }
}
