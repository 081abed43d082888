internal import CSodium

/// Fixed-size secret memory with exactly one owner: allocated zeroed, wiped with
/// `sodium_memzero` when the owner goes away, never copied (pairing scalars, password hash,
/// intermediate points of control-plane.md §6.1).
struct SecretBytes: ~Copyable {
    private let base: UnsafeMutablePointer<UInt8>
    let count: Int

    init(count: Int) {
        precondition(count > 0, "secret buffers are not empty")
        base = .allocate(capacity: count)
        base.initialize(repeating: 0, count: count)
        self.count = count
    }

    deinit {
        sodium_memzero(base, count)
        base.deinitialize(count: count)
        base.deallocate()
    }

    /// Read access; the pointer must not escape `body`.
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        body(UnsafeBufferPointer(start: base, count: count))
    }

    /// Write access; the pointer must not escape `body`.
    func withMutableBytes<R>(_ body: (UnsafeMutableBufferPointer<UInt8>) -> R) -> R {
        body(UnsafeMutableBufferPointer(start: base, count: count))
    }
}

/// libsodium is initialised once per process before any secret is drawn (`sodium_init` is
/// idempotent and thread-safe; a negative result means it cannot run).
enum Sodium {
    static let isReady: Bool = sodium_init() >= 0
}
