#if canImport(Glibc)
import Glibc
#endif

extension DMABufFrame {
    /// Why a GPU picture could not be read on the CPU.
    public enum ReadbackError: Error, Sendable, Equatable {
        /// Only linear (modifier 0) buffers have a CPU layout this code understands.
        case tiled(modifier: UInt64)
        case fenceTimeout
        case mmapFailed(errno: Int32)
        case layout(String)
    }

    /// Copies the picture into CPU planes (NV12 / P010, like the libavcodec rung's frames) for
    /// checksums and tests: waits for the fence, maps each object read-only and copies the rows.
    /// Slow (a full copy); never on the display path.
    public func readPixels(timeoutMilliseconds: Int32 = 1000) throws(ReadbackError) -> DecodedFrame {
        if let bad = objects.first(where: { $0.modifier != 0 }) { throw .tiled(modifier: bad.modifier) }
        if case .syncFiles(let files) = fence {
            for f in files {
                var p = pollfd(fd: f, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, timeoutMilliseconds) == 1 else { throw .fenceTimeout }
            }
        }
        guard planes.count >= 2 else { throw .layout("\(planes.count) planes") }
        let bps = pixelFormat.bytesPerSample
        let rows = [height, (height + 1) / 2]
        let rowBytes = [width * bps, ((width + 1) / 2) * 2 * bps]
        var out: [FramePlane] = []
        for (k, plane) in planes.prefix(2).enumerated() {
            let object = objects[plane.objectIndex]
            let needed = Int(plane.offset) + Int(plane.pitch) * (rows[k] - 1) + rowBytes[k]
            guard Int(plane.pitch) >= rowBytes[k], object.size == 0 || needed <= Int(object.size) else {
                throw .layout("plane \(k): pitch \(plane.pitch), \(needed) bytes needed of \(object.size)")
            }
            let length = object.size == 0 ? needed : Int(object.size)
            guard let base = mmap(nil, length, PROT_READ, MAP_SHARED, object.fd, 0), base != MAP_FAILED else {
                throw .mmapFailed(errno: errno)
            }
            defer { munmap(base, length) }
            let bytes = [UInt8](unsafeUninitializedCapacity: rowBytes[k] * rows[k]) { buf, n in
                for r in 0..<rows[k] {
                    let src = base + Int(plane.offset) + r * Int(plane.pitch)
                    (buf.baseAddress! + r * rowBytes[k]).update(from: src.assumingMemoryBound(to: UInt8.self), count: rowBytes[k])
                }
                n = rowBytes[k] * rows[k]
            }
            out.append(FramePlane(bytes: bytes, stride: rowBytes[k], rowBytes: rowBytes[k], height: rows[k]))
        }
        return DecodedFrame(pts: pts, width: width, height: height, crop: crop, pixelFormat: pixelFormat,
                            planes: out, colour: colour)
    }
}
