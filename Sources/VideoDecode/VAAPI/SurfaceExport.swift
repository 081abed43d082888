internal import CVA
import Foundation
import VideoFrames

/// vaExportSurfaceHandle(DRM_PRIME_2, SEPARATE_LAYERS | READ_ONLY), validated strictly, and the
/// fence a reader waits for.
enum SurfaceExport {
    struct Exported {
        var fourcc: UInt32
        var width: Int, height: Int
        var objects: [DMABufFrame.Object]
        var planes: [DMABufFrame.Plane]
    }

    /// Exports `surface`. On success the caller owns every fd in `objects`; on failure none is
    /// left open.
    static func export(_ display: VADisplay, surface: VASurfaceID, expectedFourcc: UInt32) throws(VAAPIError) -> Exported {
        var desc = VADRMPRIMESurfaceDescriptor()
        let flags = UInt32(VA_EXPORT_SURFACE_SEPARATE_LAYERS | VA_EXPORT_SURFACE_READ_ONLY)
        let status = vaExportSurfaceHandle(display, surface, UInt32(VA_SURFACE_ATTRIB_MEM_TYPE_DRM_PRIME_2), flags, &desc)
        try vaCheck(status, "vaExportSurfaceHandle")
        do throws(VAAPIError) {
            return try validate(desc, expectedFourcc: expectedFourcc)
        } catch {
            closeAll(desc)
            throw error
        }
    }

    /// The checks: 1…4 objects with fds ≥ 0 and one modifier; 2…4 layers (luma, chroma) of
    /// 1…4 planes each naming existing objects, with non-zero pitches inside the object; the
    /// descriptor's top-level fourcc (not a layer's format) equal to the pool's.
    static func validate(_ d: VADRMPRIMESurfaceDescriptor, expectedFourcc: UInt32) throws(VAAPIError) -> Exported {
        guard (1...4).contains(d.num_objects) else { throw .invalidExport("\(d.num_objects) objects") }
        guard (2...4).contains(d.num_layers) else { throw .invalidExport("\(d.num_layers) layers (need luma and chroma)") }
        guard d.fourcc == expectedFourcc else {
            throw .invalidExport("fourcc \(fourccName(d.fourcc)), pool is \(fourccName(expectedFourcc))")
        }
        var copy = d
        let objects = (0..<d.num_objects).map { i in
            let o = pf_drm_prime_object_at(&copy, i)
            return DMABufFrame.Object(fd: o.fd, size: o.size, modifier: o.modifier)
        }
        if let bad = objects.firstIndex(where: { $0.fd < 0 }) { throw .invalidExport("object \(bad) has fd \(objects[bad].fd)") }
        if Set(objects.map(\.modifier)).count > 1 { throw .invalidExport("objects disagree on the format modifier") }
        var planes: [DMABufFrame.Plane] = []
        for l in 0..<Int(d.num_layers) {
            let layer = pf_drm_prime_layer_at(&copy, UInt32(l))
            guard (1...4).contains(layer.num_planes) else { throw .invalidExport("layer \(l) has \(layer.num_planes) planes") }
            let index = [layer.object_index.0, layer.object_index.1, layer.object_index.2, layer.object_index.3]
            let offset = [layer.offset.0, layer.offset.1, layer.offset.2, layer.offset.3]
            let pitch = [layer.pitch.0, layer.pitch.1, layer.pitch.2, layer.pitch.3]
            for p in 0..<Int(layer.num_planes) {
                guard index[p] < d.num_objects else {
                    throw .invalidExport("layer \(l) plane \(p) names object \(index[p]) of \(d.num_objects)")
                }
                guard pitch[p] > 0, UInt64(offset[p]) < UInt64(objects[Int(index[p])].size) || objects[Int(index[p])].size == 0 else {
                    throw .invalidExport("layer \(l) plane \(p): pitch \(pitch[p]), offset \(offset[p]) outside the object")
                }
                planes.append(DMABufFrame.Plane(drmFormat: layer.drm_format, objectIndex: Int(index[p]),
                                                offset: offset[p], pitch: pitch[p]))
            }
        }
        guard planes.count >= 2 else { throw .invalidExport("\(planes.count) planes") }
        return Exported(fourcc: d.fourcc, width: Int(d.width), height: Int(d.height), objects: objects, planes: planes)
    }

    /// Closes the fds of a descriptor that failed validation (each object's fd once).
    private static func closeAll(_ d: VADRMPRIMESurfaceDescriptor) {
        var copy = d
        let fds = (0..<min(d.num_objects, 4)).map { pf_drm_prime_object_at(&copy, $0).fd }
        for fd in Set(fds) where fd >= 0 { close(fd) }
    }

    /// The reader's fence: on the sync-file path (`DecodeSyncDecision`) a sync_file per object
    /// from DMA_BUF_IOCTL_EXPORT_SYNC_FILE; otherwise — or when the kernel or exporter lacks the
    /// ioctl — vaSyncSurface and `.completed`.
    static func fence(_ display: VADisplay, surface: VASurfaceID, objects: [DMABufFrame.Object],
                      syncFile: Bool) throws(VAAPIError) -> DMABufFrame.Fence {
        if syncFile {
            var files: [Int32] = []
            for o in objects {
                let f = pf_dmabuf_export_sync_file(o.fd)
                if f < 0 { break }
                files.append(f)
            }
            if files.count == objects.count { return .syncFiles(files) }
            for f in files { close(f) }
        }
        try vaCheck(vaSyncSurface(display, surface), "vaSyncSurface")
        return .completed
    }

    static func fourccName(_ v: UInt32) -> String {
        String((0..<4).map { Character(Unicode.Scalar(UInt8((v >> (8 * $0)) & 0xFF))) })
    }
}
