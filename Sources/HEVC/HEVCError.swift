/// Every way the HEVC planner refuses input. Each case says what was expected and what was found,
/// so a test or a log line can name the element without re-parsing.
public enum HEVCError: Error, Equatable, Sendable {
    /// The RBSP ended before `element` could be read.
    case truncated(element: String, bitPosition: Int, bitsNeeded: Int, bitsAvailable: Int)
    /// `element` was decoded as `value`, outside the range the spec allows for it.
    case outOfRange(element: String, value: Int64, allowed: ClosedRange<Int64>)
    /// An Exp-Golomb code of `element` had more than 31 leading zero bits (H.265 9.2).
    case expGolombTooLong(element: String, bitPosition: Int)
    /// `forbidden_zero_bit` was 1 (H.265 7.4.2.2).
    case forbiddenZeroBitSet
    /// A NAL unit shorter than its two-byte header (H.265 7.3.1.2).
    case nalUnitTooShort(length: Int)
    /// The NAL unit type is not the one this parser handles.
    case wrongNALUnitType(expected: String, found: UInt8)
    /// A slice or parameter set refers to a parameter set that was never received.
    case missingParameterSet(kind: ParameterSetKind, id: Int)
    /// Syntax the planner deliberately does not support (multilayer, 3D, SCC extensions …).
    case unsupported(feature: String)
    /// Values that are each in range but contradict each other or a derived variable.
    case inconsistent(element: String, reason: String)

    /// The three parameter set kinds, for `missingParameterSet`.
    public enum ParameterSetKind: String, Sendable {
        case vps, sps, pps
    }
}
