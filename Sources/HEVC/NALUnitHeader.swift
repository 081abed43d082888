/// nal_unit_header(), H.265 7.3.1.2.
public struct NALUnitHeader: Sendable, Equatable {
    /// nal_unit_type, u(6) (Table 7-1). Raw, since reserved/unspecified values are legal input.
    public var nalUnitType: UInt8
    /// nuh_layer_id, u(6), 0…63 (63 reserved).
    public var nuhLayerId: UInt8
    /// nuh_temporal_id_plus1, u(3), 1…7.
    public var nuhTemporalIdPlus1: UInt8

    /// The known NAL unit type, nil for reserved and unspecified values.
    public var type: NALUnitType? { NALUnitType(rawValue: nalUnitType) }
    /// TemporalId (7-1).
    public var temporalId: UInt8 { nuhTemporalIdPlus1 &- 1 }
    /// VCL NAL unit types are 0…31 (Table 7-1).
    public var isVCL: Bool { nalUnitType < 32 }
    /// IRAP pictures have types 16…23 (H.265 3.73).
    public var isIRAP: Bool { Self.isIRAP(nalUnitType: nalUnitType) }

    /// Whether `nalUnitType` (raw u(6)) is an IRAP type, 16…23 (H.265 3.73, Table 7-1).
    public static func isIRAP(nalUnitType: UInt8) -> Bool { (16...23).contains(nalUnitType) }

    public init(nalUnitType: UInt8, nuhLayerId: UInt8, nuhTemporalIdPlus1: UInt8) {
        self.nalUnitType = nalUnitType
        self.nuhLayerId = nuhLayerId
        self.nuhTemporalIdPlus1 = nuhTemporalIdPlus1
    }

    /// Reads the 16-bit header at the reader's position.
    /// - Throws: `forbiddenZeroBitSet`, `truncated`, `outOfRange` (temporal id plus 1 of 0).
    public static func read(_ r: inout BitReader) throws(HEVCError) -> NALUnitHeader {
        if try r.readFlag("forbidden_zero_bit") { throw .forbiddenZeroBitSet }
        let type = try r.readBits(6, "nal_unit_type")
        let layer = try r.readBits(6, "nuh_layer_id")
        let tid = try r.readBits(3, "nuh_temporal_id_plus1", in: 1...7)
        return NALUnitHeader(nalUnitType: UInt8(type), nuhLayerId: UInt8(layer),
                             nuhTemporalIdPlus1: UInt8(tid))
    }

    /// Parses the first two bytes of a NAL unit without reading further.
    public init(_ nal: [UInt8]) throws(HEVCError) {
        guard nal.count >= 2 else { throw .nalUnitTooShort(length: nal.count) }
        var r = BitReader(Array(nal.prefix(2)))
        self = try NALUnitHeader.read(&r)
    }
}
