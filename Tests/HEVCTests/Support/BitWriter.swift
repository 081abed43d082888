/// Writes syntax elements MSB-first, for hand-built bitstreams in tests.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private(set) var bitCount = 0

    mutating func u(_ n: Int, _ value: UInt64) {
        for i in stride(from: n - 1, through: 0, by: -1) { bit((value >> UInt64(i)) & 1 == 1) }
    }
    mutating func flag(_ b: Bool) { bit(b) }
    mutating func ue(_ value: UInt64) {
        let v = value + 1
        let len = 64 - v.leadingZeroBitCount
        u(len - 1, 0)
        u(len, v)
    }
    mutating func se(_ value: Int64) { ue(value > 0 ? UInt64(2 * value - 1) : UInt64(-2 * value)) }
    /// rbsp_trailing_bits / byte_alignment: a one then zeros to the byte boundary.
    mutating func trailingBits() {
        bit(true)
        while bitCount % 8 != 0 { bit(false) }
    }
    private mutating func bit(_ b: Bool) {
        if bitCount % 8 == 0 { bytes.append(0) }
        if b { bytes[bytes.count - 1] |= 0x80 >> UInt8(bitCount % 8) }
        bitCount += 1
    }
}
