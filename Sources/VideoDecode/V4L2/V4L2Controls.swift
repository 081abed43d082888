internal import CV4L2
import HEVC

/// PicturePlan → the V4L2 stateless HEVC controls (linux/v4l2-controls.h; semantics from the
/// kernel's uAPI documentation, ext-ctrls-codec-stateless.rst).
///
/// Rules the drivers depend on:
/// - DPB entries name reference pictures by the timestamp (ns) of the CAPTURE buffer they were
///   decoded into; `poc_st_curr_before/after`, `poc_lt_curr` and `ref_idx_l0/l1` are indices into
///   `dpb`, 0xFF where unused.
/// - The scaling lists are in raster order (the bitstream codes them in up-right diagonal order,
///   H.265 6.5.3); DC values are the coefficients themselves (dc_coef_minus8 + 8).
/// - `data_byte_offset` counts the bytes of the NAL unit header and slice segment header without
///   emulation prevention bytes (plus the start code when the driver wants one); `bit_size` is the
///   slice NAL unit as it sits in the OUTPUT buffer.
/// - Weighted prediction tables carry the coded luma offsets and weight deltas and the derived
///   ChromaOffsetLX (7-56), each as a signed byte.
enum V4L2Controls {
    /// Where each of a picture's reference pictures sits in the `dpb` array (nil: not in it).
    typealias DPBIndex = (SurfaceID) -> UInt8?

    static func sps(_ s: SequenceParameterSet) -> v4l2_ctrl_hevc_sps {
        var c = v4l2_ctrl_hevc_sps()
        c.video_parameter_set_id = s.spsVideoParameterSetId
        c.seq_parameter_set_id = s.spsSeqParameterSetId
        c.pic_width_in_luma_samples = UInt16(clamping: s.picWidthInLumaSamples)
        c.pic_height_in_luma_samples = UInt16(clamping: s.picHeightInLumaSamples)
        c.bit_depth_luma_minus8 = s.bitDepthLumaMinus8
        c.bit_depth_chroma_minus8 = s.bitDepthChromaMinus8
        c.log2_max_pic_order_cnt_lsb_minus4 = s.log2MaxPicOrderCntLsbMinus4
        // The DPB the whole CVS needs: the values of the highest sub-layer (HighestTid).
        c.sps_max_dec_pic_buffering_minus1 = s.spsMaxDecPicBufferingMinus1.last ?? 0
        c.sps_max_num_reorder_pics = s.spsMaxNumReorderPics.last ?? 0
        c.sps_max_latency_increase_plus1 = UInt8(clamping: s.spsMaxLatencyIncreasePlus1.last ?? 0)
        c.log2_min_luma_coding_block_size_minus3 = s.log2MinLumaCodingBlockSizeMinus3
        c.log2_diff_max_min_luma_coding_block_size = s.log2DiffMaxMinLumaCodingBlockSize
        c.log2_min_luma_transform_block_size_minus2 = s.log2MinLumaTransformBlockSizeMinus2
        c.log2_diff_max_min_luma_transform_block_size = s.log2DiffMaxMinLumaTransformBlockSize
        c.max_transform_hierarchy_depth_inter = s.maxTransformHierarchyDepthInter
        c.max_transform_hierarchy_depth_intra = s.maxTransformHierarchyDepthIntra
        if s.pcmEnabledFlag {
            c.pcm_sample_bit_depth_luma_minus1 = s.pcmSampleBitDepthLumaMinus1
            c.pcm_sample_bit_depth_chroma_minus1 = s.pcmSampleBitDepthChromaMinus1
            c.log2_min_pcm_luma_coding_block_size_minus3 = s.log2MinPcmLumaCodingBlockSizeMinus3
            c.log2_diff_max_min_pcm_luma_coding_block_size = s.log2DiffMaxMinPcmLumaCodingBlockSize
        }
        c.num_short_term_ref_pic_sets = s.numShortTermRefPicSets
        c.num_long_term_ref_pics_sps = s.longTermRefPicsPresentFlag ? s.numLongTermRefPicsSps : 0
        c.chroma_format_idc = s.chromaFormatIdc
        c.sps_max_sub_layers_minus1 = s.spsMaxSubLayersMinus1
        var f: UInt64 = 0
        if s.separateColourPlaneFlag { f |= UInt64(V4L2_HEVC_SPS_FLAG_SEPARATE_COLOUR_PLANE) }
        if s.scalingListEnabledFlag { f |= UInt64(V4L2_HEVC_SPS_FLAG_SCALING_LIST_ENABLED) }
        if s.ampEnabledFlag { f |= UInt64(V4L2_HEVC_SPS_FLAG_AMP_ENABLED) }
        if s.sampleAdaptiveOffsetEnabledFlag { f |= UInt64(V4L2_HEVC_SPS_FLAG_SAMPLE_ADAPTIVE_OFFSET) }
        if s.pcmEnabledFlag { f |= UInt64(V4L2_HEVC_SPS_FLAG_PCM_ENABLED) }
        if s.pcmEnabledFlag && s.pcmLoopFilterDisabledFlag { f |= UInt64(V4L2_HEVC_SPS_FLAG_PCM_LOOP_FILTER_DISABLED) }
        if s.longTermRefPicsPresentFlag { f |= UInt64(V4L2_HEVC_SPS_FLAG_LONG_TERM_REF_PICS_PRESENT) }
        if s.spsTemporalMvpEnabledFlag { f |= UInt64(V4L2_HEVC_SPS_FLAG_SPS_TEMPORAL_MVP_ENABLED) }
        if s.strongIntraSmoothingEnabledFlag { f |= UInt64(V4L2_HEVC_SPS_FLAG_STRONG_INTRA_SMOOTHING_ENABLED) }
        c.flags = f
        return c
    }

