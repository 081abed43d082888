/// slice_segment_header(), H.265 7.3.6.1, parsed against its PPS and SPS, with what a stateless
/// decoder needs derived: the inline short-term RPS and its bit count, NumPicTotalCurr, and the
/// header size (`headerBitSize`, the basis of VA-API's slice_data_byte_offset).
///
/// A dependent slice segment takes every field after slice_segment_address from the preceding
/// independent slice segment header (7.4.7.1).
public struct SliceSegmentHeader: Sendable, Equatable {
    /// slice_type values (Table 7-7).
    public enum SliceType: UInt8, Sendable { case b = 0, p = 1, i = 2 }

    public var header = NALUnitHeader(nalUnitType: 1, nuhLayerId: 0, nuhTemporalIdPlus1: 1)
    public var firstSliceSegmentInPicFlag = false
    public var noOutputOfPriorPicsFlag = false
    public var slicePicParameterSetId: UInt8 = 0
    public var dependentSliceSegmentFlag = false
    public var sliceSegmentAddress: UInt32 = 0
    public var sliceReservedFlag: [Bool] = []
    public var sliceType: SliceType = .i
    /// Inferred 1 when absent.
    public var picOutputFlag = true
    public var colourPlaneId: UInt8 = 0
    /// 0 for IDR pictures (inferred).
    public var slicePicOrderCntLsb: UInt32 = 0
    public var shortTermRefPicSetSpsFlag = false
    public var shortTermRefPicSetIdx: UInt8 = 0
    /// The short-term RPS in use: the inline one, or a copy of the SPS's set
    /// short_term_ref_pic_set_idx. Empty for IDR pictures.
    public var shortTermRefPicSet = ShortTermRefPicSet()
    /// Bits taken by the inline st_ref_pic_set() (0 when taken from the SPS) — VA-API st_rps_bits.
    public var stRpsBits: Int = 0
    /// Bits taken by the `if(long_term_ref_pics_present_flag)` block of the slice header (0 when
    /// absent) — V4L2's long_term_ref_pic_set_size.
    public var ltRpsBits: Int = 0
    public var numLongTermSps: UInt8 = 0
    public var numLongTermPics: UInt8 = 0
    public var ltIdxSps: [UInt8] = []
    public var pocLsbLt: [UInt32] = []
    public var usedByCurrPicLtFlag: [Bool] = []
    public var deltaPocMsbPresentFlag: [Bool] = []
    public var deltaPocMsbCycleLt: [UInt32] = []
    /// PocLsbLt[i] and UsedByCurrPicLt[i] (7-52): SPS candidates resolved.
    public var derivedPocLsbLt: [UInt32] = []
    public var derivedUsedByCurrPicLt: [Bool] = []
    /// DeltaPocMsbCycleLt[i] (7-52), accumulated.
    public var derivedDeltaPocMsbCycleLt: [UInt32] = []
    public var sliceTemporalMvpEnabledFlag = false
    public var sliceSaoLumaFlag = false
    public var sliceSaoChromaFlag = false
    public var numRefIdxActiveOverrideFlag = false
    /// Inferred from the PPS defaults; meaningful only for P (l0) and B (both).
    public var numRefIdxL0ActiveMinus1: UInt8 = 0
    public var numRefIdxL1ActiveMinus1: UInt8 = 0
    public var refPicListModificationFlagL0 = false
    public var listEntryL0: [UInt8] = []
    public var refPicListModificationFlagL1 = false
    public var listEntryL1: [UInt8] = []
    public var mvdL1ZeroFlag = false
    public var cabacInitFlag = false
    /// Inferred 1 when absent.
    public var collocatedFromL0Flag = true
    public var collocatedRefIdx: UInt8 = 0
    public var predWeightTable: PredWeightTable? = nil
    public var fiveMinusMaxNumMergeCand: UInt8 = 0
    public var sliceQpDelta: Int8 = 0
    public var sliceCbQpOffset: Int8 = 0
    public var sliceCrQpOffset: Int8 = 0
    public var cuChromaQpOffsetEnabledFlag = false
    public var deblockingFilterOverrideFlag = false
    /// Inferred from the PPS when not overridden.
    public var sliceDeblockingFilterDisabledFlag = false
    public var sliceBetaOffsetDiv2: Int8 = 0
    public var sliceTcOffsetDiv2: Int8 = 0
    /// Inferred pps_loop_filter_across_slices_enabled_flag when absent.
    public var sliceLoopFilterAcrossSlicesEnabledFlag = false
    public var numEntryPointOffsets: UInt32 = 0
    public var offsetLenMinus1: UInt8 = 0
    public var entryPointOffsetMinus1: [UInt32] = []
    public var sliceSegmentHeaderExtensionLength: UInt16 = 0
    /// NumPicTotalCurr (7-55).
    public var numPicTotalCurr: Int = 0
    /// Bits from the first bit of the NAL unit header through byte_alignment(), emulation
    /// prevention bytes excluded. Always a multiple of 8; /8 is VA-API slice_data_byte_offset.
    public var headerBitSize: Int = 0

