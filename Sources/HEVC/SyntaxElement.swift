/// One syntax element as the parser read it: its name in FFmpeg CBS spelling (the spec's
/// snake_case name plus subscripts, e.g. `sps_max_dec_pic_buffering_minus1[0]`), the bit position
/// of its first bit within the NAL unit's RBSP (NAL header included, emulation prevention bytes
/// removed) and its decoded value. Used for the trace_headers oracle and for debugging.
public struct SyntaxElement: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var bitPosition: Int
    public var value: Int64

    public init(name: String, bitPosition: Int, value: Int64) {
        self.name = name
        self.bitPosition = bitPosition
        self.value = value
    }

    public var description: String { "\(bitPosition) \(name) = \(value)" }
}