    static func pps(_ p: PictureParameterSet) -> v4l2_ctrl_hevc_pps {
        var c = v4l2_ctrl_hevc_pps()
        c.pic_parameter_set_id = p.ppsPicParameterSetId
        c.num_extra_slice_header_bits = p.numExtraSliceHeaderBits
        c.num_ref_idx_l0_default_active_minus1 = p.numRefIdxL0DefaultActiveMinus1
        c.num_ref_idx_l1_default_active_minus1 = p.numRefIdxL1DefaultActiveMinus1
        c.init_qp_minus26 = p.initQpMinus26
        c.diff_cu_qp_delta_depth = p.cuQpDeltaEnabledFlag ? p.diffCuQpDeltaDepth : 0
        c.pps_cb_qp_offset = p.ppsCbQpOffset
        c.pps_cr_qp_offset = p.ppsCrQpOffset
        if p.tilesEnabledFlag {
            c.num_tile_columns_minus1 = p.numTileColumnsMinus1
            c.num_tile_rows_minus1 = p.numTileRowsMinus1
            // The derived widths and heights (6.5.1), uniform spacing included: some drivers
            // (cedrus) read them whatever uniform_spacing_flag says.
            fill(&c.column_width_minus1, p.colWidth.map { UInt8(clamping: $0 - 1) })
            fill(&c.row_height_minus1, p.rowHeight.map { UInt8(clamping: $0 - 1) })
        }
        if !p.ppsDeblockingFilterDisabledFlag {
            c.pps_beta_offset_div2 = p.ppsBetaOffsetDiv2
            c.pps_tc_offset_div2 = p.ppsTcOffsetDiv2
        }
        c.log2_parallel_merge_level_minus2 = p.log2ParallelMergeLevelMinus2
        var f: UInt64 = 0
        func set<I: BinaryInteger>(_ on: Bool, _ flag: I) { if on { f |= UInt64(flag) } }
        set(p.dependentSliceSegmentsEnabledFlag, V4L2_HEVC_PPS_FLAG_DEPENDENT_SLICE_SEGMENT_ENABLED)
        set(p.outputFlagPresentFlag, V4L2_HEVC_PPS_FLAG_OUTPUT_FLAG_PRESENT)
        set(p.signDataHidingEnabledFlag, V4L2_HEVC_PPS_FLAG_SIGN_DATA_HIDING_ENABLED)
        set(p.cabacInitPresentFlag, V4L2_HEVC_PPS_FLAG_CABAC_INIT_PRESENT)
        set(p.constrainedIntraPredFlag, V4L2_HEVC_PPS_FLAG_CONSTRAINED_INTRA_PRED)
        set(p.transformSkipEnabledFlag, V4L2_HEVC_PPS_FLAG_TRANSFORM_SKIP_ENABLED)
        set(p.cuQpDeltaEnabledFlag, V4L2_HEVC_PPS_FLAG_CU_QP_DELTA_ENABLED)
        set(p.ppsSliceChromaQpOffsetsPresentFlag, V4L2_HEVC_PPS_FLAG_PPS_SLICE_CHROMA_QP_OFFSETS_PRESENT)
        set(p.weightedPredFlag, V4L2_HEVC_PPS_FLAG_WEIGHTED_PRED)
        set(p.weightedBipredFlag, V4L2_HEVC_PPS_FLAG_WEIGHTED_BIPRED)
        set(p.transquantBypassEnabledFlag, V4L2_HEVC_PPS_FLAG_TRANSQUANT_BYPASS_ENABLED)
        set(p.tilesEnabledFlag, V4L2_HEVC_PPS_FLAG_TILES_ENABLED)
        set(p.entropyCodingSyncEnabledFlag, V4L2_HEVC_PPS_FLAG_ENTROPY_CODING_SYNC_ENABLED)
        set(p.tilesEnabledFlag && p.loopFilterAcrossTilesEnabledFlag, V4L2_HEVC_PPS_FLAG_LOOP_FILTER_ACROSS_TILES_ENABLED)
        set(p.ppsLoopFilterAcrossSlicesEnabledFlag, V4L2_HEVC_PPS_FLAG_PPS_LOOP_FILTER_ACROSS_SLICES_ENABLED)
        set(p.deblockingFilterOverrideEnabledFlag, V4L2_HEVC_PPS_FLAG_DEBLOCKING_FILTER_OVERRIDE_ENABLED)
        set(p.ppsDeblockingFilterDisabledFlag, V4L2_HEVC_PPS_FLAG_PPS_DISABLE_DEBLOCKING_FILTER)
        set(p.listsModificationPresentFlag, V4L2_HEVC_PPS_FLAG_LISTS_MODIFICATION_PRESENT)
        set(p.sliceSegmentHeaderExtensionPresentFlag, V4L2_HEVC_PPS_FLAG_SLICE_SEGMENT_HEADER_EXTENSION_PRESENT)
        set(p.deblockingFilterControlPresentFlag, V4L2_HEVC_PPS_FLAG_DEBLOCKING_FILTER_CONTROL_PRESENT)
        set(p.uniformSpacingFlag, V4L2_HEVC_PPS_FLAG_UNIFORM_SPACING)  // inferred 1 without tiles (7.4.3.3)
        c.flags = f
        return c
    }

