internal import CVA
import HEVC

/// SlicePlan → VASliceParameterBufferHEVC (libva va_dec_hevc.h).
///
/// Rules the drivers depend on: `RefPicList[l][i]` are indices into the picture's
/// `ReferenceFrames`, 0xFF for unused entries; `slice_data_byte_offset` counts the bytes from
/// the NAL unit header through the end of the slice header with emulation prevention bytes
/// removed, `slice_data_num_emu_prevn_bytes` the prevention bytes inside that span; the slice
/// data buffer holds the escaped NAL unit without start code; `slice_type` uses H.265's own
/// numbering (B 0, P 1, I 2); `LastSliceOfPic` is set on the last slice only.
enum SliceParameters {
    /// - Parameters:
    ///   - referenceIndex: the index in ReferenceFrames of each reference surface.
    ///   - dataSize: bytes of the slice data buffer (the escaped NAL unit).
    ///   - emulationPreventionBytes: prevention bytes before `headerBitSize / 8` in the NAL unit.
    static func make(_ slice: SlicePlan, sps: SequenceParameterSet, pps: PictureParameterSet,
                     referenceIndex: (SurfaceID) -> UInt8, dataSize: Int, emulationPreventionBytes: Int,
                     isLast: Bool) -> VASliceParameterBufferHEVC {
        let h = slice.header
        var s = VASliceParameterBufferHEVC()
        s.slice_data_size = UInt32(clamping: dataSize)
        s.slice_data_offset = 0
        s.slice_data_flag = UInt32(VA_SLICE_DATA_FLAG_ALL)
        s.slice_data_byte_offset = UInt32(clamping: h.headerBitSize / 8)
        s.slice_segment_address = h.sliceSegmentAddress
        withUnsafeMutableBytes(of: &s.RefPicList) { raw in
            for i in 0..<raw.count { raw[i] = 0xFF }
            for (i, e) in slice.refPicList0.prefix(PictureParameters.referenceCapacity).enumerated() {
                raw[i] = referenceIndex(e.surface)
            }
            for (i, e) in slice.refPicList1.prefix(PictureParameters.referenceCapacity).enumerated() {
                raw[PictureParameters.referenceCapacity + i] = referenceIndex(e.surface)
            }
        }
        s.LongSliceFlags.fields.LastSliceOfPic = bit(isLast)
        s.LongSliceFlags.fields.dependent_slice_segment_flag = bit(h.dependentSliceSegmentFlag)
        s.LongSliceFlags.fields.slice_type = UInt32(h.sliceType.rawValue)
        s.LongSliceFlags.fields.color_plane_id = UInt32(h.colourPlaneId)
        s.LongSliceFlags.fields.slice_sao_luma_flag = bit(h.sliceSaoLumaFlag)
        s.LongSliceFlags.fields.slice_sao_chroma_flag = bit(h.sliceSaoChromaFlag)
        s.LongSliceFlags.fields.mvd_l1_zero_flag = bit(h.mvdL1ZeroFlag)
        s.LongSliceFlags.fields.cabac_init_flag = bit(h.cabacInitFlag)
        s.LongSliceFlags.fields.slice_temporal_mvp_enabled_flag = bit(h.sliceTemporalMvpEnabledFlag)
        s.LongSliceFlags.fields.slice_deblocking_filter_disabled_flag = bit(h.sliceDeblockingFilterDisabledFlag)
        s.LongSliceFlags.fields.collocated_from_l0_flag = bit(h.collocatedFromL0Flag)
        s.LongSliceFlags.fields.slice_loop_filter_across_slices_enabled_flag = bit(h.sliceLoopFilterAcrossSlicesEnabledFlag)
        s.collocated_ref_idx = h.sliceTemporalMvpEnabledFlag ? h.collocatedRefIdx : 0xFF
        // Lists a slice type does not use are sent as 0 (I: both, P: list 1).
        s.num_ref_idx_l0_active_minus1 = h.sliceType == .i ? 0 : h.numRefIdxL0ActiveMinus1
        s.num_ref_idx_l1_active_minus1 = h.sliceType == .b ? h.numRefIdxL1ActiveMinus1 : 0
        s.slice_qp_delta = h.sliceQpDelta
        s.slice_cb_qp_offset = h.sliceCbQpOffset
        s.slice_cr_qp_offset = h.sliceCrQpOffset
        s.slice_beta_offset_div2 = h.sliceBetaOffsetDiv2
        s.slice_tc_offset_div2 = h.sliceTcOffsetDiv2
        if let w = h.predWeightTable,
           (pps.weightedPredFlag && h.sliceType == .p) || (pps.weightedBipredFlag && h.sliceType == .b) {
            fillWeights(&s, w, sps: sps, lists: h.sliceType == .b ? 2 : 1)
        }
        s.five_minus_max_num_merge_cand = h.sliceType == .i ? 0 : h.fiveMinusMaxNumMergeCand
        // No entry points: without the subset buffer (VASliceParameterBufferType's entry point
        // array) a count alone is unusable, and libavcodec and Intel's own MSDK send 0 for WPP.
        s.num_entry_point_offsets = 0
        s.entry_offset_to_subset_array = 0
        s.slice_data_num_emu_prevn_bytes = UInt16(clamping: emulationPreventionBytes)
        return s
    }

