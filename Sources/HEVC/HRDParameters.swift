/// hrd_parameters(), H.265 E.2.2 — read so the VPS and VUI cursor stays right; only the delay
/// lengths a later SEI parser needs are kept.
public struct HRDParameters: Sendable, Equatable {
    public var nalHrdParametersPresentFlag = false
    public var vclHrdParametersPresentFlag = false
    public var subPicHrdParamsPresentFlag = false
    /// Inferred 23 when absent (E.3.2).
    public var initialCpbRemovalDelayLengthMinus1: UInt8 = 23
    public var auCpbRemovalDelayLengthMinus1: UInt8 = 23
    public var dpbOutputDelayLengthMinus1: UInt8 = 23
    public var cpbCntMinus1: [UInt8] = []

    public init() {}

    public static func read(_ r: inout BitReader, commonInfPresent: Bool,
                            maxNumSubLayersMinus1: Int) throws(HEVCError) -> HRDParameters {
        var h = HRDParameters()
        if commonInfPresent {
            h.nalHrdParametersPresentFlag = try r.readFlag("nal_hrd_parameters_present_flag")
            h.vclHrdParametersPresentFlag = try r.readFlag("vcl_hrd_parameters_present_flag")
            if h.nalHrdParametersPresentFlag || h.vclHrdParametersPresentFlag {
                h.subPicHrdParamsPresentFlag = try r.readFlag("sub_pic_hrd_params_present_flag")
                if h.subPicHrdParamsPresentFlag {
                    _ = try r.readBits(8, "tick_divisor_minus2")
                    _ = try r.readBits(5, "du_cpb_removal_delay_increment_length_minus1")
                    _ = try r.readFlag("sub_pic_cpb_params_in_pic_timing_sei_flag")
                    _ = try r.readBits(5, "dpb_output_delay_du_length_minus1")
                }
                _ = try r.readBits(4, "bit_rate_scale")
                _ = try r.readBits(4, "cpb_size_scale")
                if h.subPicHrdParamsPresentFlag { _ = try r.readBits(4, "cpb_size_du_scale") }
                h.initialCpbRemovalDelayLengthMinus1 = UInt8(try r.readBits(5, "initial_cpb_removal_delay_length_minus1"))
                h.auCpbRemovalDelayLengthMinus1 = UInt8(try r.readBits(5, "au_cpb_removal_delay_length_minus1"))
                h.dpbOutputDelayLengthMinus1 = UInt8(try r.readBits(5, "dpb_output_delay_length_minus1"))
            }
        }
        for i in 0...maxNumSubLayersMinus1 {
            let fixedGeneral = try r.readFlag("fixed_pic_rate_general_flag[\(i)]")
            var fixedWithinCvs = true  // inferred 1 when fixed_pic_rate_general_flag (E.3.2)
            if !fixedGeneral { fixedWithinCvs = try r.readFlag("fixed_pic_rate_within_cvs_flag[\(i)]") }
            var lowDelay = false
            if fixedWithinCvs {
                _ = try r.readUE("elemental_duration_in_tc_minus1[\(i)]", in: 0...2047)
            } else {
                lowDelay = try r.readFlag("low_delay_hrd_flag[\(i)]")
            }
            var cpbCnt: UInt32 = 0
            if !lowDelay { cpbCnt = try r.readUE("cpb_cnt_minus1[\(i)]", in: 0...31) }
            h.cpbCntMinus1.append(UInt8(cpbCnt))
            if h.nalHrdParametersPresentFlag { try readSubLayer(&r, cpbCnt: cpbCnt, h.subPicHrdParamsPresentFlag) }
            if h.vclHrdParametersPresentFlag { try readSubLayer(&r, cpbCnt: cpbCnt, h.subPicHrdParamsPresentFlag) }
        }
        return h
    }

    /// sub_layer_hrd_parameters(), E.2.3.
    private static func readSubLayer(_ r: inout BitReader, cpbCnt: UInt32,
                                     _ subPic: Bool) throws(HEVCError) {
        for i in 0...Int(cpbCnt) {
            _ = try r.readUE("bit_rate_value_minus1[\(i)]", in: 0...(UInt32.max - 1))
            _ = try r.readUE("cpb_size_value_minus1[\(i)]", in: 0...(UInt32.max - 1))
            if subPic {
                _ = try r.readUE("cpb_size_du_value_minus1[\(i)]", in: 0...(UInt32.max - 1))
                _ = try r.readUE("bit_rate_du_value_minus1[\(i)]", in: 0...(UInt32.max - 1))
            }
            _ = try r.readFlag("cbr_flag[\(i)]")
        }
    }
}
