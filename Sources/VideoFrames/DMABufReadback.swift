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
        let columns = objects.first.flatMap { SandColumns($0.modifier) }
        if columns != nil, pixelFormat != .nv12 || objects.contains(where: { $0.modifier != objects[0].modifier }) {
            throw .tiled(modifier: objects[0].modifier)
        }
        if columns == nil, let bad = objects.first(where: { $0.modifier != 0 }) { throw .tiled(modifier: bad.modifier) }
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
            if let columns {
                out.append(try columns.read(object, offset: Int(plane.offset), rowBytes: rowBytes[k], rows: rows[k]))
                continue
            }
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

/// DRM_FORMAT_MOD_BROADCOM_SAND128_COL_HEIGHT(h) (libdrm's drm_fourcc.h): the picture in
/// 128-byte wide columns placed one after the other, `h` 128-byte lines apart; each plane's
/// rows start at its offset inside every column. The Raspberry Pi's HEVC decoder writes it.
struct SandColumns {
    /// Lines of 128 bytes from the start of one column to the next.
    var columnHeight: Int

    /// nil unless `modifier` is SAND128 with a column height (vendor 0x07, type 4).
    init?(_ modifier: UInt64) {
        guard modifier >> 56 == 0x07, modifier & 0xFF == 4 else { return nil }
        let height = Int((modifier >> 8) & ((1 << 48) - 1))
        guard height > 0 else { return nil }
        columnHeight = height
    }

    /// `rows` rows of `rowBytes` bytes of one plane, gathered from the columns.
    func read(_ object: DMABufFrame.Object, offset: Int, rowBytes: Int, rows: Int) throws(DMABufFrame.ReadbackError) -> FramePlane {
        let columnBytes = columnHeight * 128
        let columnsNeeded = (rowBytes + 127) / 128
        let needed = (columnsNeeded - 1) * columnBytes + offset + rows * 128
        guard offset + rows * 128 <= columnBytes, object.size == 0 || needed <= Int(object.size) else {
            throw .layout("columns of \(columnHeight) lines: plane at \(offset), \(rows) rows, \(needed) bytes needed of \(object.size)")
        }
        let length = object.size == 0 ? needed : Int(object.size)
        guard let base = mmap(nil, length, PROT_READ, MAP_SHARED, object.fd, 0), base != MAP_FAILED else {
            throw .mmapFailed(errno: errno)
        }
        defer { munmap(base, length) }
        let src = base.assumingMemoryBound(to: UInt8.self)
        let bytes = [UInt8](unsafeUninitializedCapacity: rowBytes * rows) { buf, n in
            for r in 0..<rows {
                var x = 0
                while x < rowBytes {
                    let run = min(128, rowBytes - x)
                    (buf.baseAddress! + r * rowBytes + x).update(from: src + (x / 128) * columnBytes + offset + r * 128, count: run)
                    x += run
                }
            }
            n = rowBytes * rows
        }
        return FramePlane(bytes: bytes, stride: rowBytes, rowBytes: rowBytes, height: rows)
    }
}
