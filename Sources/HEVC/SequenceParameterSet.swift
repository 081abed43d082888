/// seq_parameter_set_rbsp(), H.265 7.3.2.2, with the derived variables of 7.4.3.2 that later
/// stages need. Absent elements hold their inferred values. Only nuh_layer_id 0 SPSs are
/// supported (the multilayer form of 7.3.2.2 throws `unsupported`).
public struct SequenceParameterSet: Sendable, Equatable {
    public var header = NALUnitHeader(nalUnitType: 33, nuhLayerId: 0, nuhTemporalIdPlus1: 1)
    public var spsVideoParameterSetId: UInt8 = 0
    public var spsMaxSubLayersMinus1: UInt8 = 0
    public var spsTemporalIdNestingFlag = false
    public var profileTierLevel = ProfileTierLevel()
    public var spsSeqParameterSetId: UInt8 = 0
    public var chromaFormatIdc: UInt8 = 1
    public var separateColourPlaneFlag = false
    public var picWidthInLumaSamples: UInt32 = 0
    public var picHeightInLumaSamples: UInt32 = 0
    public var conformanceWindowFlag = false
    public var confWinLeftOffset: UInt32 = 0
    public var confWinRightOffset: UInt32 = 0
    public var confWinTopOffset: UInt32 = 0
    public var confWinBottomOffset: UInt32 = 0
    public var bitDepthLumaMinus8: UInt8 = 0
    public var bitDepthChromaMinus8: UInt8 = 0
    public var log2MaxPicOrderCntLsbMinus4: UInt8 = 0
    public var spsSubLayerOrderingInfoPresentFlag = false
    /// Per sub-layer 0…sps_max_sub_layers_minus1, inferred downwards when not present (7.4.3.2).
    public var spsMaxDecPicBufferingMinus1: [UInt8] = []
    public var spsMaxNumReorderPics: [UInt8] = []
    public var spsMaxLatencyIncreasePlus1: [UInt32] = []
    public var log2MinLumaCodingBlockSizeMinus3: UInt8 = 0
    public var log2DiffMaxMinLumaCodingBlockSize: UInt8 = 0
    public var log2MinLumaTransformBlockSizeMinus2: UInt8 = 0
    public var log2DiffMaxMinLumaTransformBlockSize: UInt8 = 0
    public var maxTransformHierarchyDepthInter: UInt8 = 0
    public var maxTransformHierarchyDepthIntra: UInt8 = 0
    public var scalingListEnabledFlag = false
    public var spsScalingListDataPresentFlag = false
    /// The SPS scaling lists: coded ones, or the Table 7-5/7-6 defaults when
    /// scaling_list_enabled_flag is 1 without data; nil when scaling lists are off.
    public var scalingList: ScalingList? = nil
    public var ampEnabledFlag = false
    public var sampleAdaptiveOffsetEnabledFlag = false
    public var pcmEnabledFlag = false
    public var pcmSampleBitDepthLumaMinus1: UInt8 = 0
    public var pcmSampleBitDepthChromaMinus1: UInt8 = 0
    public var log2MinPcmLumaCodingBlockSizeMinus3: UInt8 = 0
    public var log2DiffMaxMinPcmLumaCodingBlockSize: UInt8 = 0
    public var pcmLoopFilterDisabledFlag = false
    public var numShortTermRefPicSets: UInt8 = 0
    public var stRefPicSets: [ShortTermRefPicSet] = []
    public var longTermRefPicsPresentFlag = false
    public var numLongTermRefPicsSps: UInt8 = 0
    public var ltRefPicPocLsbSps: [UInt32] = []
    public var usedByCurrPicLtSpsFlag: [Bool] = []
    public var spsTemporalMvpEnabledFlag = false
    public var strongIntraSmoothingEnabledFlag = false
    public var vuiParametersPresentFlag = false
    /// The VUI, or the E.3.1 defaults when vui_parameters_present_flag is 0.
    public var vui = VUIParameters()
    public var spsExtensionPresentFlag = false
    public var spsRangeExtensionFlag = false
    public var spsMultilayerExtensionFlag = false
    public var sps3dExtensionFlag = false
    public var spsSccExtensionFlag = false
    public var spsExtension4bits: UInt8 = 0
    // sps_range_extension(), 7.3.2.2.2 — all inferred 0 when absent.
    public var transformSkipRotationEnabledFlag = false
    public var transformSkipContextEnabledFlag = false
    public var implicitRdpcmEnabledFlag = false
    public var explicitRdpcmEnabledFlag = false
    public var extendedPrecisionProcessingFlag = false
    public var intraSmoothingDisabledFlag = false
    public var highPrecisionOffsetsEnabledFlag = false
    public var persistentRiceAdaptationEnabledFlag = false
    public var cabacBypassAlignmentEnabledFlag = false

