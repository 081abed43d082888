/// video_parameter_set_rbsp(), H.265 7.3.2.1 — read to validate and to know the sub-layer count;
/// vps_extension() data is skipped (multilayer is outside the planner's envelope).
public struct VideoParameterSet: Sendable, Equatable {
    public var header = NALUnitHeader(nalUnitType: 32, nuhLayerId: 0, nuhTemporalIdPlus1: 1)
    public var vpsVideoParameterSetId: UInt8 = 0
    public var vpsBaseLayerInternalFlag = false
    public var vpsBaseLayerAvailableFlag = false
    public var vpsMaxLayersMinus1: UInt8 = 0
    public var vpsMaxSubLayersMinus1: UInt8 = 0
    public var vpsTemporalIdNestingFlag = false
    public var profileTierLevel = ProfileTierLevel()
    public var vpsSubLayerOrderingInfoPresentFlag = false
    /// Per sub-layer; entries below the coded one are inferred from it when
    /// vps_sub_layer_ordering_info_present_flag is 0 (7.4.3.1).
    public var vpsMaxDecPicBufferingMinus1: [UInt8] = []
    public var vpsMaxNumReorderPics: [UInt8] = []
    public var vpsMaxLatencyIncreasePlus1: [UInt32] = []
    public var vpsMaxLayerId: UInt8 = 0
    public var vpsNumLayerSetsMinus1: UInt16 = 0
    public var vpsTimingInfoPresentFlag = false
    public var vpsNumUnitsInTick: UInt32 = 0
    public var vpsTimeScale: UInt32 = 0
    public var vpsExtensionFlag = false

    public init() {}

    /// Parses a whole VPS NAL unit RBSP (header included).
    public static func read(_ r: inout BitReader) throws(HEVCError) -> VideoParameterSet {
        var v = VideoParameterSet()
        v.header = try NALUnitHeader.read(&r)
        guard v.header.nalUnitType == 32 else { throw .wrongNALUnitType(expected: "VPS_NUT (32)", found: v.header.nalUnitType) }
        v.vpsVideoParameterSetId = UInt8(try r.readBits(4, "vps_video_parameter_set_id"))
        v.vpsBaseLayerInternalFlag = try r.readFlag("vps_base_layer_internal_flag")
        v.vpsBaseLayerAvailableFlag = try r.readFlag("vps_base_layer_available_flag")
        v.vpsMaxLayersMinus1 = UInt8(try r.readBits(6, "vps_max_layers_minus1", in: 0...62))
        v.vpsMaxSubLayersMinus1 = UInt8(try r.readBits(3, "vps_max_sub_layers_minus1", in: 0...6))
        v.vpsTemporalIdNestingFlag = try r.readFlag("vps_temporal_id_nesting_flag")
        _ = try r.readBits(16, "vps_reserved_0xffff_16bits")  // value ignored (7.4.3.1)
        let maxSub = Int(v.vpsMaxSubLayersMinus1)
        v.profileTierLevel = try ProfileTierLevel.read(&r, profilePresent: true, maxNumSubLayersMinus1: maxSub)
        v.vpsSubLayerOrderingInfoPresentFlag = try r.readFlag("vps_sub_layer_ordering_info_present_flag")
        let first = v.vpsSubLayerOrderingInfoPresentFlag ? 0 : maxSub
        v.vpsMaxDecPicBufferingMinus1 = [UInt8](repeating: 0, count: maxSub + 1)
        v.vpsMaxNumReorderPics = [UInt8](repeating: 0, count: maxSub + 1)
        v.vpsMaxLatencyIncreasePlus1 = [UInt32](repeating: 0, count: maxSub + 1)
        for i in first...maxSub {
            let dpb = try r.readUE("vps_max_dec_pic_buffering_minus1[\(i)]", in: 0...15)
            v.vpsMaxDecPicBufferingMinus1[i] = UInt8(dpb)
            v.vpsMaxNumReorderPics[i] = UInt8(try r.readUE("vps_max_num_reorder_pics[\(i)]", in: 0...dpb))
            v.vpsMaxLatencyIncreasePlus1[i] = try r.readUE("vps_max_latency_increase_plus1[\(i)]", in: 0...(UInt32.max - 1))
        }
        for i in 0..<first {  // inferred (7.4.3.1)
            v.vpsMaxDecPicBufferingMinus1[i] = v.vpsMaxDecPicBufferingMinus1[maxSub]
            v.vpsMaxNumReorderPics[i] = v.vpsMaxNumReorderPics[maxSub]
            v.vpsMaxLatencyIncreasePlus1[i] = v.vpsMaxLatencyIncreasePlus1[maxSub]
        }
        v.vpsMaxLayerId = UInt8(try r.readBits(6, "vps_max_layer_id", in: 0...62))
        v.vpsNumLayerSetsMinus1 = UInt16(try r.readUE("vps_num_layer_sets_minus1", in: 0...1023))
        if v.vpsNumLayerSetsMinus1 > 0 {
            for i in 1...Int(v.vpsNumLayerSetsMinus1) {
                for j in 0...Int(v.vpsMaxLayerId) { _ = try r.readFlag("layer_id_included_flag[\(i)][\(j)]") }
            }
        }
        v.vpsTimingInfoPresentFlag = try r.readFlag("vps_timing_info_present_flag")
        if v.vpsTimingInfoPresentFlag {
            v.vpsNumUnitsInTick = try r.readBits(32, "vps_num_units_in_tick", in: 1...UInt32.max)
            v.vpsTimeScale = try r.readBits(32, "vps_time_scale", in: 1...UInt32.max)
            if try r.readFlag("vps_poc_proportional_to_timing_flag") {
                _ = try r.readUE("vps_num_ticks_poc_diff_one_minus1", in: 0...(UInt32.max - 1))
            }
            let numHrd = try r.readUE("vps_num_hrd_parameters", in: 0...(UInt32(v.vpsNumLayerSetsMinus1) + 1))
            for i in 0..<Int(numHrd) {
                let low: UInt32 = v.vpsBaseLayerInternalFlag ? 0 : 1
                _ = try r.readUE("hrd_layer_set_idx[\(i)]", in: low...max(low, UInt32(v.vpsNumLayerSetsMinus1)))
                var cprms = true  // cprms_present_flag[0] inferred 1
                if i > 0 { cprms = try r.readFlag("cprms_present_flag[\(i)]") }
                _ = try HRDParameters.read(&r, commonInfPresent: cprms, maxNumSubLayersMinus1: maxSub)
            }
        }
        v.vpsExtensionFlag = try r.readFlag("vps_extension_flag")
        if !v.vpsExtensionFlag { try r.readRBSPTrailingBits() }  // extension data is ignored (7.4.3.1)
        return v
    }
}
