/// vui_parameters(), H.265 E.2.1. Absent elements carry their inferred values (E.3.1):
/// unspecified colour (2), video_format 5, limited range.
public struct VUIParameters: Sendable, Equatable {
    public var aspectRatioInfoPresentFlag = false
    /// Inferred 0 (unspecified) when absent.
    public var aspectRatioIdc: UInt8 = 0
    public var sarWidth: UInt16 = 0
    public var sarHeight: UInt16 = 0
    public var overscanInfoPresentFlag = false
    public var overscanAppropriateFlag = false
    public var videoSignalTypePresentFlag = false
    /// Inferred 5 (unspecified) when absent.
    public var videoFormat: UInt8 = 5
    public var videoFullRangeFlag = false
    public var colourDescriptionPresentFlag = false
    /// H.273 code points, inferred 2 (unspecified) when absent.
    public var colourPrimaries: UInt8 = 2
    public var transferCharacteristics: UInt8 = 2
    public var matrixCoeffs: UInt8 = 2
    public var chromaLocInfoPresentFlag = false
    public var chromaSampleLocTypeTopField: UInt8 = 0
    public var chromaSampleLocTypeBottomField: UInt8 = 0
    public var neutralChromaIndicationFlag = false
    public var fieldSeqFlag = false
    public var frameFieldInfoPresentFlag = false
    public var defaultDisplayWindowFlag = false
    public var defDispWinLeftOffset: UInt32 = 0
    public var defDispWinRightOffset: UInt32 = 0
    public var defDispWinTopOffset: UInt32 = 0
    public var defDispWinBottomOffset: UInt32 = 0
    public var vuiTimingInfoPresentFlag = false
    public var vuiNumUnitsInTick: UInt32 = 0
    public var vuiTimeScale: UInt32 = 0
    public var vuiPocProportionalToTimingFlag = false
    public var vuiNumTicksPocDiffOneMinus1: UInt32 = 0
    public var vuiHrdParametersPresentFlag = false
    public var hrdParameters: HRDParameters? = nil
    public var bitstreamRestrictionFlag = false
    public var tilesFixedStructureFlag = false
    /// Inferred 1 when absent.
    public var motionVectorsOverPicBoundariesFlag = true
    public var restrictedRefPicListsFlag = false
    public var minSpatialSegmentationIdc: UInt16 = 0
    /// Inferred 2 when absent.
    public var maxBytesPerPicDenom: UInt8 = 2
    /// Inferred 1 when absent.
    public var maxBitsPerMinCuDenom: UInt8 = 1
    /// Inferred 15 when absent.
    public var log2MaxMvLengthHorizontal: UInt8 = 15
    public var log2MaxMvLengthVertical: UInt8 = 15

    /// All elements absent: the inferred defaults of E.3.1.
    public init() {}