    /// The scaling lists in force for the picture (the PPS's when it codes them, else the SPS's,
    /// 7.4.3.3), in raster order; all zero when scaling_list_enabled_flag is 0.
    static func scalingMatrix(_ plan: PicturePlan) -> v4l2_ctrl_hevc_scaling_matrix {
        var m = v4l2_ctrl_hevc_scaling_matrix()
        guard plan.sps.scalingListEnabledFlag else { return m }
        let lists = plan.pps.ppsScalingListDataPresentFlag ? (plan.pps.scalingList ?? .default)
                                                           : (plan.sps.scalingList ?? .default)
        func put<T>(_ field: inout T, sizeId: Int, matrices: [Int], side: Int) {
            let scan = UpRightDiagonalScan.order(blockSize: side)
            withUnsafeMutableBytes(of: &field) { raw in
                let count = side * side
                for (row, matrixId) in matrices.enumerated() {
                    let coded = lists.lists[sizeId][matrixId]
                    for (i, position) in scan.enumerated() where i < coded.count {
                        raw[row * count + position.y * side + position.x] = coded[i]
                    }
                }
            }
        }
        put(&m.scaling_list_4x4, sizeId: 0, matrices: Array(0..<6), side: 4)
        put(&m.scaling_list_8x8, sizeId: 1, matrices: Array(0..<6), side: 8)
        put(&m.scaling_list_16x16, sizeId: 2, matrices: Array(0..<6), side: 8)
        put(&m.scaling_list_32x32, sizeId: 3, matrices: [0, 3], side: 8)
        fill(&m.scaling_list_dc_coef_16x16, Array(lists.dcCoef[0].prefix(6)))
        fill(&m.scaling_list_dc_coef_32x32, [lists.dcCoef[1][0], lists.dcCoef[1][3]])
        return m
    }

