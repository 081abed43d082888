/// pic_parameter_set_rbsp(), H.265 7.3.2.3, with pps_range_extension() and the tile geometry of
/// 6.5.1. Parsed against the SPS it names (ranges depend on it). Absent elements hold their
/// inferred values. Multilayer, 3D and SCC extensions throw `unsupported`.
public struct PictureParameterSet: Sendable, Equatable {
    public var header = NALUnitHeader(nalUnitType: 34, nuhLayerId: 0, nuhTemporalIdPlus1: 1)
    public var ppsPicParameterSetId: UInt8 = 0
    public var ppsSeqParameterSetId: UInt8 = 0
    public var dependentSliceSegmentsEnabledFlag = false
    public var outputFlagPresentFlag = false
    public var numExtraSliceHeaderBits: UInt8 = 0
    public var signDataHidingEnabledFlag = false
    public var cabacInitPresentFlag = false
    public var numRefIdxL0DefaultActiveMinus1: UInt8 = 0
    public var numRefIdxL1DefaultActiveMinus1: UInt8 = 0
    public var initQpMinus26: Int8 = 0
    public var constrainedIntraPredFlag = false
    public var transformSkipEnabledFlag = false
    public var cuQpDeltaEnabledFlag = false
    /// Inferred 0 when absent.
    public var diffCuQpDeltaDepth: UInt8 = 0
    public var ppsCbQpOffset: Int8 = 0
    public var ppsCrQpOffset: Int8 = 0
    public var ppsSliceChromaQpOffsetsPresentFlag = false
    public var weightedPredFlag = false
    public var weightedBipredFlag = false
    public var transquantBypassEnabledFlag = false
    public var tilesEnabledFlag = false
    public var entropyCodingSyncEnabledFlag = false
    /// Inferred 0 when tiles are off.
    public var numTileColumnsMinus1: UInt8 = 0
    public var numTileRowsMinus1: UInt8 = 0
    /// Inferred 1 when tiles are off.
    public var uniformSpacingFlag = true
    public var columnWidthMinus1: [UInt16] = []
    public var rowHeightMinus1: [UInt16] = []
    /// Inferred 1 when absent (7.4.3.3).
    public var loopFilterAcrossTilesEnabledFlag = true
    /// colWidth[i] in CTBs (6-3 / 6-4).
    public var colWidth: [Int] = []
    /// rowHeight[j] in CTBs (6-5 / 6-6).
    public var rowHeight: [Int] = []
    public var ppsLoopFilterAcrossSlicesEnabledFlag = false
    public var deblockingFilterControlPresentFlag = false
    public var deblockingFilterOverrideEnabledFlag = false
    public var ppsDeblockingFilterDisabledFlag = false
    public var ppsBetaOffsetDiv2: Int8 = 0
    public var ppsTcOffsetDiv2: Int8 = 0
    public var ppsScalingListDataPresentFlag = false
    /// The PPS's own lists when pps_scaling_list_data_present_flag; otherwise the SPS's apply.
    public var scalingList: ScalingList? = nil
    public var listsModificationPresentFlag = false
    public var log2ParallelMergeLevelMinus2: UInt8 = 0
    public var sliceSegmentHeaderExtensionPresentFlag = false
    public var ppsExtensionPresentFlag = false
    public var ppsRangeExtensionFlag = false
    public var ppsMultilayerExtensionFlag = false
    public var pps3dExtensionFlag = false
    public var ppsSccExtensionFlag = false
    public var ppsExtension4bits: UInt8 = 0
    // pps_range_extension(), 7.3.2.3.2 — inferred 0 when absent.
    public var log2MaxTransformSkipBlockSizeMinus2: UInt8 = 0
    public var crossComponentPredictionEnabledFlag = false
    public var chromaQpOffsetListEnabledFlag = false
    public var diffCuChromaQpOffsetDepth: UInt8 = 0
    public var chromaQpOffsetListLenMinus1: UInt8 = 0
    public var cbQpOffsetList: [Int8] = []
    public var crQpOffsetList: [Int8] = []
    public var log2SaoOffsetScaleLuma: UInt8 = 0
    public var log2SaoOffsetScaleChroma: UInt8 = 0

