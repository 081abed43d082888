import Synchronization

/// Bytes computed once, on the first read from any thread; `make` must return `count` bytes and
/// keeps whatever it reads alive until then.
package final class DeferredBytes: Sendable {
    package let count: Int
    private let state: Mutex<(bytes: [UInt8]?, make: (@Sendable () -> [UInt8])?)>

    package init(count: Int, make: @escaping @Sendable () -> [UInt8]) {
        self.count = count
        state = Mutex((nil, make))
    }

    /// The bytes, made by `make` at the first read.
    package var bytes: [UInt8] {
        state.withLock { s in
            if let b = s.bytes { return b }
            let b = s.make!()
            precondition(b.count == count, "deferred plane made \(b.count) bytes, promised \(count)")
            s = (b, nil)   // what `make` held (the decoder's frame) is let go now
            return b
        }
    }
}