    public init() {}

    /// SliceQpY (7-54).
    public func sliceQpY(pps: PictureParameterSet) -> Int { 26 + Int(pps.initQpMinus26) + Int(sliceQpDelta) }
    /// MaxNumMergeCand (7-53).
    public var maxNumMergeCand: Int { 5 - Int(fiveMinusMaxNumMergeCand) }

    /// Reads a slice segment header from a VCL NAL unit RBSP (header included).
    /// - Parameters:
    ///   - sps, pps: the parameter sets the slice refers to (pps.ppsPicParameterSetId must equal
    ///     slice_pic_parameter_set_id; the caller looks them up, see `HEVCParser`).
    ///   - previousIndependent: the last independent slice segment header of the picture, needed
    ///     when dependent_slice_segment_flag is 1.
    public static func read(_ r: inout BitReader, sps: SequenceParameterSet, pps: PictureParameterSet,
                            previousIndependent: SliceSegmentHeader?) throws(HEVCError) -> SliceSegmentHeader {
        var h = SliceSegmentHeader()
        let nal = try NALUnitHeader.read(&r)
        guard nal.isVCL else { throw .wrongNALUnitType(expected: "VCL (0…31)", found: nal.nalUnitType) }
        h.header = nal
        h.firstSliceSegmentInPicFlag = try r.readFlag("first_slice_segment_in_pic_flag")
        if nal.isIRAP { h.noOutputOfPriorPicsFlag = try r.readFlag("no_output_of_prior_pics_flag") }
        h.slicePicParameterSetId = UInt8(try r.readUE("slice_pic_parameter_set_id", in: 0...63))
        guard h.slicePicParameterSetId == pps.ppsPicParameterSetId else {
            throw .inconsistent(element: "slice_pic_parameter_set_id", reason: "parsed against PPS \(pps.ppsPicParameterSetId)")
        }
        if !h.firstSliceSegmentInPicFlag {
            if pps.dependentSliceSegmentsEnabledFlag {
                h.dependentSliceSegmentFlag = try r.readFlag("dependent_slice_segment_flag")
            }
            let size = sps.picSizeInCtbsY
            let bits = ceilLog2(size)  // Ceil(Log2(PicSizeInCtbsY))
            h.sliceSegmentAddress = try r.readBits(bits, "slice_segment_address", in: 0...UInt32(size - 1))
        }
        if h.dependentSliceSegmentFlag {
            guard var inherited = previousIndependent else {
                throw .inconsistent(element: "dependent_slice_segment_flag", reason: "no preceding independent slice segment")
            }
            inherited.header = h.header
            inherited.firstSliceSegmentInPicFlag = h.firstSliceSegmentInPicFlag
            inherited.noOutputOfPriorPicsFlag = h.noOutputOfPriorPicsFlag
            inherited.dependentSliceSegmentFlag = true
            inherited.sliceSegmentAddress = h.sliceSegmentAddress
            inherited.stRpsBits = previousIndependent!.stRpsBits
            h = inherited
        } else {
            try readIndependentPart(&r, &h, sps: sps, pps: pps)
        }
        h.numEntryPointOffsets = 0
        h.offsetLenMinus1 = 0
        h.entryPointOffsetMinus1 = []
        if pps.tilesEnabledFlag || pps.entropyCodingSyncEnabledFlag {
            let cols = Int(pps.numTileColumnsMinus1) + 1, rows = Int(pps.numTileRowsMinus1) + 1
            let limit: Int  // 7.4.7.1
            if !pps.tilesEnabledFlag { limit = sps.picHeightInCtbsY - 1 }
            else if !pps.entropyCodingSyncEnabledFlag { limit = cols * rows - 1 }
            else { limit = cols * sps.picHeightInCtbsY - 1 }
            h.numEntryPointOffsets = try r.readUE("num_entry_point_offsets", in: 0...UInt32(max(limit, 0)))
            if h.numEntryPointOffsets > 0 {
                h.offsetLenMinus1 = UInt8(try r.readUE("offset_len_minus1", in: 0...31))
                for i in 0..<Int(h.numEntryPointOffsets) {
                    h.entryPointOffsetMinus1.append(try r.readBits(Int(h.offsetLenMinus1) + 1, "entry_point_offset_minus1[\(i)]"))
                }
            }
        }
        h.sliceSegmentHeaderExtensionLength = 0
        if pps.sliceSegmentHeaderExtensionPresentFlag {
            h.sliceSegmentHeaderExtensionLength = UInt16(try r.readUE("slice_segment_header_extension_length", in: 0...256))
            for i in 0..<Int(h.sliceSegmentHeaderExtensionLength) {
                _ = try r.readBits(8, "slice_segment_header_extension_data_byte[\(i)]")
            }
        }
        try r.readByteAlignment()
        h.headerBitSize = r.bitPosition
        return h
    }

