#if canImport(Glibc)
import Glibc
#endif

/// The read-only bytes of one CPU plane: an array of ours, memory a decoder lends (libavcodec's
/// reference-counted frame buffers, kept alive until the last copy of the value is gone), or bytes
/// made on first read (the NV12 chroma interleave, done by whichever thread reads the plane first
/// — the presenter's copy — instead of the decode thread).
///
/// Invariant: the `count` bytes a reader sees stay valid and unchanged for the lifetime of every
/// copy.
public struct PlaneBytes: Sendable {
    private enum Backing: @unchecked Sendable {
        case owned([UInt8])
        case lent(LentMemory)
        case deferred(DeferredBytes)
    }
    private var backing: Backing

    public init(_ bytes: [UInt8]) { backing = .owned(bytes) }

    /// Memory a decoder lends; kept alive by every copy of the value.
    package init(lent: LentMemory) { backing = .lent(lent) }

    /// Bytes made on first read, by whichever thread reads first.
    package init(deferred: DeferredBytes) { backing = .deferred(deferred) }

    public var count: Int {
        switch backing {
        case .owned(let a): a.count
        case .lent(let m): m.count
        case .deferred(let d): d.count
        }
    }

    /// Calls `body` with the bytes; the pointer is valid only inside `body`.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        switch backing {
        case .owned(let a):
            // Array.withUnsafeBytes rethrows untyped; keep the typed error through a Result.
            let r: Result<R, E> = a.withUnsafeBytes { b in Result(catching: { () throws(E) -> R in try body(b) }) }
            return try r.get()
        case .lent(let m):
            return try withExtendedLifetime(m) { () throws(E) -> R in try body(UnsafeRawBufferPointer(start: m.base, count: m.count)) }
        case .deferred(let d):
            return try PlaneBytes(d.bytes).withUnsafeBytes(body)
        }
    }

    /// The bytes as an array (a copy when lent).
    public var array: [UInt8] {
        switch backing {
        case .owned(let a): return a
        case .lent: return withUnsafeBytes { Array($0) }
        case .deferred(let d): return d.bytes
        }
    }
}

extension PlaneBytes: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public subscript(position: Int) -> UInt8 {
        precondition(position >= 0 && position < count, "plane byte index out of range")
        switch backing {
        case .owned(let a): return a[position]
        case .lent(let m): return m.base.load(fromByteOffset: position, as: UInt8.self)
        case .deferred(let d): return d.bytes[position]
        }
    }
}

extension PlaneBytes: Equatable {
    public static func == (a: PlaneBytes, b: PlaneBytes) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }
}

extension PlaneBytes: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: UInt8...) { self.init(elements) }
}