    public init() {}

    // MARK: Derived variables (7.4.3.2)

    /// ChromaArrayType (7.4.3.2).
    public var chromaArrayType: Int { separateColourPlaneFlag ? 0 : Int(chromaFormatIdc) }
    /// BitDepthY (7-4).
    public var bitDepthY: Int { 8 + Int(bitDepthLumaMinus8) }
    /// BitDepthC (7-6).
    public var bitDepthC: Int { 8 + Int(bitDepthChromaMinus8) }
    /// MaxPicOrderCntLsb (7-8).
    public var maxPicOrderCntLsb: Int { 1 << (Int(log2MaxPicOrderCntLsbMinus4) + 4) }
    /// MinCbLog2SizeY (7-10).
    public var minCbLog2SizeY: Int { Int(log2MinLumaCodingBlockSizeMinus3) + 3 }
    /// CtbLog2SizeY (7-11).
    public var ctbLog2SizeY: Int { minCbLog2SizeY + Int(log2DiffMaxMinLumaCodingBlockSize) }
    /// MinCbSizeY (7-12).
    public var minCbSizeY: Int { 1 << minCbLog2SizeY }
    /// CtbSizeY (7-13).
    public var ctbSizeY: Int { 1 << ctbLog2SizeY }
    /// PicWidthInCtbsY (7-15).
    public var picWidthInCtbsY: Int { (Int(picWidthInLumaSamples) + ctbSizeY - 1) >> ctbLog2SizeY }
    /// PicHeightInCtbsY (7-17).
    public var picHeightInCtbsY: Int { (Int(picHeightInLumaSamples) + ctbSizeY - 1) >> ctbLog2SizeY }
    /// PicSizeInCtbsY (7-19).
    public var picSizeInCtbsY: Int { picWidthInCtbsY * picHeightInCtbsY }
    /// SubWidthC, Table 6-1.
    public var subWidthC: Int { chromaArrayType == 1 || chromaArrayType == 2 ? 2 : 1 }
    /// SubHeightC, Table 6-1.
    public var subHeightC: Int { chromaArrayType == 1 ? 2 : 1 }
    /// The conformance cropping window in luma samples (7.4.3.2): x, y, width, height.
    public var conformanceWindow: (x: Int, y: Int, width: Int, height: Int) {
        let left = subWidthC * Int(confWinLeftOffset), right = subWidthC * Int(confWinRightOffset)
        let top = subHeightC * Int(confWinTopOffset), bottom = subHeightC * Int(confWinBottomOffset)
        return (left, top, Int(picWidthInLumaSamples) - left - right, Int(picHeightInLumaSamples) - top - bottom)
    }
    /// The DPB size the planner uses: sps_max_dec_pic_buffering_minus1[HighestTid] + 1.
    public var maxDecPicBuffering: Int { Int(spsMaxDecPicBufferingMinus1.last ?? 0) + 1 }

