import CVA
import Testing

/// The libva structs the VA-API rung fills, as Swift lays them out, against the C compiler's
/// view of the installed headers (offsetof/sizeof in the CVA shim) and against the sizes libva
/// has had since 2.x (pinned: a header change that moves them breaks drivers' ABI too).
@Suite("libva struct layouts")
struct VAAPILayoutTests {
    func c(_ f: pf_va_layout_field) -> Int { Int(pf_va_layout(f)) }

    @Test func pictureParameterBuffer() {
        typealias P = VAPictureParameterBufferHEVC
        #expect(MemoryLayout<P>.size == c(PF_VA_PIC_SIZE))
        #expect(MemoryLayout<P>.size == 604)
        #expect(MemoryLayout<P>.offset(of: \.CurrPic) == c(PF_VA_PIC_CURRPIC))
        #expect(MemoryLayout<P>.offset(of: \.ReferenceFrames) == c(PF_VA_PIC_REFERENCEFRAMES))
        #expect(MemoryLayout<P>.offset(of: \.pic_width_in_luma_samples) == c(PF_VA_PIC_WIDTH))
        #expect(MemoryLayout<P>.offset(of: \.pic_fields) == c(PF_VA_PIC_FIELDS))
        #expect(MemoryLayout<P>.offset(of: \.sps_max_dec_pic_buffering_minus1) == c(PF_VA_PIC_SPS_MAX_DEC))
        #expect(MemoryLayout<P>.offset(of: \.column_width_minus1) == c(PF_VA_PIC_COLUMN_WIDTH))
        #expect(MemoryLayout<P>.offset(of: \.row_height_minus1) == c(PF_VA_PIC_ROW_HEIGHT))
        #expect(MemoryLayout<P>.offset(of: \.slice_parsing_fields) == c(PF_VA_PIC_SLICE_PARSING_FIELDS))
        #expect(MemoryLayout<P>.offset(of: \.log2_max_pic_order_cnt_lsb_minus4) == c(PF_VA_PIC_LOG2_MAX_POC_LSB))
        #expect(MemoryLayout<P>.offset(of: \.st_rps_bits) == c(PF_VA_PIC_ST_RPS_BITS))
        #expect(MemoryLayout.size(ofValue: P().ReferenceFrames) == 15 * MemoryLayout<VAPictureHEVC>.size)
    }

    @Test func pictureEntry() {
        #expect(MemoryLayout<VAPictureHEVC>.size == c(PF_VA_PICTURE_SIZE))
        #expect(MemoryLayout<VAPictureHEVC>.size == 28)
        #expect(MemoryLayout<VAPictureHEVC>.offset(of: \.pic_order_cnt) == c(PF_VA_PICTURE_POC))
        #expect(MemoryLayout<VAPictureHEVC>.offset(of: \.flags) == c(PF_VA_PICTURE_FLAGS))
    }

    @Test func sliceParameterBuffer() {
        typealias S = VASliceParameterBufferHEVC
        #expect(MemoryLayout<S>.size == c(PF_VA_SLICE_SIZE))
        #expect(MemoryLayout<S>.size == 264)
        #expect(MemoryLayout<S>.offset(of: \.slice_data_byte_offset) == c(PF_VA_SLICE_BYTE_OFFSET))
        #expect(MemoryLayout<S>.offset(of: \.RefPicList) == c(PF_VA_SLICE_REFPICLIST))
        #expect(MemoryLayout<S>.offset(of: \.LongSliceFlags) == c(PF_VA_SLICE_LONGFLAGS))
        #expect(MemoryLayout<S>.offset(of: \.collocated_ref_idx) == c(PF_VA_SLICE_COLLOCATED_REF_IDX))
        #expect(MemoryLayout<S>.offset(of: \.luma_log2_weight_denom) == c(PF_VA_SLICE_LUMA_LOG2_WEIGHT_DENOM))
        #expect(MemoryLayout<S>.offset(of: \.ChromaOffsetL1) == c(PF_VA_SLICE_CHROMA_OFFSET_L1))
        #expect(MemoryLayout<S>.offset(of: \.five_minus_max_num_merge_cand) == c(PF_VA_SLICE_FIVE_MINUS))
        #expect(MemoryLayout<S>.offset(of: \.num_entry_point_offsets) == c(PF_VA_SLICE_NUM_ENTRY_POINTS))
        #expect(MemoryLayout<S>.offset(of: \.slice_data_num_emu_prevn_bytes) == c(PF_VA_SLICE_EMU_PREVN))
        #expect(MemoryLayout.size(ofValue: S().RefPicList) == 30)
    }

    @Test func iqMatrixBuffer() {
        typealias M = VAIQMatrixBufferHEVC
        #expect(MemoryLayout<M>.size == c(PF_VA_IQ_SIZE))
        #expect(MemoryLayout<M>.size == 1016)
        #expect(MemoryLayout<M>.offset(of: \.ScalingList32x32) == c(PF_VA_IQ_32X32))
        #expect(MemoryLayout<M>.offset(of: \.ScalingListDC16x16) == c(PF_VA_IQ_DC16))
        #expect(MemoryLayout<M>.offset(of: \.ScalingListDC32x32) == c(PF_VA_IQ_DC32))
    }

    @Test func drmPrimeDescriptor() {
        typealias D = VADRMPRIMESurfaceDescriptor
        #expect(MemoryLayout<D>.size == c(PF_VA_DRM_DESC_SIZE))
        #expect(MemoryLayout<D>.offset(of: \.num_layers) == c(PF_VA_DRM_DESC_NUM_LAYERS))
        #expect(c(PF_VA_DRM_DESC_OBJECTS) == 16 && c(PF_VA_DRM_DESC_NUM_LAYERS) == 16 + 4 * 16)
        #expect(c(PF_VA_DRM_DESC_LAYERS) == c(PF_VA_DRM_DESC_NUM_LAYERS) + 4)
    }
}