    public static func read(_ r: inout BitReader, spsMaxSubLayersMinus1: Int) throws(HEVCError) -> VUIParameters {
        var v = VUIParameters()
        v.aspectRatioInfoPresentFlag = try r.readFlag("aspect_ratio_info_present_flag")
        if v.aspectRatioInfoPresentFlag {
            v.aspectRatioIdc = UInt8(try r.readBits(8, "aspect_ratio_idc"))
            if v.aspectRatioIdc == 255 {  // EXTENDED_SAR (Table E.1)
                v.sarWidth = UInt16(try r.readBits(16, "sar_width"))
                v.sarHeight = UInt16(try r.readBits(16, "sar_height"))
            }
        }
        v.overscanInfoPresentFlag = try r.readFlag("overscan_info_present_flag")
        if v.overscanInfoPresentFlag { v.overscanAppropriateFlag = try r.readFlag("overscan_appropriate_flag") }
        v.videoSignalTypePresentFlag = try r.readFlag("video_signal_type_present_flag")
        if v.videoSignalTypePresentFlag {
            v.videoFormat = UInt8(try r.readBits(3, "video_format"))
            v.videoFullRangeFlag = try r.readFlag("video_full_range_flag")
            v.colourDescriptionPresentFlag = try r.readFlag("colour_description_present_flag")
            if v.colourDescriptionPresentFlag {
                v.colourPrimaries = UInt8(try r.readBits(8, "colour_primaries"))
                v.transferCharacteristics = UInt8(try r.readBits(8, "transfer_characteristics"))
                v.matrixCoeffs = UInt8(try r.readBits(8, "matrix_coefficients"))
            }
        }
        v.chromaLocInfoPresentFlag = try r.readFlag("chroma_loc_info_present_flag")
        if v.chromaLocInfoPresentFlag {
            v.chromaSampleLocTypeTopField = UInt8(try r.readUE("chroma_sample_loc_type_top_field", in: 0...5))
            v.chromaSampleLocTypeBottomField = UInt8(try r.readUE("chroma_sample_loc_type_bottom_field", in: 0...5))
        }
        v.neutralChromaIndicationFlag = try r.readFlag("neutral_chroma_indication_flag")
        v.fieldSeqFlag = try r.readFlag("field_seq_flag")
        v.frameFieldInfoPresentFlag = try r.readFlag("frame_field_info_present_flag")
        v.defaultDisplayWindowFlag = try r.readFlag("default_display_window_flag")
        if v.defaultDisplayWindowFlag {
            v.defDispWinLeftOffset = try r.readUE("def_disp_win_left_offset", in: 0...16384)
            v.defDispWinRightOffset = try r.readUE("def_disp_win_right_offset", in: 0...16384)
            v.defDispWinTopOffset = try r.readUE("def_disp_win_top_offset", in: 0...16384)
            v.defDispWinBottomOffset = try r.readUE("def_disp_win_bottom_offset", in: 0...16384)
        }
        v.vuiTimingInfoPresentFlag = try r.readFlag("vui_timing_info_present_flag")
        if v.vuiTimingInfoPresentFlag {
            v.vuiNumUnitsInTick = try r.readBits(32, "vui_num_units_in_tick", in: 1...UInt32.max)
            v.vuiTimeScale = try r.readBits(32, "vui_time_scale", in: 1...UInt32.max)
            v.vuiPocProportionalToTimingFlag = try r.readFlag("vui_poc_proportional_to_timing_flag")
            if v.vuiPocProportionalToTimingFlag {
                v.vuiNumTicksPocDiffOneMinus1 = try r.readUE("vui_num_ticks_poc_diff_one_minus1", in: 0...(UInt32.max - 1))
            }
            v.vuiHrdParametersPresentFlag = try r.readFlag("vui_hrd_parameters_present_flag")
            if v.vuiHrdParametersPresentFlag {
                v.hrdParameters = try HRDParameters.read(&r, commonInfPresent: true,
                                                         maxNumSubLayersMinus1: spsMaxSubLayersMinus1)
            }
        }
        v.bitstreamRestrictionFlag = try r.readFlag("bitstream_restriction_flag")
        if v.bitstreamRestrictionFlag {
            v.tilesFixedStructureFlag = try r.readFlag("tiles_fixed_structure_flag")
            v.motionVectorsOverPicBoundariesFlag = try r.readFlag("motion_vectors_over_pic_boundaries_flag")
            v.restrictedRefPicListsFlag = try r.readFlag("restricted_ref_pic_lists_flag")
            v.minSpatialSegmentationIdc = UInt16(try r.readUE("min_spatial_segmentation_idc", in: 0...4095))
            v.maxBytesPerPicDenom = UInt8(try r.readUE("max_bytes_per_pic_denom", in: 0...16))
            v.maxBitsPerMinCuDenom = UInt8(try r.readUE("max_bits_per_min_cu_denom", in: 0...16))
            v.log2MaxMvLengthHorizontal = UInt8(try r.readUE("log2_max_mv_length_horizontal", in: 0...15))
            v.log2MaxMvLengthVertical = UInt8(try r.readUE("log2_max_mv_length_vertical", in: 0...15))
        }
        return v
    }
}
