internal import CVA
import HEVC

/// PicturePlan → VAPictureParameterBufferHEVC and VAIQMatrixBufferHEVC (libva va_dec_hevc.h).
///
/// Rules the drivers depend on: `ReferenceFrames` has 15 entries, the planner's reference table
/// (every picture still marked as reference, Foll ones included) with the RPS membership ORed
/// into `flags`; unused entries are VA_INVALID_SURFACE + VA_PICTURE_HEVC_INVALID. The IQ matrix
/// is sent only when scaling_list_enabled_flag is 1 (an all-zero matrix zeroes every residual).
enum PictureParameters {
    /// Entries of VAPictureParameterBufferHEVC.ReferenceFrames (and of each RefPicList).
    static let referenceCapacity = 15

    /// The picture parameter buffer for `plan`; `vaSurface` maps a planner surface id to the
    /// VASurfaceID of the session's pool.
    static func make(_ plan: PicturePlan, vaSurface: (SurfaceID) -> VASurfaceID) -> VAPictureParameterBufferHEVC {
        let sps = plan.sps, pps = plan.pps
        var p = VAPictureParameterBufferHEVC()
        p.CurrPic = VAPictureHEVC(picture_id: vaSurface(plan.surface), pic_order_cnt: plan.poc, flags: 0, va_reserved: (0, 0, 0, 0))
        withUnsafeMutableBytes(of: &p.ReferenceFrames) { raw in
            let frames = raw.bindMemory(to: VAPictureHEVC.self)
            for i in 0..<referenceCapacity {
                frames[i] = VAPictureHEVC(picture_id: PF_VA_INVALID_ID, pic_order_cnt: 0,
                                          flags: UInt32(VA_PICTURE_HEVC_INVALID), va_reserved: (0, 0, 0, 0))
            }
            for (i, r) in plan.referenceFrames.prefix(referenceCapacity).enumerated() {
                var flags: UInt32 = 0
                if r.isLongTerm { flags |= UInt32(VA_PICTURE_HEVC_LONG_TERM_REFERENCE) }
                if r.inStCurrBefore { flags |= UInt32(VA_PICTURE_HEVC_RPS_ST_CURR_BEFORE) }
                if r.inStCurrAfter { flags |= UInt32(VA_PICTURE_HEVC_RPS_ST_CURR_AFTER) }
                if r.inLtCurr { flags |= UInt32(VA_PICTURE_HEVC_RPS_LT_CURR) }
                frames[i] = VAPictureHEVC(picture_id: vaSurface(r.surface), pic_order_cnt: r.poc, flags: flags,
                                          va_reserved: (0, 0, 0, 0))
            }
        }
        p.pic_width_in_luma_samples = UInt16(truncatingIfNeeded: sps.picWidthInLumaSamples)
        p.pic_height_in_luma_samples = UInt16(truncatingIfNeeded: sps.picHeightInLumaSamples)

        p.pic_fields.bits.chroma_format_idc = UInt32(sps.chromaFormatIdc)
        p.pic_fields.bits.separate_colour_plane_flag = bit(sps.separateColourPlaneFlag)
        p.pic_fields.bits.pcm_enabled_flag = bit(sps.pcmEnabledFlag)
        p.pic_fields.bits.scaling_list_enabled_flag = bit(sps.scalingListEnabledFlag)
        p.pic_fields.bits.transform_skip_enabled_flag = bit(pps.transformSkipEnabledFlag)
        p.pic_fields.bits.amp_enabled_flag = bit(sps.ampEnabledFlag)
        p.pic_fields.bits.strong_intra_smoothing_enabled_flag = bit(sps.strongIntraSmoothingEnabledFlag)
        p.pic_fields.bits.sign_data_hiding_enabled_flag = bit(pps.signDataHidingEnabledFlag)
        p.pic_fields.bits.constrained_intra_pred_flag = bit(pps.constrainedIntraPredFlag)
        p.pic_fields.bits.cu_qp_delta_enabled_flag = bit(pps.cuQpDeltaEnabledFlag)
        p.pic_fields.bits.weighted_pred_flag = bit(pps.weightedPredFlag)
        p.pic_fields.bits.weighted_bipred_flag = bit(pps.weightedBipredFlag)
        p.pic_fields.bits.transquant_bypass_enabled_flag = bit(pps.transquantBypassEnabledFlag)
        p.pic_fields.bits.tiles_enabled_flag = bit(pps.tilesEnabledFlag)
        p.pic_fields.bits.entropy_coding_sync_enabled_flag = bit(pps.entropyCodingSyncEnabledFlag)
        p.pic_fields.bits.pps_loop_filter_across_slices_enabled_flag = bit(pps.ppsLoopFilterAcrossSlicesEnabledFlag)
        p.pic_fields.bits.loop_filter_across_tiles_enabled_flag = bit(pps.loopFilterAcrossTilesEnabledFlag)
        p.pic_fields.bits.pcm_loop_filter_disabled_flag = bit(sps.pcmLoopFilterDisabledFlag)
        // NoPicReorderingFlag / NoBiPredFlag are hints a driver may use to skip work; 0 ("no
        // promise") is what libavcodec sends and is right for every stream.
        p.pic_fields.bits.NoPicReorderingFlag = 0
        p.pic_fields.bits.NoBiPredFlag = 0

        p.sps_max_dec_pic_buffering_minus1 = sps.spsMaxDecPicBufferingMinus1.last ?? 0
        p.bit_depth_luma_minus8 = sps.bitDepthLumaMinus8
        p.bit_depth_chroma_minus8 = sps.bitDepthChromaMinus8
        p.pcm_sample_bit_depth_luma_minus1 = sps.pcmSampleBitDepthLumaMinus1
        p.pcm_sample_bit_depth_chroma_minus1 = sps.pcmSampleBitDepthChromaMinus1
        p.log2_min_luma_coding_block_size_minus3 = sps.log2MinLumaCodingBlockSizeMinus3
        p.log2_diff_max_min_luma_coding_block_size = sps.log2DiffMaxMinLumaCodingBlockSize
        p.log2_min_transform_block_size_minus2 = sps.log2MinLumaTransformBlockSizeMinus2
        p.log2_diff_max_min_transform_block_size = sps.log2DiffMaxMinLumaTransformBlockSize
        p.log2_min_pcm_luma_coding_block_size_minus3 = sps.log2MinPcmLumaCodingBlockSizeMinus3
        p.log2_diff_max_min_pcm_luma_coding_block_size = sps.log2DiffMaxMinPcmLumaCodingBlockSize
        p.max_transform_hierarchy_depth_intra = sps.maxTransformHierarchyDepthIntra
        p.max_transform_hierarchy_depth_inter = sps.maxTransformHierarchyDepthInter
        p.init_qp_minus26 = pps.initQpMinus26
        p.diff_cu_qp_delta_depth = pps.diffCuQpDeltaDepth
        p.pps_cb_qp_offset = pps.ppsCbQpOffset
        p.pps_cr_qp_offset = pps.ppsCrQpOffset
        p.log2_parallel_merge_level_minus2 = pps.log2ParallelMergeLevelMinus2
        // Tiles only when the PPS enables them (Mesa reads these fields only then); column widths /
        // row heights as derived (6.5.1), uniform spacing included.
        if pps.tilesEnabledFlag {
            p.num_tile_columns_minus1 = pps.numTileColumnsMinus1
            p.num_tile_rows_minus1 = pps.numTileRowsMinus1
            withUnsafeMutableBytes(of: &p.column_width_minus1) { raw in
                let out = raw.bindMemory(to: UInt16.self)
                for (i, w) in pps.colWidth.prefix(out.count).enumerated() { out[i] = UInt16(clamping: w - 1) }
            }
            withUnsafeMutableBytes(of: &p.row_height_minus1) { raw in
                let out = raw.bindMemory(to: UInt16.self)
                for (i, h) in pps.rowHeight.prefix(out.count).enumerated() { out[i] = UInt16(clamping: h - 1) }
            }
        }

        let nal = plan.nalUnitType
        p.slice_parsing_fields.bits.lists_modification_present_flag = bit(pps.listsModificationPresentFlag)
        p.slice_parsing_fields.bits.long_term_ref_pics_present_flag = bit(sps.longTermRefPicsPresentFlag)
        p.slice_parsing_fields.bits.sps_temporal_mvp_enabled_flag = bit(sps.spsTemporalMvpEnabledFlag)
        p.slice_parsing_fields.bits.cabac_init_present_flag = bit(pps.cabacInitPresentFlag)
        p.slice_parsing_fields.bits.output_flag_present_flag = bit(pps.outputFlagPresentFlag)
        p.slice_parsing_fields.bits.dependent_slice_segments_enabled_flag = bit(pps.dependentSliceSegmentsEnabledFlag)
        p.slice_parsing_fields.bits.pps_slice_chroma_qp_offsets_present_flag = bit(pps.ppsSliceChromaQpOffsetsPresentFlag)
        p.slice_parsing_fields.bits.sample_adaptive_offset_enabled_flag = bit(sps.sampleAdaptiveOffsetEnabledFlag)
        p.slice_parsing_fields.bits.deblocking_filter_override_enabled_flag = bit(pps.deblockingFilterOverrideEnabledFlag)
        p.slice_parsing_fields.bits.pps_disable_deblocking_filter_flag = bit(pps.ppsDeblockingFilterDisabledFlag)
        p.slice_parsing_fields.bits.slice_segment_header_extension_present_flag = bit(pps.sliceSegmentHeaderExtensionPresentFlag)
        p.slice_parsing_fields.bits.RapPicFlag = bit((16...23).contains(nal))
        p.slice_parsing_fields.bits.IdrPicFlag = bit(nal == 19 || nal == 20)
        // Set for IRAP pictures only, as libavcodec does: a non-IRAP picture of I slices reads
        // "may have inter slices", which costs a driver nothing and promises nothing wrong.
        p.slice_parsing_fields.bits.IntraPicFlag = bit((16...23).contains(nal))

        p.log2_max_pic_order_cnt_lsb_minus4 = sps.log2MaxPicOrderCntLsbMinus4
        p.num_short_term_ref_pic_sets = sps.numShortTermRefPicSets
        p.num_long_term_ref_pic_sps = sps.numLongTermRefPicsSps
        p.num_ref_idx_l0_default_active_minus1 = pps.numRefIdxL0DefaultActiveMinus1
        p.num_ref_idx_l1_default_active_minus1 = pps.numRefIdxL1DefaultActiveMinus1
        p.pps_beta_offset_div2 = pps.ppsBetaOffsetDiv2
        p.pps_tc_offset_div2 = pps.ppsTcOffsetDiv2
        p.num_extra_slice_header_bits = pps.numExtraSliceHeaderBits
        // Bits of the st_ref_pic_set() coded in the slice header (0 when taken from the SPS).
        p.st_rps_bits = UInt32(clamping: plan.slices.first?.header.stRpsBits ?? 0)
        return p
    }

