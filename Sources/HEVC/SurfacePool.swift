/// An abstract decode surface id; the VA-API rung maps it to a VASurfaceID of its pool.
public typealias SurfaceID = Int

/// The planner's surface ledger: a fixed pool of `capacity` ids (max DPB + 1 + headroom). An id
/// is busy while a DPB picture uses it (reference or waiting for output) or while the caller
/// holds it (e.g. on screen); it returns to the pool only when neither is true.
public struct SurfacePool: Sendable, Equatable {
    public let capacity: Int
    /// Ids in use by DPB pictures.
    public private(set) var inDPB: Set<SurfaceID> = []
    /// Ids the caller holds (`hold` / `release`), e.g. while scanned out.
    public private(set) var held: [SurfaceID: Int] = [:]

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    public func isFree(_ id: SurfaceID) -> Bool { inDPB.contains(id) == false && held[id] == nil }
    public var freeCount: Int { (0..<capacity).filter(isFree).count }

    /// The lowest free id, marked as used by the DPB; nil when the pool is exhausted.
    mutating func allocate() -> SurfaceID? {
        guard let id = (0..<capacity).first(where: isFree) else { return nil }
        inDPB.insert(id)
        return id
    }

    /// The DPB no longer uses `id` (picture emptied from the DPB, C.5.2.2 / C.5.2.4).
    mutating func leaveDPB(_ id: SurfaceID) { inDPB.remove(id) }

    /// The caller keeps `id` busy (counted: hold twice, release twice).
    public mutating func hold(_ id: SurfaceID) {
        guard (0..<capacity).contains(id) else { return }
        held[id, default: 0] += 1
    }

    public mutating func release(_ id: SurfaceID) {
        guard let n = held[id] else { return }
        held[id] = n > 1 ? n - 1 : nil
    }
}
