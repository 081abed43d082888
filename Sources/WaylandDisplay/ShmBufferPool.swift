#if canImport(Glibc)
import Glibc
#endif
import Screen
internal import CWaylandClient
internal import CWaylandProtocols

/// `count` same-sized wl_shm buffers in one memfd, reused as the compositor releases them: no
/// allocation per frame. A buffer is *busy* from its attach until `wl_buffer.release`.
///
/// Invariant: `pixels(i)` is valid for `stride × height` bytes while the pool lives; a busy
/// buffer is never handed out.
final class ShmBufferPool {
    let width: Int, height: Int, stride: Int
    /// `wl_shm.format` code (1 = XRGB8888, 0 = ARGB8888).
    let format: UInt32
    /// Bumped for every new pool: what a buffer holds from an earlier pool is gone.
    let generation: Int
    private let base: UnsafeMutableRawPointer
    private let size: Int
    private var buffers: [OpaquePointer] = []
    private(set) var busy: [Bool]
    /// The caller's tag of what each buffer holds now (e.g. the layout its bars were drawn for).
    var tags: [Int]

    var count: Int { buffers.count }

    init(shm: OpaquePointer, width: Int, height: Int, format: UInt32, count: Int, generation: Int) throws(ScreenError) {
        self.width = width; self.height = height; self.format = format; self.generation = generation
        stride = width * 4
        size = stride * height * count
        let fd = CWayland_memfd_create("punktfunk-wl-shm")
        guard fd >= 0 else { throw .system("memfd_create", errno: errno) }
        defer { close(fd) }  // the wl_shm_pool keeps its own reference once created
        guard ftruncate(fd, off_t(size)) == 0 else { throw .system("ftruncate(\(size))", errno: errno) }
        guard let m = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), m != MAP_FAILED else {
            throw .system("mmap(\(size))", errno: errno)
        }
        base = m
        busy = Array(repeating: false, count: count)
        tags = Array(repeating: -1, count: count)
        let pool = wl_shm_create_pool(shm, fd, Int32(size))
        defer { wl_shm_pool_destroy(pool) }  // buffers keep the pool's memory alive
        for i in 0..<count {
            let b = wl_shm_pool_create_buffer(pool, Int32(i * stride * height), Int32(width), Int32(height),
                                              Int32(stride), format)!
            buffers.append(b)
        }
        for b in buffers { wl_buffer_add_listener(b, Self.bufferListener.pointer, context(self)) }
    }

    deinit {
        for b in buffers { wl_buffer_destroy(b) }
        munmap(base, size)
    }

    /// A free buffer's index, nil when every one is busy.
    func free() -> Int? { busy.firstIndex(of: false) }

    func pixels(_ index: Int) -> UnsafeMutableRawPointer { base + index * stride * height }

    /// Marks `index` busy and returns its wl_buffer, for `wl_surface.attach`.
    func attach(_ index: Int) -> OpaquePointer {
        busy[index] = true
        return buffers[index]
    }

    /// Gives `index` back without a commit (drawn but never attached).
    func unmarkBusy(_ index: Int) { busy[index] = false }

    /// Marks `index` busy while it is lent for drawing (not yet attached).
    func attachReserve(_ index: Int) { busy[index] = true }

    private static let bufferListener = Listener(wl_buffer_listener(
        release: { data, buffer in
            let pool = object(data, as: ShmBufferPool.self)
            if let i = pool.buffers.firstIndex(where: { $0 == buffer }) { pool.busy[i] = false }
        }
    ))
}
