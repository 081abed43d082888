/// A listener struct at a stable address for the life of the process: libwayland keeps the
/// pointer given to `*_add_listener`, so it must never be a temporary (`&value`). One per
/// interface, shared by every proxy of it; the per-proxy context travels as the `data` pointer.
@usableFromInline
struct Listener<T>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<T>
    init(_ value: T) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: value)
    }
}

/// An object's `data` pointer (unretained: the object outlives its proxies).
@inline(__always)
func context<T: AnyObject>(_ object: T) -> UnsafeMutableRawPointer {
    Unmanaged.passUnretained(object).toOpaque()
}

/// The object behind a listener's `data` pointer.
@inline(__always)
func object<T: AnyObject>(_ data: UnsafeMutableRawPointer?, as _: T.Type) -> T {
    Unmanaged<T>.fromOpaque(data!).takeUnretainedValue()
}
