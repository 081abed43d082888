/// A big-endian bit cursor over RBSP bytes (emulation prevention already removed, see
/// `NALUnit.removeEmulationPrevention`).
///
/// Invariant: `0 <= bitPosition <= bytes.count * 8`. Every read checks the remaining length first
/// and throws `HEVCError.truncated` instead of trapping; every ue(v)/se(v) read names its legal
/// range and throws `HEVCError.outOfRange` outside it. There is no unbounded ue(v).
///
/// When `trace` is non-nil each read appends a `SyntaxElement`; element names are autoclosures
/// so an untraced parse never builds the strings.
public struct BitReader: Sendable {
    /// The RBSP bytes.
    public let bytes: [UInt8]
    /// Bits consumed so far, counted from the first bit of `bytes`.
    public private(set) var bitPosition: Int = 0
    /// The syntax element log, when tracing.
    public var trace: [SyntaxElement]?

    public init(_ bytes: [UInt8], tracing: Bool = false) {
        self.bytes = bytes
        self.trace = tracing ? [] : nil
    }

    /// Bits left before the end of `bytes`.
    public var bitsRemaining: Int { bytes.count &* 8 &- bitPosition }

    /// True on a byte boundary (H.265 7.2 byte_aligned()).
    public var isByteAligned: Bool { bitPosition & 7 == 0 }

    /// Reads `n` (0…32) bits without checks or logging. Caller guarantees `n <= bitsRemaining`.
    private mutating func take(_ n: Int) -> UInt32 {
        var value: UInt64 = 0
        var remaining = n
        while remaining > 0 {
            let byte = bytes[bitPosition >> 3]
            let offset = bitPosition & 7
            let available = 8 - offset
            let count = min(available, remaining)
            let bits = (UInt64(byte) >> UInt64(available - count)) & ((1 << UInt64(count)) - 1)
            value = (value << UInt64(count)) | bits
            remaining -= count
            bitPosition += count
        }
        return UInt32(truncatingIfNeeded: value)
    }

    private mutating func record(_ name: () -> String, at position: Int, _ value: Int64) {
        if trace != nil { trace!.append(SyntaxElement(name: name(), bitPosition: position, value: value)) }
    }

    private func need(_ n: Int, _ name: () -> String) throws(HEVCError) {
        if n > bitsRemaining {
            throw .truncated(element: name(), bitPosition: bitPosition, bitsNeeded: n,
                             bitsAvailable: bitsRemaining)
        }
    }

    /// u(n), H.265 7.2: `n` bits, 0 ≤ n ≤ 32, as an unsigned integer.
    /// - Parameter range: the legal values; nil means every n-bit value is legal.
    public mutating func readBits(_ n: Int, _ name: @autoclosure () -> String,
                                  in range: ClosedRange<UInt32>? = nil) throws(HEVCError) -> UInt32 {
        precondition((0...32).contains(n), "u(n) reads at most 32 bits")  // programmer error
        try need(n, name)
        let start = bitPosition
        let value = take(n)
        record(name, at: start, Int64(value))
        if let range, !range.contains(value) {
            throw .outOfRange(element: name(), value: Int64(value),
                              allowed: Int64(range.lowerBound)...Int64(range.upperBound))
        }
        return value
    }

    /// The next `n` (0…32) bits without consuming them, or nil if fewer remain.
    public func peekBits(_ n: Int) -> UInt32? {
        guard (0...32).contains(n), n <= bitsRemaining else { return nil }
        var copy = self
        copy.trace = nil
        return copy.take(n)
    }

    /// u(1) as a Bool.
    public mutating func readFlag(_ name: @autoclosure () -> String) throws(HEVCError) -> Bool {
        try need(1, name)
        let start = bitPosition
        let value = take(1)
        record(name, at: start, Int64(value))
        return value == 1
    }

    /// Exp-Golomb code number (H.265 9.2), at most 31 leading zeros, so ≤ 2^32 − 2.
    private mutating func codeNum(_ name: () -> String) throws(HEVCError) -> UInt64 {
        let start = bitPosition
        var leadingZeros = 0
        while true {
            try need(1, name)
            if take(1) == 1 { break }
            leadingZeros += 1
            if leadingZeros > 31 { throw .expGolombTooLong(element: name(), bitPosition: start) }
        }
        try need(leadingZeros, name)
        let suffix = UInt64(take(leadingZeros))
        return ((1 << UInt64(leadingZeros)) - 1) + suffix  // (9-2)
    }

    /// ue(v), H.265 9.2, checked against its legal `range`.
    public mutating func readUE(_ name: @autoclosure () -> String,
                                in range: ClosedRange<UInt32>) throws(HEVCError) -> UInt32 {
        let start = bitPosition
        let value = try codeNum(name)
        record(name, at: start, Int64(value))
        guard value <= UInt64(UInt32.max), range.contains(UInt32(value)) else {
            throw .outOfRange(element: name(), value: Int64(value),
                              allowed: Int64(range.lowerBound)...Int64(range.upperBound))
        }
        return UInt32(value)
    }

    /// se(v), H.265 9.2.2 (Table 9-3), checked against its legal `range`.
    public mutating func readSE(_ name: @autoclosure () -> String,
                                in range: ClosedRange<Int32>) throws(HEVCError) -> Int32 {
        let start = bitPosition
        let k = try codeNum(name)
        let magnitude = Int64((k + 1) / 2)
        let value = k & 1 == 1 ? magnitude : -magnitude  // (9-3)
        record(name, at: start, value)
        guard value >= Int64(range.lowerBound), value <= Int64(range.upperBound) else {
            throw .outOfRange(element: name(), value: value,
                              allowed: Int64(range.lowerBound)...Int64(range.upperBound))
        }
        return Int32(value)
    }

    /// Skips `n` bits without logging (extension data the decoder shall ignore).
    public mutating func skipBits(_ n: Int, _ name: @autoclosure () -> String) throws(HEVCError) {
        try need(n, name)
        bitPosition += n
    }

    /// more_rbsp_data(), H.265 7.2: true while anything other than the rbsp_trailing_bits
    /// (a 1 followed by zeros to the end) remains.
    public var moreRBSPData: Bool {
        guard bitsRemaining > 0 else { return false }
        var last = bytes.count - 1
        while last >= 0, bytes[last] == 0 { last -= 1 }  // cabac_zero_words / trailing zeros
        guard last >= 0 else { return false }
        let stopBit = last * 8 + 7 - bytes[last].trailingZeroBitCount
        return bitPosition < stopBit
    }

    /// rbsp_trailing_bits(), H.265 7.3.2.11: rbsp_stop_one_bit then zero bits to alignment.
    public mutating func readRBSPTrailingBits() throws(HEVCError) {
        _ = try readBits(1, "rbsp_stop_one_bit", in: 1...1)
        while !isByteAligned { _ = try readBits(1, "rbsp_alignment_zero_bit", in: 0...0) }
    }

    /// byte_alignment(), H.265 7.3.2.12: a one bit then zero bits to alignment (slice header end).
    public mutating func readByteAlignment() throws(HEVCError) {
        _ = try readBits(1, "alignment_bit_equal_to_one", in: 1...1)
        while !isByteAligned { _ = try readBits(1, "alignment_bit_equal_to_zero", in: 0...0) }
    }
}