    /// Parses a whole SPS NAL unit RBSP (header included).
    /// - Parameter vpsMaxSubLayersMinus1: vps_max_sub_layers_minus1 of the VPS the SPS names,
    ///   if already received; it bounds sps_max_sub_layers_minus1 (7.4.3.2.1), else 6 does.
    public static func read(_ r: inout BitReader,
                            vpsMaxSubLayersMinus1: UInt8? = nil) throws(HEVCError) -> SequenceParameterSet {
        var s = SequenceParameterSet()
        s.header = try NALUnitHeader.read(&r)
        guard s.header.nalUnitType == 33 else { throw .wrongNALUnitType(expected: "SPS_NUT (33)", found: s.header.nalUnitType) }
        guard s.header.nuhLayerId == 0 else { throw .unsupported(feature: "SPS with nuh_layer_id \(s.header.nuhLayerId)") }
        s.spsVideoParameterSetId = UInt8(try r.readBits(4, "sps_video_parameter_set_id"))
        s.spsMaxSubLayersMinus1 = UInt8(try r.readBits(3, "sps_max_sub_layers_minus1",
                                                       in: 0...UInt32(vpsMaxSubLayersMinus1 ?? 6)))
        s.spsTemporalIdNestingFlag = try r.readFlag("sps_temporal_id_nesting_flag")
        let maxSub = Int(s.spsMaxSubLayersMinus1)
        s.profileTierLevel = try ProfileTierLevel.read(&r, profilePresent: true, maxNumSubLayersMinus1: maxSub)
        s.spsSeqParameterSetId = UInt8(try r.readUE("sps_seq_parameter_set_id", in: 0...15))
        s.chromaFormatIdc = UInt8(try r.readUE("chroma_format_idc", in: 0...3))
        if s.chromaFormatIdc == 3 { s.separateColourPlaneFlag = try r.readFlag("separate_colour_plane_flag") }
        s.picWidthInLumaSamples = try r.readUE("pic_width_in_luma_samples", in: 1...16888)
        s.picHeightInLumaSamples = try r.readUE("pic_height_in_luma_samples", in: 1...16888)
        s.conformanceWindowFlag = try r.readFlag("conformance_window_flag")
        if s.conformanceWindowFlag {
            s.confWinLeftOffset = try r.readUE("conf_win_left_offset", in: 0...s.picWidthInLumaSamples)
            s.confWinRightOffset = try r.readUE("conf_win_right_offset", in: 0...s.picWidthInLumaSamples)
            s.confWinTopOffset = try r.readUE("conf_win_top_offset", in: 0...s.picHeightInLumaSamples)
            s.confWinBottomOffset = try r.readUE("conf_win_bottom_offset", in: 0...s.picHeightInLumaSamples)
            let w = s.conformanceWindow
            guard w.width > 0, w.height > 0 else {
                throw .inconsistent(element: "conf_win_*_offset", reason: "cropped size \(w.width)x\(w.height)")
            }
        }
        s.bitDepthLumaMinus8 = UInt8(try r.readUE("bit_depth_luma_minus8", in: 0...8))
        s.bitDepthChromaMinus8 = UInt8(try r.readUE("bit_depth_chroma_minus8", in: 0...8))
        s.log2MaxPicOrderCntLsbMinus4 = UInt8(try r.readUE("log2_max_pic_order_cnt_lsb_minus4", in: 0...12))
        s.spsSubLayerOrderingInfoPresentFlag = try r.readFlag("sps_sub_layer_ordering_info_present_flag")
        let first = s.spsSubLayerOrderingInfoPresentFlag ? 0 : maxSub
        s.spsMaxDecPicBufferingMinus1 = [UInt8](repeating: 0, count: maxSub + 1)
        s.spsMaxNumReorderPics = [UInt8](repeating: 0, count: maxSub + 1)
        s.spsMaxLatencyIncreasePlus1 = [UInt32](repeating: 0, count: maxSub + 1)
        for i in first...maxSub {
            let dpb = try r.readUE("sps_max_dec_pic_buffering_minus1[\(i)]", in: 0...15)
            s.spsMaxDecPicBufferingMinus1[i] = UInt8(dpb)
            s.spsMaxNumReorderPics[i] = UInt8(try r.readUE("sps_max_num_reorder_pics[\(i)]", in: 0...dpb))
            s.spsMaxLatencyIncreasePlus1[i] = try r.readUE("sps_max_latency_increase_plus1[\(i)]", in: 0...(UInt32.max - 1))
        }
        for i in 0..<first {  // inferred (7.4.3.2)
            s.spsMaxDecPicBufferingMinus1[i] = s.spsMaxDecPicBufferingMinus1[maxSub]
            s.spsMaxNumReorderPics[i] = s.spsMaxNumReorderPics[maxSub]
            s.spsMaxLatencyIncreasePlus1[i] = s.spsMaxLatencyIncreasePlus1[maxSub]
        }
        s.log2MinLumaCodingBlockSizeMinus3 = UInt8(try r.readUE("log2_min_luma_coding_block_size_minus3", in: 0...3))
        s.log2DiffMaxMinLumaCodingBlockSize = UInt8(try r.readUE("log2_diff_max_min_luma_coding_block_size", in: 0...3))
        guard (4...6).contains(s.ctbLog2SizeY) else {  // CtbLog2SizeY 4…6 (A.4.1)
            throw .inconsistent(element: "log2_diff_max_min_luma_coding_block_size", reason: "CtbLog2SizeY \(s.ctbLog2SizeY)")
        }
        guard Int(s.picWidthInLumaSamples) % s.minCbSizeY == 0, Int(s.picHeightInLumaSamples) % s.minCbSizeY == 0 else {
            throw .inconsistent(element: "pic_width/height_in_luma_samples", reason: "not a multiple of MinCbSizeY \(s.minCbSizeY)")
        }
        s.log2MinLumaTransformBlockSizeMinus2 = UInt8(try r.readUE("log2_min_luma_transform_block_size_minus2",
                                                                   in: 0...UInt32(s.minCbLog2SizeY - 3)))
        let minTbLog2 = Int(s.log2MinLumaTransformBlockSizeMinus2) + 2
        s.log2DiffMaxMinLumaTransformBlockSize = UInt8(try r.readUE("log2_diff_max_min_luma_transform_block_size",
                                                                    in: 0...UInt32(min(s.ctbLog2SizeY, 5) - minTbLog2)))
        let depthMax = UInt32(s.ctbLog2SizeY - minTbLog2)
        s.maxTransformHierarchyDepthInter = UInt8(try r.readUE("max_transform_hierarchy_depth_inter", in: 0...depthMax))
        s.maxTransformHierarchyDepthIntra = UInt8(try r.readUE("max_transform_hierarchy_depth_intra", in: 0...depthMax))
        s.scalingListEnabledFlag = try r.readFlag("scaling_list_enabled_flag")
        if s.scalingListEnabledFlag {
            s.spsScalingListDataPresentFlag = try r.readFlag("sps_scaling_list_data_present_flag")
            // Without data the Table 7-5/7-6 defaults apply (7.4.3.2.1).
            s.scalingList = ScalingList.default
            if s.spsScalingListDataPresentFlag { s.scalingList = try ScalingList.read(&r) }
        }
        s.ampEnabledFlag = try r.readFlag("amp_enabled_flag")
        s.sampleAdaptiveOffsetEnabledFlag = try r.readFlag("sample_adaptive_offset_enabled_flag")
        s.pcmEnabledFlag = try r.readFlag("pcm_enabled_flag")
        if s.pcmEnabledFlag {
            s.pcmSampleBitDepthLumaMinus1 = UInt8(try r.readBits(4, "pcm_sample_bit_depth_luma_minus1", in: 0...UInt32(s.bitDepthY - 1)))
            s.pcmSampleBitDepthChromaMinus1 = UInt8(try r.readBits(4, "pcm_sample_bit_depth_chroma_minus1", in: 0...UInt32(s.bitDepthC - 1)))
            let lo = UInt32(min(s.minCbLog2SizeY, 5) - 3), hi = UInt32(min(s.ctbLog2SizeY, 5) - 3)
            s.log2MinPcmLumaCodingBlockSizeMinus3 = UInt8(try r.readUE("log2_min_pcm_luma_coding_block_size_minus3", in: lo...hi))
            s.log2DiffMaxMinPcmLumaCodingBlockSize = UInt8(try r.readUE("log2_diff_max_min_pcm_luma_coding_block_size",
                                                                       in: 0...(hi - UInt32(s.log2MinPcmLumaCodingBlockSizeMinus3))))
            s.pcmLoopFilterDisabledFlag = try r.readFlag("pcm_loop_filter_disabled_flag")
        }
        s.numShortTermRefPicSets = UInt8(try r.readUE("num_short_term_ref_pic_sets", in: 0...64))
        let maxDpbMinus1 = Int(s.spsMaxDecPicBufferingMinus1[maxSub])
        for i in 0..<Int(s.numShortTermRefPicSets) {
            s.stRefPicSets.append(try ShortTermRefPicSet.read(&r, stRpsIdx: i, previous: s.stRefPicSets,
                                                              numShortTermRefPicSets: Int(s.numShortTermRefPicSets),
                                                              maxDecPicBufferingMinus1: maxDpbMinus1))
        }
        s.longTermRefPicsPresentFlag = try r.readFlag("long_term_ref_pics_present_flag")
        if s.longTermRefPicsPresentFlag {
            s.numLongTermRefPicsSps = UInt8(try r.readUE("num_long_term_ref_pics_sps", in: 0...32))
            let lsbBits = Int(s.log2MaxPicOrderCntLsbMinus4) + 4
            for i in 0..<Int(s.numLongTermRefPicsSps) {
                s.ltRefPicPocLsbSps.append(try r.readBits(lsbBits, "lt_ref_pic_poc_lsb_sps[\(i)]"))
                s.usedByCurrPicLtSpsFlag.append(try r.readFlag("used_by_curr_pic_lt_sps_flag[\(i)]"))
            }
        }
        s.spsTemporalMvpEnabledFlag = try r.readFlag("sps_temporal_mvp_enabled_flag")
        s.strongIntraSmoothingEnabledFlag = try r.readFlag("strong_intra_smoothing_enabled_flag")
        s.vuiParametersPresentFlag = try r.readFlag("vui_parameters_present_flag")
        if s.vuiParametersPresentFlag {
            s.vui = try VUIParameters.read(&r, spsMaxSubLayersMinus1: maxSub)
        }
        s.spsExtensionPresentFlag = try r.readFlag("sps_extension_present_flag")
        if s.spsExtensionPresentFlag {
            s.spsRangeExtensionFlag = try r.readFlag("sps_range_extension_flag")
            s.spsMultilayerExtensionFlag = try r.readFlag("sps_multilayer_extension_flag")
            s.sps3dExtensionFlag = try r.readFlag("sps_3d_extension_flag")
            s.spsSccExtensionFlag = try r.readFlag("sps_scc_extension_flag")
            s.spsExtension4bits = UInt8(try r.readBits(4, "sps_extension_4bits"))
        }
        if s.spsRangeExtensionFlag {  // sps_range_extension(), 7.3.2.2.2
            s.transformSkipRotationEnabledFlag = try r.readFlag("transform_skip_rotation_enabled_flag")
            s.transformSkipContextEnabledFlag = try r.readFlag("transform_skip_context_enabled_flag")
            s.implicitRdpcmEnabledFlag = try r.readFlag("implicit_rdpcm_enabled_flag")
            s.explicitRdpcmEnabledFlag = try r.readFlag("explicit_rdpcm_enabled_flag")
            s.extendedPrecisionProcessingFlag = try r.readFlag("extended_precision_processing_flag")
            s.intraSmoothingDisabledFlag = try r.readFlag("intra_smoothing_disabled_flag")
            s.highPrecisionOffsetsEnabledFlag = try r.readFlag("high_precision_offsets_enabled_flag")
            s.persistentRiceAdaptationEnabledFlag = try r.readFlag("persistent_rice_adaptation_enabled_flag")
            s.cabacBypassAlignmentEnabledFlag = try r.readFlag("cabac_bypass_alignment_enabled_flag")
        }
        if s.spsMultilayerExtensionFlag { throw .unsupported(feature: "sps_multilayer_extension") }
        if s.sps3dExtensionFlag { throw .unsupported(feature: "sps_3d_extension") }
        if s.spsSccExtensionFlag { throw .unsupported(feature: "sps_scc_extension") }
        // sps_extension_data_flag bits are ignored (7.4.3.2.1); only check trailing bits without them.
        if s.spsExtension4bits == 0 { try r.readRBSPTrailingBits() }
        return s
    }
}