    /// The fields from slice_reserved_flag through slice_loop_filter_across_slices_enabled_flag.
    private static func readIndependentPart(_ r: inout BitReader, _ h: inout SliceSegmentHeader,
                                            sps: SequenceParameterSet, pps: PictureParameterSet) throws(HEVCError) {
        for i in 0..<Int(pps.numExtraSliceHeaderBits) {
            h.sliceReservedFlag.append(try r.readFlag("slice_reserved_flag[\(i)]"))
        }
        let type = try r.readUE("slice_type", in: 0...2)
        h.sliceType = SliceType(rawValue: UInt8(type))!  // 0…2 checked above
        if pps.outputFlagPresentFlag { h.picOutputFlag = try r.readFlag("pic_output_flag") }
        if sps.separateColourPlaneFlag { h.colourPlaneId = UInt8(try r.readBits(2, "colour_plane_id", in: 0...2)) }
        let isIDR = h.header.nalUnitType == 19 || h.header.nalUnitType == 20
        if !isIDR {
            let lsbBits = Int(sps.log2MaxPicOrderCntLsbMinus4) + 4
            h.slicePicOrderCntLsb = try r.readBits(lsbBits, "slice_pic_order_cnt_lsb")
            h.shortTermRefPicSetSpsFlag = try r.readFlag("short_term_ref_pic_set_sps_flag")
            let numSets = Int(sps.numShortTermRefPicSets)
            if !h.shortTermRefPicSetSpsFlag {
                let start = r.bitPosition
                h.shortTermRefPicSet = try ShortTermRefPicSet.read(
                    &r, stRpsIdx: numSets, previous: sps.stRefPicSets, numShortTermRefPicSets: numSets,
                    maxDecPicBufferingMinus1: Int(sps.spsMaxDecPicBufferingMinus1.last ?? 0))
                h.stRpsBits = r.bitPosition - start
            } else {
                guard numSets > 0 else {
                    throw .inconsistent(element: "short_term_ref_pic_set_sps_flag", reason: "SPS has no short-term RPS")
                }
                if numSets > 1 {
                    h.shortTermRefPicSetIdx = UInt8(try r.readBits(ceilLog2(numSets), "short_term_ref_pic_set_idx",
                                                                   in: 0...UInt32(numSets - 1)))
                }
                h.shortTermRefPicSet = sps.stRefPicSets[Int(h.shortTermRefPicSetIdx)]
            }
            let rps = h.shortTermRefPicSet
            var total = rps.usedByCurrPicS0.filter { $0 }.count + rps.usedByCurrPicS1.filter { $0 }.count
            let longTermStart = r.bitPosition
            if sps.longTermRefPicsPresentFlag {
                let dpbSlots = max(0, 15 - rps.numDeltaPocs)  // at most 16 pictures in the DPB (A.4.2)
                let numLtSps = Int(sps.numLongTermRefPicsSps)
                if numLtSps > 0 {
                    h.numLongTermSps = UInt8(try r.readUE("num_long_term_sps", in: 0...UInt32(min(numLtSps, dpbSlots))))
                }
                h.numLongTermPics = UInt8(try r.readUE("num_long_term_pics",
                                                       in: 0...UInt32(dpbSlots - Int(h.numLongTermSps))))
                let lsbBits = Int(sps.log2MaxPicOrderCntLsbMinus4) + 4
                var msbCycle: UInt32 = 0
                for i in 0..<(Int(h.numLongTermSps) + Int(h.numLongTermPics)) {
                    if i < h.numLongTermSps {
                        var idx: UInt32 = 0
                        if numLtSps > 1 {
                            idx = try r.readBits(ceilLog2(numLtSps), "lt_idx_sps[\(i)]", in: 0...UInt32(numLtSps - 1))
                        }
                        h.ltIdxSps.append(UInt8(idx))
                        h.derivedPocLsbLt.append(sps.ltRefPicPocLsbSps[Int(idx)])  // (7-52)
                        h.derivedUsedByCurrPicLt.append(sps.usedByCurrPicLtSpsFlag[Int(idx)])
                    } else {
                        let lsb = try r.readBits(lsbBits, "poc_lsb_lt[\(i)]")
                        let used = try r.readFlag("used_by_curr_pic_lt_flag[\(i)]")
                        h.pocLsbLt.append(lsb)
                        h.usedByCurrPicLtFlag.append(used)
                        h.derivedPocLsbLt.append(lsb)
                        h.derivedUsedByCurrPicLt.append(used)
                    }
                    let present = try r.readFlag("delta_poc_msb_present_flag[\(i)]")
                    h.deltaPocMsbPresentFlag.append(present)
                    var cycle: UInt32 = 0
                    if present { cycle = try r.readUE("delta_poc_msb_cycle_lt[\(i)]", in: 0...(UInt32.max - 1)) }
                    h.deltaPocMsbCycleLt.append(cycle)
                    // (7-52): accumulate within the SPS-candidate run and within the explicit run.
                    if i == 0 || i == Int(h.numLongTermSps) { msbCycle = cycle } else { msbCycle = msbCycle &+ cycle }
                    h.derivedDeltaPocMsbCycleLt.append(msbCycle)
                }
                total += h.derivedUsedByCurrPicLt.filter { $0 }.count
            }
            h.ltRpsBits = r.bitPosition - longTermStart
            h.numPicTotalCurr = total  // (7-55); pps_curr_pic_ref_enabled_flag is SCC, refused
            if sps.spsTemporalMvpEnabledFlag {
                h.sliceTemporalMvpEnabledFlag = try r.readFlag("slice_temporal_mvp_enabled_flag")
            }
        }
        if sps.sampleAdaptiveOffsetEnabledFlag {
            h.sliceSaoLumaFlag = try r.readFlag("slice_sao_luma_flag")
            if sps.chromaArrayType != 0 { h.sliceSaoChromaFlag = try r.readFlag("slice_sao_chroma_flag") }
        }
        h.numRefIdxL0ActiveMinus1 = pps.numRefIdxL0DefaultActiveMinus1
        h.numRefIdxL1ActiveMinus1 = pps.numRefIdxL1DefaultActiveMinus1
        if h.sliceType != .i {
            let isB = h.sliceType == .b
            h.numRefIdxActiveOverrideFlag = try r.readFlag("num_ref_idx_active_override_flag")
            if h.numRefIdxActiveOverrideFlag {
                h.numRefIdxL0ActiveMinus1 = UInt8(try r.readUE("num_ref_idx_l0_active_minus1", in: 0...14))
                if isB { h.numRefIdxL1ActiveMinus1 = UInt8(try r.readUE("num_ref_idx_l1_active_minus1", in: 0...14)) }
            }
            if h.numPicTotalCurr == 0 {
                throw .inconsistent(element: "NumPicTotalCurr", reason: "P/B slice without current references")
            }
            if pps.listsModificationPresentFlag && h.numPicTotalCurr > 1 {  // ref_pic_lists_modification(), 7.3.6.2
                let bits = ceilLog2(h.numPicTotalCurr)
                let maxEntry = UInt32(h.numPicTotalCurr - 1)
                h.refPicListModificationFlagL0 = try r.readFlag("ref_pic_list_modification_flag_l0")
                if h.refPicListModificationFlagL0 {
                    for i in 0...Int(h.numRefIdxL0ActiveMinus1) {
                        h.listEntryL0.append(UInt8(try r.readBits(bits, "list_entry_l0[\(i)]", in: 0...maxEntry)))
                    }
                }
                if isB {
                    h.refPicListModificationFlagL1 = try r.readFlag("ref_pic_list_modification_flag_l1")
                    if h.refPicListModificationFlagL1 {
                        for i in 0...Int(h.numRefIdxL1ActiveMinus1) {
                            h.listEntryL1.append(UInt8(try r.readBits(bits, "list_entry_l1[\(i)]", in: 0...maxEntry)))
                        }
                    }
                }
            }
            if isB { h.mvdL1ZeroFlag = try r.readFlag("mvd_l1_zero_flag") }
            if pps.cabacInitPresentFlag { h.cabacInitFlag = try r.readFlag("cabac_init_flag") }
            if h.sliceTemporalMvpEnabledFlag {
                if isB { h.collocatedFromL0Flag = try r.readFlag("collocated_from_l0_flag") }
                let n = h.collocatedFromL0Flag ? h.numRefIdxL0ActiveMinus1 : h.numRefIdxL1ActiveMinus1
                if n > 0 { h.collocatedRefIdx = UInt8(try r.readUE("collocated_ref_idx", in: 0...UInt32(n))) }
            }
            if (pps.weightedPredFlag && h.sliceType == .p) || (pps.weightedBipredFlag && isB) {
                h.predWeightTable = try PredWeightTable.read(
                    &r, sps: sps, isB: isB,
                    numRefIdxActiveMinus1: (Int(h.numRefIdxL0ActiveMinus1), Int(h.numRefIdxL1ActiveMinus1)))
            }
            h.fiveMinusMaxNumMergeCand = UInt8(try r.readUE("five_minus_max_num_merge_cand", in: 0...4))
        }
        let qpBdOffsetY = Int32(6 * sps.bitDepthLumaMinus8)  // (7-5)
        let initQp = 26 + Int32(pps.initQpMinus26)
        h.sliceQpDelta = Int8(try r.readSE("slice_qp_delta", in: (-qpBdOffsetY - initQp)...(51 - initQp)))  // SliceQpY (7-54)
        if pps.ppsSliceChromaQpOffsetsPresentFlag {
            h.sliceCbQpOffset = Int8(try r.readSE("slice_cb_qp_offset", in: -12...12))
            h.sliceCrQpOffset = Int8(try r.readSE("slice_cr_qp_offset", in: -12...12))
        }
        if pps.chromaQpOffsetListEnabledFlag {
            h.cuChromaQpOffsetEnabledFlag = try r.readFlag("cu_chroma_qp_offset_enabled_flag")
        }
        if pps.deblockingFilterOverrideEnabledFlag {
            h.deblockingFilterOverrideFlag = try r.readFlag("deblocking_filter_override_flag")
        }
        h.sliceDeblockingFilterDisabledFlag = pps.ppsDeblockingFilterDisabledFlag
        h.sliceBetaOffsetDiv2 = pps.ppsBetaOffsetDiv2
        h.sliceTcOffsetDiv2 = pps.ppsTcOffsetDiv2
        if h.deblockingFilterOverrideFlag {
            h.sliceDeblockingFilterDisabledFlag = try r.readFlag("slice_deblocking_filter_disabled_flag")
            if !h.sliceDeblockingFilterDisabledFlag {
                h.sliceBetaOffsetDiv2 = Int8(try r.readSE("slice_beta_offset_div2", in: -6...6))
                h.sliceTcOffsetDiv2 = Int8(try r.readSE("slice_tc_offset_div2", in: -6...6))
            }
        }
        h.sliceLoopFilterAcrossSlicesEnabledFlag = pps.ppsLoopFilterAcrossSlicesEnabledFlag
        if pps.ppsLoopFilterAcrossSlicesEnabledFlag
            && (h.sliceSaoLumaFlag || h.sliceSaoChromaFlag || !h.sliceDeblockingFilterDisabledFlag) {
            h.sliceLoopFilterAcrossSlicesEnabledFlag = try r.readFlag("slice_loop_filter_across_slices_enabled_flag")
        }
    }
}

/// Ceil(Log2(n)) for n ≥ 1 (H.265 5.7); 0 for n ≤ 1.
@inline(__always)
func ceilLog2(_ n: Int) -> Int {
    n <= 1 ? 0 : Int.bitWidth - (n - 1).leadingZeroBitCount
}
