/// A NAL unit's bytes with every emulation_prevention_three_byte removed (H.265 7.3.1.1, 7.4.2).
public struct RBSP: Sendable, Equatable {
    /// The NAL unit header and payload, emulation prevention bytes removed.
    public var bytes: [UInt8]
    /// For each removed 0x03, its index in `bytes` coordinates (the index the following byte now
    /// has). Counting entries below a byte offset gives `slice_data_num_emu_prevn_bytes`.
    public var removedPositions: [Int]

    /// True when `bytes` stops before the end of the NAL unit (see `init(escaped:limit:)`).
    public var isPrefix = false

    /// Strips emulation prevention: in every `00 00 03` the `03` is dropped (7.3.1.1).
    /// - Parameter limit: stop after this many RBSP bytes (a slice header needs only its first
    ///   bytes; the slice data can be megabytes). `isPrefix` tells whether it stopped early.
    public init(escaped nal: [UInt8], limit: Int = .max) {
        var out: [UInt8] = []
        out.reserveCapacity(nal.count)
        var removed: [Int] = []
        var zeros = 0
        for byte in nal {
            if out.count >= limit {
                isPrefix = true
                break
            }
            if zeros >= 2, byte == 0x03 {
                removed.append(out.count)
                zeros = 0
                continue
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        bytes = out
        removedPositions = removed
    }

    /// Emulation prevention bytes that sat before RBSP byte `offset` in the escaped NAL unit.
    public func emulationPreventionBytes(before offset: Int) -> Int {
        var count = 0
        for p in removedPositions where p < offset { count += 1 }
        return count
    }
}
