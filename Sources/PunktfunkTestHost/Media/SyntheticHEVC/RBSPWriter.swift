/// Writes the bits of one RBSP (H.265 7.2) most significant bit first, and wraps finished RBSPs
/// into Annex-B NAL units (7.3.1.1 header, 7.4.2 emulation prevention, B.2 start codes).
///
/// Invariant: `bytes` holds the completed bytes; the `pendingCount` (0…7) most recent bits wait
/// in the low end of `pending`. No I/O; writing never fails (values wider than their field are a
/// programmer error and trap).
struct RBSPWriter {
    private(set) var bytes: [UInt8] = []
    private var pending: UInt8 = 0
    private var pendingCount = 0

    init() {}

    /// True when the next bit starts a byte.
    var isByteAligned: Bool { pendingCount == 0 }

    /// Bits written so far.
    var bitCount: Int { bytes.count * 8 + pendingCount }

    /// u(n): the low `count` (0…64) bits of `value`, most significant first.
    /// - Precondition: `value < 2^count`.
    mutating func writeBits(_ value: UInt64, count: Int) {
        precondition(count >= 0 && count <= 64 && (count == 64 || value >> UInt64(count) == 0),
                     "RBSPWriter: \(value) does not fit in \(count) bits")
        var k = count
        while k > 0 {
            k -= 1
            writeBit(UInt8(truncatingIfNeeded: value >> UInt64(k)) & 1)
        }
    }

    /// u(1).
    mutating func writeFlag(_ flag: Bool) { writeBit(flag ? 1 : 0) }

    /// One bit (0 or 1).
    mutating func writeBit(_ bit: UInt8) {
        pending = pending << 1 | (bit & 1)
        pendingCount += 1
        if pendingCount == 8 {
            bytes.append(pending)
            pending = 0
            pendingCount = 0
        }
    }

    /// ue(v), 9.2: `leadingZeros` zeros, a one, then the low `leadingZeros` bits of value + 1.
    /// - Precondition: `value < 2^32 - 1` (the spec's largest ue(v)).
    mutating func writeUE(_ value: UInt32) {
        precondition(value < UInt32.max, "RBSPWriter: ue(v) out of range")
        let codeNum = UInt64(value) + 1
        let leadingZeros = 63 - codeNum.leadingZeroBitCount
        writeBits(0, count: leadingZeros)
        writeBits(codeNum, count: leadingZeros + 1)
    }

    /// se(v), 9.2.2: k > 0 maps to 2k − 1, k ≤ 0 to −2k.
    mutating func writeSE(_ value: Int32) {
        let magnitude = UInt32(value.magnitude)
        writeUE(value > 0 ? 2 * magnitude - 1 : 2 * magnitude)
    }

    /// Zero bits up to the next byte boundary (alignment_zero_bit, pcm_alignment_zero_bit, and
    /// the tail after a CABAC flush, whose last written one is the stop bit).
    mutating func alignWithZeros() {
        while !isByteAligned { writeBit(0) }
    }

    /// rbsp_trailing_bits() (7.3.2.11): the stop one bit, then zeros to the byte boundary.
    mutating func writeTrailingBits() {
        writeBit(1)
        alignWithZeros()
    }

    /// byte_alignment() (7.3.2.12) at the end of a slice segment header: a one, then zeros.
    mutating func writeByteAlignment() { writeTrailingBits() }

    /// Whole bytes (PCM samples, filler).
    /// - Precondition: byte-aligned.
    mutating func writeBytes(_ raw: some Sequence<UInt8>) {
        precondition(isByteAligned, "RBSPWriter: raw bytes need byte alignment")
        bytes.append(contentsOf: raw)
    }
}

/// Annex-B packaging of finished RBSPs.
enum NALUnitWriter {
    /// The NAL unit types this generator writes (H.265 Table 7-1).
    enum UnitType: UInt8 {
        case trailR = 1
        case idrWRADL = 19
        case vps = 32
        case sps = 33
        case pps = 34
        case fillerData = 38
    }

    /// A 4-byte start code, the two-byte NAL unit header (layer 0, TemporalId 0) and the RBSP
    /// with an emulation_prevention_three_byte in front of any 0x00…0x03 that follows two zeros.
    /// - Precondition: `rbsp` ends in its trailing bits (a non-zero last byte), so no trailing
    ///   0x03 is ever needed.
    static func annexB(_ type: UnitType, rbsp: [UInt8]) -> [UInt8] {
        precondition(rbsp.last.map { $0 != 0 } ?? false, "NALUnitWriter: RBSP must end in trailing bits")
        var out: [UInt8] = [0, 0, 0, 1]
        out.reserveCapacity(rbsp.count + rbsp.count / 64 + 6)
        // forbidden_zero_bit 0, nal_unit_type (6), nuh_layer_id 0 (6), nuh_temporal_id_plus1 1 (3).
        out.append(type.rawValue << 1)
        out.append(1)
        var zeros = 0
        for byte in rbsp {
            if zeros >= 2 && byte <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }
}