    /// Weights and offsets as libva wants them: coded luma/chroma weight deltas, coded luma
    /// offsets, and the derived ChromaOffsetLX (7-56), each clamped to the 8-bit fields.
    private static func fillWeights(_ s: inout VASliceParameterBufferHEVC, _ w: PredWeightTable,
                                    sps: SequenceParameterSet, lists: Int) {
        s.luma_log2_weight_denom = w.lumaLog2WeightDenom
        s.delta_chroma_log2_weight_denom = w.deltaChromaLog2WeightDenom
        let halfC = 1 << (sps.highPrecisionOffsetsEnabledFlag ? sps.bitDepthC - 1 : 7)  // WpOffsetHalfRangeC
        func i8<T: BinaryInteger>(_ v: T) -> Int8 { Int8(clamping: v) }
        for list in 0..<lists {
            let n = min(w.deltaLumaWeight[list].count, PictureParameters.referenceCapacity)
            func put<T>(_ field: inout T, _ values: (Int) -> [Int8]) {
                withUnsafeMutableBytes(of: &field) { raw in
                    let out = raw.bindMemory(to: Int8.self)
                    for i in 0..<n { for (j, v) in values(i).enumerated() where i * values(i).count + j < out.count {
                        out[i * values(i).count + j] = v
                    } }
                }
            }
            let lumaW: (Int) -> [Int8] = { [i8(w.deltaLumaWeight[list][$0])] }
            let lumaO: (Int) -> [Int8] = { [i8(w.lumaOffset[list][$0])] }
            let chromaW: (Int) -> [Int8] = { i in (0..<2).map { i8(w.deltaChromaWeight[list][i][$0]) } }
            let chromaO: (Int) -> [Int8] = { i in
                (0..<2).map { j in
                    w.chromaWeightFlag[list][i] ? i8(w.chromaOffset(list: list, i, j, wpOffsetHalfRangeC: halfC)) : 0
                }
            }
            if list == 0 {
                put(&s.delta_luma_weight_l0, lumaW); put(&s.luma_offset_l0, lumaO)
                put(&s.delta_chroma_weight_l0, chromaW); put(&s.ChromaOffsetL0, chromaO)
            } else {
                put(&s.delta_luma_weight_l1, lumaW); put(&s.luma_offset_l1, lumaO)
                put(&s.delta_chroma_weight_l1, chromaW); put(&s.ChromaOffsetL1, chromaO)
            }
        }
    }
}