    public init() {}

    /// Reads only up to pps_seq_parameter_set_id, to find the SPS to parse against.
    public static func peekSequenceParameterSetId(_ rbsp: [UInt8]) throws(HEVCError) -> (pps: UInt8, sps: UInt8) {
        var r = BitReader(rbsp)
        let header = try NALUnitHeader.read(&r)
        guard header.nalUnitType == 34 else { throw .wrongNALUnitType(expected: "PPS_NUT (34)", found: header.nalUnitType) }
        let pps = try r.readUE("pps_pic_parameter_set_id", in: 0...63)
        let sps = try r.readUE("pps_seq_parameter_set_id", in: 0...15)
        return (UInt8(pps), UInt8(sps))
    }

    /// Parses a whole PPS NAL unit RBSP (header included) against `sps`.
    /// - Precondition: `sps.spsSeqParameterSetId` is the PPS's pps_seq_parameter_set_id
    ///   (checked: throws `inconsistent` otherwise).
    public static func read(_ r: inout BitReader, sps: SequenceParameterSet) throws(HEVCError) -> PictureParameterSet {
        var p = PictureParameterSet()
        p.header = try NALUnitHeader.read(&r)
        guard p.header.nalUnitType == 34 else { throw .wrongNALUnitType(expected: "PPS_NUT (34)", found: p.header.nalUnitType) }
        p.ppsPicParameterSetId = UInt8(try r.readUE("pps_pic_parameter_set_id", in: 0...63))
        p.ppsSeqParameterSetId = UInt8(try r.readUE("pps_seq_parameter_set_id", in: 0...15))
        guard p.ppsSeqParameterSetId == sps.spsSeqParameterSetId else {
            throw .inconsistent(element: "pps_seq_parameter_set_id", reason: "parsed against SPS \(sps.spsSeqParameterSetId)")
        }
        p.dependentSliceSegmentsEnabledFlag = try r.readFlag("dependent_slice_segments_enabled_flag")
        p.outputFlagPresentFlag = try r.readFlag("output_flag_present_flag")
        p.numExtraSliceHeaderBits = UInt8(try r.readBits(3, "num_extra_slice_header_bits"))
        p.signDataHidingEnabledFlag = try r.readFlag("sign_data_hiding_enabled_flag")
        p.cabacInitPresentFlag = try r.readFlag("cabac_init_present_flag")
        p.numRefIdxL0DefaultActiveMinus1 = UInt8(try r.readUE("num_ref_idx_l0_default_active_minus1", in: 0...14))
        p.numRefIdxL1DefaultActiveMinus1 = UInt8(try r.readUE("num_ref_idx_l1_default_active_minus1", in: 0...14))
        let qpBdOffsetY = Int32(6 * sps.bitDepthLumaMinus8)  // QpBdOffsetY (7-5)
        p.initQpMinus26 = Int8(try r.readSE("init_qp_minus26", in: -(26 + qpBdOffsetY)...25))
        p.constrainedIntraPredFlag = try r.readFlag("constrained_intra_pred_flag")
        p.transformSkipEnabledFlag = try r.readFlag("transform_skip_enabled_flag")
        p.cuQpDeltaEnabledFlag = try r.readFlag("cu_qp_delta_enabled_flag")
        if p.cuQpDeltaEnabledFlag {
            p.diffCuQpDeltaDepth = UInt8(try r.readUE("diff_cu_qp_delta_depth",
                                                      in: 0...UInt32(sps.log2DiffMaxMinLumaCodingBlockSize)))
        }
        p.ppsCbQpOffset = Int8(try r.readSE("pps_cb_qp_offset", in: -12...12))
        p.ppsCrQpOffset = Int8(try r.readSE("pps_cr_qp_offset", in: -12...12))
        p.ppsSliceChromaQpOffsetsPresentFlag = try r.readFlag("pps_slice_chroma_qp_offsets_present_flag")
        p.weightedPredFlag = try r.readFlag("weighted_pred_flag")
        p.weightedBipredFlag = try r.readFlag("weighted_bipred_flag")
        p.transquantBypassEnabledFlag = try r.readFlag("transquant_bypass_enabled_flag")
        p.tilesEnabledFlag = try r.readFlag("tiles_enabled_flag")
        p.entropyCodingSyncEnabledFlag = try r.readFlag("entropy_coding_sync_enabled_flag")
        let widthCtbs = sps.picWidthInCtbsY, heightCtbs = sps.picHeightInCtbsY
        if p.tilesEnabledFlag {
            // Table A.8 caps columns at 20 and rows at 22; the picture caps them at its CTB count.
            p.numTileColumnsMinus1 = UInt8(try r.readUE("num_tile_columns_minus1", in: 0...UInt32(min(widthCtbs, 20) - 1)))
            p.numTileRowsMinus1 = UInt8(try r.readUE("num_tile_rows_minus1", in: 0...UInt32(min(heightCtbs, 22) - 1)))
            p.uniformSpacingFlag = try r.readFlag("uniform_spacing_flag")
            if !p.uniformSpacingFlag {
                for i in 0..<Int(p.numTileColumnsMinus1) {
                    p.columnWidthMinus1.append(UInt16(try r.readUE("column_width_minus1[\(i)]", in: 0...UInt32(widthCtbs - 1))))
                }
                for i in 0..<Int(p.numTileRowsMinus1) {
                    p.rowHeightMinus1.append(UInt16(try r.readUE("row_height_minus1[\(i)]", in: 0...UInt32(heightCtbs - 1))))
                }
            }
            p.loopFilterAcrossTilesEnabledFlag = try r.readFlag("loop_filter_across_tiles_enabled_flag")
        }
        try p.deriveTiles(widthCtbs: widthCtbs, heightCtbs: heightCtbs)
        p.ppsLoopFilterAcrossSlicesEnabledFlag = try r.readFlag("pps_loop_filter_across_slices_enabled_flag")
        p.deblockingFilterControlPresentFlag = try r.readFlag("deblocking_filter_control_present_flag")
        if p.deblockingFilterControlPresentFlag {
            p.deblockingFilterOverrideEnabledFlag = try r.readFlag("deblocking_filter_override_enabled_flag")
            p.ppsDeblockingFilterDisabledFlag = try r.readFlag("pps_deblocking_filter_disabled_flag")
            if !p.ppsDeblockingFilterDisabledFlag {
                p.ppsBetaOffsetDiv2 = Int8(try r.readSE("pps_beta_offset_div2", in: -6...6))
                p.ppsTcOffsetDiv2 = Int8(try r.readSE("pps_tc_offset_div2", in: -6...6))
            }
        }
        p.ppsScalingListDataPresentFlag = try r.readFlag("pps_scaling_list_data_present_flag")
        if p.ppsScalingListDataPresentFlag { p.scalingList = try ScalingList.read(&r) }
        p.listsModificationPresentFlag = try r.readFlag("lists_modification_present_flag")
        p.log2ParallelMergeLevelMinus2 = UInt8(try r.readUE("log2_parallel_merge_level_minus2",
                                                            in: 0...UInt32(sps.ctbLog2SizeY - 2)))
        p.sliceSegmentHeaderExtensionPresentFlag = try r.readFlag("slice_segment_header_extension_present_flag")
        p.ppsExtensionPresentFlag = try r.readFlag("pps_extension_present_flag")
        if p.ppsExtensionPresentFlag {
            p.ppsRangeExtensionFlag = try r.readFlag("pps_range_extension_flag")
            p.ppsMultilayerExtensionFlag = try r.readFlag("pps_multilayer_extension_flag")
            p.pps3dExtensionFlag = try r.readFlag("pps_3d_extension_flag")
            p.ppsSccExtensionFlag = try r.readFlag("pps_scc_extension_flag")
            p.ppsExtension4bits = UInt8(try r.readBits(4, "pps_extension_4bits"))
        }
        if p.ppsRangeExtensionFlag {  // pps_range_extension(), 7.3.2.3.2
            if p.transformSkipEnabledFlag {
                p.log2MaxTransformSkipBlockSizeMinus2 = UInt8(try r.readUE("log2_max_transform_skip_block_size_minus2", in: 0...3))
            }
            p.crossComponentPredictionEnabledFlag = try r.readFlag("cross_component_prediction_enabled_flag")
            p.chromaQpOffsetListEnabledFlag = try r.readFlag("chroma_qp_offset_list_enabled_flag")
            if p.chromaQpOffsetListEnabledFlag {
                p.diffCuChromaQpOffsetDepth = UInt8(try r.readUE("diff_cu_chroma_qp_offset_depth",
                                                                 in: 0...UInt32(sps.log2DiffMaxMinLumaCodingBlockSize)))
                p.chromaQpOffsetListLenMinus1 = UInt8(try r.readUE("chroma_qp_offset_list_len_minus1", in: 0...5))
                for i in 0...Int(p.chromaQpOffsetListLenMinus1) {
                    p.cbQpOffsetList.append(Int8(try r.readSE("cb_qp_offset_list[\(i)]", in: -12...12)))
                    p.crQpOffsetList.append(Int8(try r.readSE("cr_qp_offset_list[\(i)]", in: -12...12)))
                }
            }
            p.log2SaoOffsetScaleLuma = UInt8(try r.readUE("log2_sao_offset_scale_luma",
                                                          in: 0...UInt32(max(0, sps.bitDepthY - 10))))
            p.log2SaoOffsetScaleChroma = UInt8(try r.readUE("log2_sao_offset_scale_chroma",
                                                            in: 0...UInt32(max(0, sps.bitDepthC - 10))))
        }
        if p.ppsMultilayerExtensionFlag { throw .unsupported(feature: "pps_multilayer_extension") }
        if p.pps3dExtensionFlag { throw .unsupported(feature: "pps_3d_extension") }
        if p.ppsSccExtensionFlag { throw .unsupported(feature: "pps_scc_extension") }
        if p.ppsExtension4bits == 0 { try r.readRBSPTrailingBits() }  // extension data ignored (7.4.3.3.1)
        return p
    }