    /// The scaling lists in force for `plan` (PPS lists override the SPS's, 7.4.3.3), as the IQ
    /// matrix buffer wants them: raster order ("Matrix entries are in raster scan order",
    /// va_dec_hevc.h; Mesa turns them back into diagonal order, iHD reads them as raster), the
    /// 16×16/32×32 DC values beside, 32×32 lists for matrixId 0 and 3 only. Nil when
    /// scaling_list_enabled_flag is 0.
    static func iqMatrix(_ plan: PicturePlan) -> VAIQMatrixBufferHEVC? {
        guard plan.sps.scalingListEnabledFlag else { return nil }
        let lists = plan.pps.ppsScalingListDataPresentFlag ? (plan.pps.scalingList ?? .default)
                                                           : (plan.sps.scalingList ?? .default)
        var m = VAIQMatrixBufferHEVC()
        func fill<T>(_ field: inout T, sizeId: Int, matrices: [Int], count: Int) {
            withUnsafeMutableBytes(of: &field) { raw in
                for (row, matrixId) in matrices.enumerated() {
                    let src = lists.raster(sizeId: sizeId, matrixId: matrixId)
                    for j in 0..<min(count, src.count) { raw[row * count + j] = src[j] }
                }
            }
        }
        fill(&m.ScalingList4x4, sizeId: 0, matrices: Array(0..<6), count: 16)
        fill(&m.ScalingList8x8, sizeId: 1, matrices: Array(0..<6), count: 64)
        fill(&m.ScalingList16x16, sizeId: 2, matrices: Array(0..<6), count: 64)
        fill(&m.ScalingList32x32, sizeId: 3, matrices: [0, 3], count: 64)
        withUnsafeMutableBytes(of: &m.ScalingListDC16x16) { raw in
            for i in 0..<6 { raw[i] = lists.dcCoef[0][i] }
        }
        withUnsafeMutableBytes(of: &m.ScalingListDC32x32) { raw in
            raw[0] = lists.dcCoef[1][0]; raw[1] = lists.dcCoef[1][3]
        }
        return m
    }
}

@inline(__always)
func bit(_ flag: Bool) -> UInt32 { flag ? 1 : 0 }