    /// - Parameters:
    ///   - timestamp: the CAPTURE timestamp (ns) each reference surface was decoded with.
    static func decodeParams(_ plan: PicturePlan, timestamp: (SurfaceID) -> UInt64) -> v4l2_ctrl_hevc_decode_params {
        var d = v4l2_ctrl_hevc_decode_params()
        d.pic_order_cnt_val = plan.poc
        let first = plan.slices.first?.header
        d.short_term_ref_pic_set_size = UInt16(clamping: first?.stRpsBits ?? 0)
        d.long_term_ref_pic_set_size = UInt16(clamping: first?.ltRpsBits ?? 0)
        let references = Array(plan.referenceFrames.prefix(Int(V4L2_HEVC_DPB_ENTRIES_NUM_MAX)))
        d.num_active_dpb_entries = UInt8(references.count)
        withUnsafeMutableBytes(of: &d.dpb) { raw in
            let entries = raw.bindMemory(to: v4l2_hevc_dpb_entry.self)
            for (i, r) in references.enumerated() {
                var e = v4l2_hevc_dpb_entry()
                e.timestamp = timestamp(r.surface)
                e.flags = r.isLongTerm ? UInt8(V4L2_HEVC_DPB_ENTRY_LONG_TERM_REFERENCE) : 0
                e.field_pic = UInt8(V4L2_HEVC_SEI_PIC_STRUCT_FRAME)
                e.pic_order_cnt_val = r.poc
                entries[i] = e
            }
        }
        let index = dpbIndex(plan)
        func indices(_ list: [ReferenceEntry]) -> [UInt8] { list.map { index($0.surface) ?? 0xFF } }
        let before = indices(plan.rps.stCurrBefore), after = indices(plan.rps.stCurrAfter), lt = indices(plan.rps.ltCurr)
        d.num_poc_st_curr_before = UInt8(clamping: before.count)
        d.num_poc_st_curr_after = UInt8(clamping: after.count)
        d.num_poc_lt_curr = UInt8(clamping: lt.count)
        fill(&d.poc_st_curr_before, before, unused: 0xFF)
        fill(&d.poc_st_curr_after, after, unused: 0xFF)
        fill(&d.poc_lt_curr, lt, unused: 0xFF)
        if let first { d.num_delta_pocs_of_ref_rps_idx = numDeltaPocsOfRefRpsIdx(first, sps: plan.sps) }
        var f: UInt64 = 0
        if NALUnitHeader.isIRAP(nalUnitType: plan.nalUnitType) { f |= UInt64(V4L2_HEVC_DECODE_PARAM_FLAG_IRAP_PIC) }
        if plan.nalUnitType == 19 || plan.nalUnitType == 20 { f |= UInt64(V4L2_HEVC_DECODE_PARAM_FLAG_IDR_PIC) }
        if first?.noOutputOfPriorPicsFlag == true { f |= UInt64(V4L2_HEVC_DECODE_PARAM_FLAG_NO_OUTPUT_OF_PRIOR) }
        d.flags = f
        return d
    }

    /// NumDeltaPocs[RefRpsIdx] (7-59, 7-69) when the slice codes its own short-term RPS predicted
    /// from one of the SPS's; 0 otherwise (the uAPI's rule for short_term_ref_pic_set_sps_flag 1).
    static func numDeltaPocsOfRefRpsIdx(_ h: SliceSegmentHeader, sps: SequenceParameterSet) -> UInt8 {
        let rps = h.shortTermRefPicSet
        guard !h.shortTermRefPicSetSpsFlag, rps.interRefPicSetPredictionFlag else { return 0 }
        let refRpsIdx = Int(sps.numShortTermRefPicSets) - (Int(rps.deltaIdxMinus1) + 1)
        guard refRpsIdx >= 0, refRpsIdx < sps.stRefPicSets.count else { return 0 }
        return UInt8(clamping: sps.stRefPicSets[refRpsIdx].numDeltaPocs)
    }

    /// The index of each reference surface in the `dpb` array `decodeParams` builds.
    static func dpbIndex(_ plan: PicturePlan) -> DPBIndex {
        var map: [SurfaceID: UInt8] = [:]
        for (i, r) in plan.referenceFrames.prefix(Int(V4L2_HEVC_DPB_ENTRIES_NUM_MAX)).enumerated() { map[r.surface] = UInt8(i) }
        return { map[$0] }
    }