    /// colWidth and rowHeight, 6.5.1 (6-3)…(6-6).
    private mutating func deriveTiles(widthCtbs: Int, heightCtbs: Int) throws(HEVCError) {
        let cols = Int(numTileColumnsMinus1) + 1, rows = Int(numTileRowsMinus1) + 1
        if uniformSpacingFlag {
            colWidth = (0..<cols).map { ($0 + 1) * widthCtbs / cols - $0 * widthCtbs / cols }  // (6-3)
            rowHeight = (0..<rows).map { ($0 + 1) * heightCtbs / rows - $0 * heightCtbs / rows }  // (6-5)
        } else {
            colWidth = columnWidthMinus1.map { Int($0) + 1 }
            rowHeight = rowHeightMinus1.map { Int($0) + 1 }
            let lastCol = widthCtbs - colWidth.reduce(0, +)  // (6-4)
            let lastRow = heightCtbs - rowHeight.reduce(0, +)  // (6-6)
            guard lastCol > 0 else { throw .inconsistent(element: "column_width_minus1", reason: "columns exceed PicWidthInCtbsY") }
            guard lastRow > 0 else { throw .inconsistent(element: "row_height_minus1", reason: "rows exceed PicHeightInCtbsY") }
            colWidth.append(lastCol)
            rowHeight.append(lastRow)
        }
    }
}
