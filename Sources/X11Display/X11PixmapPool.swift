#if canImport(Glibc)
import Glibc
#endif
import Screen
internal import CXCB

/// `count` same-sized 24-bit pixmaps whose pixels the kiosk writes (XRGB8888, `stride` bytes a
/// row), reused as the server lets go of them: no allocation per frame.
///
/// With MIT-SHM each buffer is a pixmap *on* one shared-memory segment (passed by fd), so what the
/// CPU writes is what the server presents; without it each buffer is local memory and
/// `upload` sends its rows into an ordinary pixmap with PutImage.
///
/// A buffer is *busy* from the moment it is lent for drawing (`reserve`) until Present's
/// IdleNotify for its pixmap (`idle`), or until it is given back undrawn (`unreserve`).
/// Invariant: a busy buffer is never handed out; `pixels(i)` stays valid while the pool lives.
final class X11PixmapPool {
    let width: Int, height: Int, stride: Int
    /// Bumped for every new pool: what a buffer held in an earlier pool is gone.
    let generation: Int
    let sharedMemory: Bool
    private let connection: X11Connection
    private let base: UnsafeMutableRawPointer
    private let size: Int
    private var segment: xcb_shm_seg_t = 0
    private(set) var pixmaps: [xcb_pixmap_t] = []
    private(set) var busy: [Bool]
    /// The caller's tag of what each buffer holds (e.g. the placement its black bars were drawn for).
    var tags: [Int]
    private let gc: xcb_gcontext_t

    var count: Int { pixmaps.count }

    /// - Parameter sharedMemory: try MIT-SHM (the caller knows the server offers 1.2); a refused
    ///   attach falls back to local memory and PutImage (`sharedMemory` then says false).
    init(connection: X11Connection, drawable: xcb_drawable_t, width: Int, height: Int, count: Int, generation: Int,
         sharedMemory wantShm: Bool) throws(ScreenError) {
        self.connection = connection
        self.width = width; self.height = height; self.generation = generation
        stride = width * 4
        size = stride * height * count
        let c = connection.c
        var shm = false
        var mapped: UnsafeMutableRawPointer?
        if wantShm {
            let fd = pf_xcb_memfd("punktfunk-x11-shm")
            if fd >= 0, ftruncate(fd, off_t(size)) == 0,
               let m = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), m != MAP_FAILED {
                let seg = xcb_generate_id(c)
                // xcb closes the fd once it is sent; the mapping stays ours.
                if xcb_request_check(c, xcb_shm_attach_fd_checked(c, seg, fd, 0)) == nil {
                    segment = seg
                    mapped = m
                    shm = true
                } else {
                    munmap(m, size)
                }
            } else if fd >= 0 {
                close(fd)
            }
        }
        if mapped == nil {
            guard let m = malloc(size) else { throw .system("malloc(\(size))", errno: ENOMEM) }
            mapped = m
        }
        base = mapped!
        sharedMemory = shm
        busy = Array(repeating: false, count: count)
        tags = Array(repeating: -1, count: count)
        for i in 0..<count {
            let p = xcb_generate_id(c)
            if shm {
                xcb_shm_create_pixmap(c, p, drawable, UInt16(width), UInt16(height), 24, segment, UInt32(i * stride * height))
            } else {
                xcb_create_pixmap(c, 24, p, drawable, UInt16(width), UInt16(height))
            }
            pixmaps.append(p)
        }
        gc = xcb_generate_id(c)
        xcb_create_gc(c, gc, drawable, 0, nil)
    }

    deinit {
        let c = connection.c
        if connection.failure == nil {
            for p in pixmaps { xcb_free_pixmap(c, p) }
            xcb_free_gc(c, gc)
            if sharedMemory { xcb_shm_detach(c, segment) }
            _ = xcb_flush(c)
        }
        if sharedMemory { munmap(base, size) } else { Glibc.free(base) }
    }

    /// A free buffer's index, nil when every one is busy.
    func free() -> Int? { busy.firstIndex(of: false) }

    func pixels(_ index: Int) -> UnsafeMutableRawPointer { base + index * stride * height }

    /// Marks `index` busy: lent for drawing, then presented.
    func reserve(_ index: Int) { busy[index] = true }

    /// Gives `index` back undrawn.
    func unreserve(_ index: Int) { busy[index] = false }

    /// Present's IdleNotify for `pixmap`: the server no longer reads it. - Returns: whether it is one of ours.
    @discardableResult
    func idle(pixmap: xcb_pixmap_t) -> Bool {
        guard let i = pixmaps.firstIndex(of: pixmap) else { return false }
        busy[i] = false
        return true
    }

    /// Without MIT-SHM: sends `rows` of buffer `index` (all when nil) into its pixmap with
    /// PutImage, split to the server's request limit. No-op with MIT-SHM.
    func upload(_ index: Int, rows: Range<Int>? = nil) {
        guard !sharedMemory else { return }
        let c = connection.c
        let all = rows ?? 0..<height
        // xcb_get_maximum_request_length: 4-byte units, BIG-REQUESTS included; keep room for the header.
        let maxBytes = max(Int(xcb_get_maximum_request_length(c)) * 4 - 64, stride)
        let rowsPerRequest = max(1, min(all.count, maxBytes / stride))
        var y = all.lowerBound
        while y < all.upperBound {
            let n = min(rowsPerRequest, all.upperBound - y)
            xcb_put_image(c, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), pixmaps[index], gc, UInt16(width), UInt16(n), 0, Int16(y),
                          0, 24, UInt32(n * stride), (pixels(index) + y * stride).assumingMemoryBound(to: UInt8.self))
            y += n
        }
    }
}
