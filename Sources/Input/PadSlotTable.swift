import PunktfunkWire

/// Stable wire pad slots 0..<16. A pad with a `uniq` (serial / Bluetooth address) that comes
/// back gets the slot it had; a new pad takes the lowest slot nobody holds or remembers, and
/// only when none is left the slot remembered longest ago. Pure.
public struct PadSlotTable: Sendable {
    private struct Slot: Sendable {
        var device: Int?
        var uniq: String?
        /// When it was last freed (ordering only).
        var freedAt: UInt64 = 0
    }
    private var slots = [Slot](repeating: Slot(), count: Gamepad.maxPads)
    private var clock: UInt64 = 0

    public init() {}

    /// A slot for `device` (the caller's id for the open pad); nil when 16 pads are present.
    public mutating func assign(device: Int, uniq: String?) -> Int? {
        let uniq = uniq.flatMap { $0.isEmpty ? nil : $0 }
        if let uniq, let i = slots.firstIndex(where: { $0.device == nil && $0.uniq == uniq }) {
            slots[i].device = device
            return i
        }
        let free = slots.indices.filter { slots[$0].device == nil }
        guard !free.isEmpty else { return nil }
        let i = free.first { slots[$0].uniq == nil } ?? free.min { slots[$0].freedAt < slots[$1].freedAt }!
        slots[i] = Slot(device: device, uniq: uniq)
        return i
    }

    /// Frees the slot of `device`, remembering its `uniq`. - Returns: the slot it had.
    @discardableResult
    public mutating func release(device: Int) -> Int? {
        guard let i = slots.firstIndex(where: { $0.device == device }) else { return nil }
        clock += 1
        slots[i].device = nil
        slots[i].freedAt = clock
        return i
    }

    public func slot(of device: Int) -> Int? { slots.firstIndex { $0.device == device } }
}
