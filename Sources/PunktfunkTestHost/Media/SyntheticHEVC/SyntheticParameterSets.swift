/// The VPS, SPS and PPS of the synthetic HEVC Main stream (H.265 7.3.2.1–7.3.2.3), ids 0.
///
/// What they fix, and the slice writers rely on: 8-bit 4:2:0; CTB 16 = one 16x16 CU (min CB 8);
/// PCM 8-bit at CU sizes 8…16 with the loop filter off for it; POC lsb 16 bits; no short-term
/// RPS in the SPS (every slice header codes its own); no long-term refs, temporal MVP, AMP, SAO,
/// scaling lists, tiles, WPP, sign hiding, cu_qp_delta, transquant bypass, weighted prediction
/// or list modification; one active L0 reference; SliceQpY 26; deblocking disabled in the PPS.
struct SyntheticParameterSets {
    /// Luma size in samples; multiples of 16 (whole CTBs, no conformance window).
    var width: Int
    var height: Int
    /// sps_max_dec_pic_buffering_minus1 (0…15): the references a picture may keep, i.e. the
    /// largest RPS, since the DPB also holds the current picture.
    var maxDecPicBufferingMinus1: Int
    /// VUI timing (num_units_in_tick 1, time_scale = this), or none when 0.
    var frameRate: UInt32 = 60

    /// log2_max_pic_order_cnt_lsb (7-8): POC lsb is written with this many bits.
    static let log2MaxPicOrderCntLsb = 16
    /// SliceQpY = 26 + init_qp_minus26 (0) + slice_qp_delta (0); the CABAC init QP.
    static let sliceQpY = 26
    static let log2CtbSize = 4

    /// general_level_idc (30 × level): the lowest level whose MaxLumaPs (Table A.8) is at least
    /// 4 × the picture, so MaxDpbSize is 16 pictures.
    var generalLevelIdc: UInt8 {
        let samples = width * height * 4
        let levels: [(idc: UInt8, maxLumaPs: Int)] = [
            (30, 36_864), (60, 122_880), (63, 245_760), (90, 552_960), (93, 983_040),
            (120, 2_228_224), (150, 8_912_896), (180, 35_651_584),
        ]
        return levels.first { samples <= $0.maxLumaPs }?.idc ?? 186
    }

    /// VPS, SPS and PPS as Annex-B NAL units, in that order.
    func annexB() -> [UInt8] {
        NALUnitWriter.annexB(.vps, rbsp: vps()) + NALUnitWriter.annexB(.sps, rbsp: sps())
            + NALUnitWriter.annexB(.pps, rbsp: pps())
    }

    /// profile_tier_level(1, 0) (7.3.3): Main profile (compatible with Main and Main 10),
    /// progressive frames.
    private func writeProfileTierLevel(_ w: inout RBSPWriter) {
        w.writeBits(0, count: 2)                  // general_profile_space
        w.writeFlag(false)                        // general_tier_flag (Main tier)
        w.writeBits(1, count: 5)                  // general_profile_idc (Main)
        w.writeBits(0x6000_0000, count: 32)       // general_profile_compatibility_flag[1], [2]
        w.writeFlag(true)                         // general_progressive_source_flag
        w.writeFlag(false)                        // general_interlaced_source_flag
        w.writeFlag(false)                        // general_non_packed_constraint_flag
        w.writeFlag(true)                         // general_frame_only_constraint_flag
        w.writeBits(0, count: 43)                 // general_reserved_zero_43bits
        w.writeBits(0, count: 1)                  // general_reserved_zero_bit
        w.writeBits(UInt64(generalLevelIdc), count: 8)
    }

    private func writeSubLayerOrdering(_ w: inout RBSPWriter) {
        w.writeFlag(true)                         // *_sub_layer_ordering_info_present_flag
        w.writeUE(UInt32(maxDecPicBufferingMinus1))
        w.writeUE(0)                              // max_num_reorder_pics: output = decode order
        w.writeUE(0)                              // max_latency_increase_plus1: no limit
    }

    func vps() -> [UInt8] {
        var w = RBSPWriter()
        w.writeBits(0, count: 4)                  // vps_video_parameter_set_id
        w.writeFlag(true)                         // vps_base_layer_internal_flag
        w.writeFlag(true)                         // vps_base_layer_available_flag
        w.writeBits(0, count: 6)                  // vps_max_layers_minus1
        w.writeBits(0, count: 3)                  // vps_max_sub_layers_minus1
        w.writeFlag(true)                         // vps_temporal_id_nesting_flag
        w.writeBits(0xFFFF, count: 16)            // vps_reserved_0xffff_16bits
        writeProfileTierLevel(&w)
        writeSubLayerOrdering(&w)
        w.writeBits(0, count: 6)                  // vps_max_layer_id
        w.writeUE(0)                              // vps_num_layer_sets_minus1
        w.writeFlag(false)                        // vps_timing_info_present_flag
        w.writeFlag(false)                        // vps_extension_flag
        w.writeTrailingBits()
        return w.bytes
    }