    /// One slice segment.
    /// - Parameters:
    ///   - nalBytes: the escaped NAL unit's size (without start code).
    ///   - startCodeBytes: bytes of start code in front of it in the OUTPUT buffer (0 or 3).
    static func sliceParams(_ slice: SlicePlan, plan: PicturePlan, nalBytes: Int, startCodeBytes: Int,
                            dpbIndex: DPBIndex) -> v4l2_ctrl_hevc_slice_params {
        let h = slice.header
        var s = v4l2_ctrl_hevc_slice_params()
        s.bit_size = UInt32(clamping: (nalBytes + startCodeBytes) * 8)
        s.data_byte_offset = UInt32(clamping: h.headerBitSize / 8 + startCodeBytes)
        s.num_entry_point_offsets = h.numEntryPointOffsets
        s.nal_unit_type = h.header.nalUnitType
        s.nuh_temporal_id_plus1 = h.header.nuhTemporalIdPlus1
        s.slice_type = h.sliceType.rawValue
        s.colour_plane_id = h.colourPlaneId
        s.slice_pic_order_cnt = plan.poc
        if h.sliceType != .i { s.num_ref_idx_l0_active_minus1 = h.numRefIdxL0ActiveMinus1 }
        if h.sliceType == .b { s.num_ref_idx_l1_active_minus1 = h.numRefIdxL1ActiveMinus1 }
        s.collocated_ref_idx = h.collocatedRefIdx
        s.five_minus_max_num_merge_cand = h.sliceType == .i ? 0 : h.fiveMinusMaxNumMergeCand
        s.slice_qp_delta = h.sliceQpDelta
        s.slice_cb_qp_offset = h.sliceCbQpOffset
        s.slice_cr_qp_offset = h.sliceCrQpOffset
        s.slice_beta_offset_div2 = h.sliceDeblockingFilterDisabledFlag ? 0 : h.sliceBetaOffsetDiv2
        s.slice_tc_offset_div2 = h.sliceDeblockingFilterDisabledFlag ? 0 : h.sliceTcOffsetDiv2
        s.pic_struct = UInt8(V4L2_HEVC_SEI_PIC_STRUCT_FRAME)
        s.slice_segment_addr = h.sliceSegmentAddress
        fill(&s.ref_idx_l0, slice.refPicList0.map { dpbIndex($0.surface) ?? 0xFF }, unused: 0xFF)
        fill(&s.ref_idx_l1, slice.refPicList1.map { dpbIndex($0.surface) ?? 0xFF }, unused: 0xFF)
        s.short_term_ref_pic_set_size = UInt16(clamping: h.stRpsBits)
        s.long_term_ref_pic_set_size = UInt16(clamping: h.ltRpsBits)
        if let w = h.predWeightTable,
           (plan.pps.weightedPredFlag && h.sliceType == .p) || (plan.pps.weightedBipredFlag && h.sliceType == .b) {
            s.pred_weight_table = predWeights(w, sps: plan.sps, lists: h.sliceType == .b ? 2 : 1)
        }
        var f: UInt64 = 0
        func set<I: BinaryInteger>(_ on: Bool, _ flag: I) { if on { f |= UInt64(flag) } }
        set(h.sliceSaoLumaFlag, V4L2_HEVC_SLICE_PARAMS_FLAG_SLICE_SAO_LUMA)
        set(h.sliceSaoChromaFlag, V4L2_HEVC_SLICE_PARAMS_FLAG_SLICE_SAO_CHROMA)
        set(h.sliceTemporalMvpEnabledFlag, V4L2_HEVC_SLICE_PARAMS_FLAG_SLICE_TEMPORAL_MVP_ENABLED)
        set(h.mvdL1ZeroFlag, V4L2_HEVC_SLICE_PARAMS_FLAG_MVD_L1_ZERO)
        set(h.cabacInitFlag, V4L2_HEVC_SLICE_PARAMS_FLAG_CABAC_INIT)
        set(h.collocatedFromL0Flag, V4L2_HEVC_SLICE_PARAMS_FLAG_COLLOCATED_FROM_L0)
        set(h.sliceDeblockingFilterDisabledFlag, V4L2_HEVC_SLICE_PARAMS_FLAG_SLICE_DEBLOCKING_FILTER_DISABLED)
        set(h.sliceLoopFilterAcrossSlicesEnabledFlag, V4L2_HEVC_SLICE_PARAMS_FLAG_SLICE_LOOP_FILTER_ACROSS_SLICES_ENABLED)
        set(h.dependentSliceSegmentFlag, V4L2_HEVC_SLICE_PARAMS_FLAG_DEPENDENT_SLICE_SEGMENT)
        s.flags = f
        return s
    }

