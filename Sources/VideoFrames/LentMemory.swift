/// Memory lent by a decoder: `count` bytes at `base`, valid until `release` runs (once, at deinit).
package final class LentMemory: @unchecked Sendable {
    package let base: UnsafeRawPointer
    package let count: Int
    private let release: () -> Void

    package init(base: UnsafeRawPointer, count: Int, release: @escaping () -> Void) {
        self.base = base; self.count = count; self.release = release
    }

    deinit { release() }
}