    func sps() -> [UInt8] {
        precondition(width > 0 && height > 0 && width % 16 == 0 && height % 16 == 0,
                     "SyntheticParameterSets: size must be whole 16x16 CTBs")
        precondition((0...15).contains(maxDecPicBufferingMinus1))
        var w = RBSPWriter()
        w.writeBits(0, count: 4)                  // sps_video_parameter_set_id
        w.writeBits(0, count: 3)                  // sps_max_sub_layers_minus1
        w.writeFlag(true)                         // sps_temporal_id_nesting_flag
        writeProfileTierLevel(&w)
        w.writeUE(0)                              // sps_seq_parameter_set_id
        w.writeUE(1)                              // chroma_format_idc (4:2:0)
        w.writeUE(UInt32(width))                  // pic_width_in_luma_samples
        w.writeUE(UInt32(height))                 // pic_height_in_luma_samples
        w.writeFlag(false)                        // conformance_window_flag
        w.writeUE(0)                              // bit_depth_luma_minus8
        w.writeUE(0)                              // bit_depth_chroma_minus8
        w.writeUE(UInt32(Self.log2MaxPicOrderCntLsb - 4))
        writeSubLayerOrdering(&w)
        w.writeUE(0)                              // log2_min_luma_coding_block_size_minus3 (8)
        w.writeUE(1)                              // log2_diff_max_min_luma_coding_block_size (CTB 16)
        w.writeUE(0)                              // log2_min_luma_transform_block_size_minus2 (4)
        w.writeUE(2)                              // log2_diff_max_min_luma_transform_block_size (16)
        w.writeUE(1)                              // max_transform_hierarchy_depth_inter
        w.writeUE(1)                              // max_transform_hierarchy_depth_intra
        w.writeFlag(false)                        // scaling_list_enabled_flag
        w.writeFlag(false)                        // amp_enabled_flag
        w.writeFlag(false)                        // sample_adaptive_offset_enabled_flag
        w.writeFlag(true)                         // pcm_enabled_flag
        w.writeBits(7, count: 4)                  // pcm_sample_bit_depth_luma_minus1 (8 bits)
        w.writeBits(7, count: 4)                  // pcm_sample_bit_depth_chroma_minus1 (8 bits)
        w.writeUE(0)                              // log2_min_pcm_luma_coding_block_size_minus3 (8)
        w.writeUE(1)                              // log2_diff_max_min_pcm_luma_coding_block_size (16)
        w.writeFlag(true)                         // pcm_loop_filter_disabled_flag
        w.writeUE(0)                              // num_short_term_ref_pic_sets
        w.writeFlag(false)                        // long_term_ref_pics_present_flag
        w.writeFlag(false)                        // sps_temporal_mvp_enabled_flag
        w.writeFlag(false)                        // strong_intra_smoothing_enabled_flag
        w.writeFlag(frameRate > 0)                // vui_parameters_present_flag
        if frameRate > 0 { writeVUI(&w) }
        w.writeFlag(false)                        // sps_extension_present_flag
        w.writeTrailingBits()
        return w.bytes
    }

    /// vui_parameters() (E.2.1) with timing only: one tick = one frame at `frameRate`.
    private func writeVUI(_ w: inout RBSPWriter) {
        w.writeFlag(false)                        // aspect_ratio_info_present_flag
        w.writeFlag(false)                        // overscan_info_present_flag
        w.writeFlag(false)                        // video_signal_type_present_flag
        w.writeFlag(false)                        // chroma_loc_info_present_flag
        w.writeFlag(false)                        // neutral_chroma_indication_flag
        w.writeFlag(false)                        // field_seq_flag
        w.writeFlag(false)                        // frame_field_info_present_flag
        w.writeFlag(false)                        // default_display_window_flag
        w.writeFlag(true)                         // vui_timing_info_present_flag
        w.writeBits(1, count: 32)                 // vui_num_units_in_tick
        w.writeBits(UInt64(frameRate), count: 32) // vui_time_scale (Hz)
        w.writeFlag(false)                        // vui_poc_proportional_to_timing_flag
        w.writeFlag(false)                        // vui_hrd_parameters_present_flag
        w.writeFlag(false)                        // bitstream_restriction_flag
    }

    func pps() -> [UInt8] {
        var w = RBSPWriter()
        w.writeUE(0)                              // pps_pic_parameter_set_id
        w.writeUE(0)                              // pps_seq_parameter_set_id
        w.writeFlag(false)                        // dependent_slice_segments_enabled_flag
        w.writeFlag(false)                        // output_flag_present_flag
        w.writeBits(0, count: 3)                  // num_extra_slice_header_bits
        w.writeFlag(false)                        // sign_data_hiding_enabled_flag
        w.writeFlag(false)                        // cabac_init_present_flag
        w.writeUE(0)                              // num_ref_idx_l0_default_active_minus1
        w.writeUE(0)                              // num_ref_idx_l1_default_active_minus1
        w.writeSE(Int32(Self.sliceQpY - 26))      // init_qp_minus26
        w.writeFlag(false)                        // constrained_intra_pred_flag
        w.writeFlag(false)                        // transform_skip_enabled_flag
        w.writeFlag(false)                        // cu_qp_delta_enabled_flag
        w.writeSE(0)                              // pps_cb_qp_offset
        w.writeSE(0)                              // pps_cr_qp_offset
        w.writeFlag(false)                        // pps_slice_chroma_qp_offsets_present_flag
        w.writeFlag(false)                        // weighted_pred_flag
        w.writeFlag(false)                        // weighted_bipred_flag
        w.writeFlag(false)                        // transquant_bypass_enabled_flag
        w.writeFlag(false)                        // tiles_enabled_flag
        w.writeFlag(false)                        // entropy_coding_sync_enabled_flag
        w.writeFlag(false)                        // pps_loop_filter_across_slices_enabled_flag
        w.writeFlag(true)                         // deblocking_filter_control_present_flag
        w.writeFlag(false)                        //   deblocking_filter_override_enabled_flag
        w.writeFlag(true)                         //   pps_deblocking_filter_disabled_flag
        w.writeFlag(false)                        // pps_scaling_list_data_present_flag
        w.writeFlag(false)                        // lists_modification_present_flag
        w.writeUE(0)                              // log2_parallel_merge_level_minus2
        w.writeFlag(false)                        // slice_segment_header_extension_present_flag
        w.writeFlag(false)                        // pps_extension_present_flag
        w.writeTrailingBits()
        return w.bytes
    }
}