    /// entry_point_offset_minus1[i] + 1 of a slice segment (V4L2_CID_STATELESS_HEVC_ENTRY_POINT_OFFSETS).
    static func entryPointOffsets(_ h: SliceSegmentHeader) -> [UInt32] {
        h.entryPointOffsetMinus1.map { $0 &+ 1 }
    }

    /// The coded weight deltas and luma offsets, and ChromaOffsetLX (7-56) with WpOffsetHalfRangeC
    /// of the SPS, for the `lists` (1: P, 2: B) the slice uses; entries whose flag is 0 stay 0.
    static func predWeights(_ w: PredWeightTable, sps: SequenceParameterSet, lists: Int) -> v4l2_hevc_pred_weight_table {
        var t = v4l2_hevc_pred_weight_table()
        t.luma_log2_weight_denom = w.lumaLog2WeightDenom
        t.delta_chroma_log2_weight_denom = w.deltaChromaLog2WeightDenom
        let halfC = 1 << (sps.highPrecisionOffsetsEnabledFlag ? sps.bitDepthC - 1 : 7)  // WpOffsetHalfRangeC
        for list in 0..<lists {
            let n = min(w.lumaWeightFlag[list].count, Int(V4L2_HEVC_DPB_ENTRIES_NUM_MAX))
            var lumaWeight = [Int8](repeating: 0, count: n), lumaOffset = [Int8](repeating: 0, count: n)
            var chromaWeight = [Int8](repeating: 0, count: 2 * n), chromaOffset = [Int8](repeating: 0, count: 2 * n)
            for i in 0..<n {
                if w.lumaWeightFlag[list][i] {
                    lumaWeight[i] = Int8(clamping: w.deltaLumaWeight[list][i])
                    lumaOffset[i] = Int8(clamping: w.lumaOffset[list][i])
                }
                if sps.chromaArrayType != 0, w.chromaWeightFlag[list][i] {
                    for j in 0..<2 {
                        chromaWeight[2 * i + j] = Int8(clamping: w.deltaChromaWeight[list][i][j])
                        chromaOffset[2 * i + j] = Int8(clamping: w.chromaOffset(list: list, i, j, wpOffsetHalfRangeC: halfC))
                    }
                }
            }
            if list == 0 {
                fill(&t.delta_luma_weight_l0, lumaWeight); fill(&t.luma_offset_l0, lumaOffset)
                fill(&t.delta_chroma_weight_l0, chromaWeight); fill(&t.chroma_offset_l0, chromaOffset)
            } else {
                fill(&t.delta_luma_weight_l1, lumaWeight); fill(&t.luma_offset_l1, lumaOffset)
                fill(&t.delta_chroma_weight_l1, chromaWeight); fill(&t.chroma_offset_l1, chromaOffset)
            }
        }
        return t
    }

    /// Writes `values` into the leading bytes of a C array field (a tuple), `unused` after them.
    static func fill<T, V: FixedWidthInteger>(_ field: inout T, _ values: [V], unused: V = 0) {
        withUnsafeMutableBytes(of: &field) { raw in
            let out = raw.bindMemory(to: V.self)
            for i in 0..<out.count { out[i] = i < values.count ? values[i] : unused }
        }
    }
}

/// The up-right diagonal scan order of H.265 6.5.3: position `i` of a coded list is the sample at
/// (x, y) = order(blockSize)[i].
enum UpRightDiagonalScan {
    static func order(blockSize n: Int) -> [(x: Int, y: Int)] {
        var out: [(x: Int, y: Int)] = []
        out.reserveCapacity(n * n)
        var x = 0, y = 0
        while out.count < n * n {
            while y >= 0 {
                if x < n && y < n { out.append((x, y)) }
                y -= 1
                x += 1
            }
            y = x
            x = 0
        }
        return out
    }
}
