import Testing
@testable import HEVC

/// Hand-built syntax for paths x265 never emits (inter RPS prediction, long-term pictures,
/// list modification, explicit scaling lists, tiles), checked against values derived by hand
/// from the H.265 equations.
@Suite struct SyntaxTests {
    /// Set 0 explicit {−1, −3 | +2 (unused)}; set 1 predicted from it with deltaRps = −1 and
    /// entry 1 dropped. By (7-61)/(7-62): S0 = [−1 (from deltaRps), −2], S1 = [+1].
    @Test func interRefPicSetPrediction() throws {
        var w = BitWriter()
        w.ue(2); w.ue(1)                       // num_negative_pics, num_positive_pics
        w.ue(0); w.flag(true); w.ue(1); w.flag(true)  // −1 used, −3 used
        w.ue(1); w.flag(false)                 // +2 unused
        w.flag(true)                           // inter_ref_pic_set_prediction_flag (set 1)
        w.flag(true); w.ue(0)                  // delta_rps_sign = 1, abs_delta_rps_minus1 = 0 → −1
        w.flag(true)                           // j=0 used
        w.flag(false); w.flag(false)           // j=1 unused, use_delta 0
        w.flag(true); w.flag(true)             // j=2, j=3 used
        var r = BitReader(w.bytes)
        let s0 = try ShortTermRefPicSet.read(&r, stRpsIdx: 0, previous: [], numShortTermRefPicSets: 2, maxDecPicBufferingMinus1: 4)
        #expect(s0.deltaPocS0 == [-1, -3] && s0.usedByCurrPicS0 == [true, true])
        #expect(s0.deltaPocS1 == [2] && s0.usedByCurrPicS1 == [false])
        let s1 = try ShortTermRefPicSet.read(&r, stRpsIdx: 1, previous: [s0], numShortTermRefPicSets: 2, maxDecPicBufferingMinus1: 4)
        #expect(s1.interRefPicSetPredictionFlag && s1.deltaRpsSign)
        #expect(s1.deltaPocS0 == [-1, -2] && s1.usedByCurrPicS0 == [true, true])
        #expect(s1.deltaPocS1 == [1] && s1.usedByCurrPicS1 == [true])
        #expect(r.bitPosition == w.bitCount)
    }

    static func smallSPS() -> SequenceParameterSet {
        var sps = SequenceParameterSet()
        sps.picWidthInLumaSamples = 128
        sps.picHeightInLumaSamples = 64
        sps.log2MinLumaCodingBlockSizeMinus3 = 0
        sps.log2DiffMaxMinLumaCodingBlockSize = 1  // CTB 16 → 8×4 CTBs
        sps.log2MaxPicOrderCntLsbMinus4 = 4
        sps.spsMaxDecPicBufferingMinus1 = [5]
        sps.spsMaxNumReorderPics = [0]
        sps.spsMaxLatencyIncreasePlus1 = [0]
        var rps = ShortTermRefPicSet()
        rps.deltaPocS0 = [-1, -2]
        rps.usedByCurrPicS0 = [true, false]
        sps.numShortTermRefPicSets = 1
        sps.stRefPicSets = [rps]
        sps.longTermRefPicsPresentFlag = true
        sps.numLongTermRefPicsSps = 3
        sps.ltRefPicPocLsbSps = [5, 9, 200]
        sps.usedByCurrPicLtSpsFlag = [true, false, true]
        sps.spsTemporalMvpEnabledFlag = true
        return sps
    }

    /// A trailing P slice with an SPS RPS, two SPS long-term candidates plus one explicit
    /// long-term picture, list modification and a slice-level deblocking override.
    @Test func longTermPicturesAndListModification() throws {
        let sps = Self.smallSPS()
        var pps = PictureParameterSet()
        pps.listsModificationPresentFlag = true
        pps.deblockingFilterControlPresentFlag = true
        pps.deblockingFilterOverrideEnabledFlag = true
        pps.numRefIdxL0DefaultActiveMinus1 = 1
        var w = BitWriter()
        w.u(1, 0); w.u(6, 1); w.u(6, 0); w.u(3, 1)  // TRAIL_R header
        w.flag(false)                                 // first_slice_segment_in_pic_flag
        w.ue(0)                                       // slice_pic_parameter_set_id
        w.u(5, 7)                                     // slice_segment_address: Ceil(Log2(32)) = 5 bits
        w.ue(1)                                       // slice_type P
        w.u(8, 42)                                    // slice_pic_order_cnt_lsb
        w.flag(true)                                  // short_term_ref_pic_set_sps_flag (idx inferred 0)
        w.ue(2); w.ue(1)                              // num_long_term_sps, num_long_term_pics
        w.u(2, 2); w.flag(false)                      // lt_idx_sps[0] = 2, no msb
        w.u(2, 1); w.flag(true); w.ue(3)              // lt_idx_sps[1] = 1, msb cycle 3
        w.u(8, 17); w.flag(true); w.flag(true); w.ue(2)  // poc_lsb_lt[2] = 17 used, msb cycle 2
        w.flag(true)                                  // slice_temporal_mvp_enabled_flag
        w.flag(true); w.ue(2)                         // num_ref_idx_active_override, l0 = 3 refs
        w.flag(true)                                  // ref_pic_list_modification_flag_l0
        for e: UInt64 in [2, 0, 1] { w.u(2, e) }      // NumPicTotalCurr = 1 + 2 = 3 → 2 bits each
        w.ue(1)                                       // collocated_ref_idx
        w.ue(0)                                       // five_minus_max_num_merge_cand
        w.se(-3)                                      // slice_qp_delta
        w.flag(true); w.flag(false); w.se(2); w.se(-1)  // override, not disabled, beta 2, tc −1
        w.trailingBits()                              // byte_alignment()
        var r = BitReader(w.bytes)
        let h = try SliceSegmentHeader.read(&r, sps: sps, pps: pps, previousIndependent: nil)
        #expect(h.sliceSegmentAddress == 7 && h.sliceType == .p && h.slicePicOrderCntLsb == 42)
        #expect(h.ltIdxSps == [2, 1] && h.pocLsbLt == [17])
        #expect(h.derivedPocLsbLt == [200, 9, 17] && h.derivedUsedByCurrPicLt == [true, false, true])
        #expect(h.deltaPocMsbPresentFlag == [false, true, true])
        #expect(h.derivedDeltaPocMsbCycleLt == [0, 3, 2])  // (7-52): the explicit run restarts
        #expect(h.numPicTotalCurr == 3)
        #expect(h.numRefIdxL0ActiveMinus1 == 2 && h.listEntryL0 == [2, 0, 1])
        #expect(h.collocatedFromL0Flag && h.collocatedRefIdx == 1)
        #expect(h.sliceQpDelta == -3 && h.sliceBetaOffsetDiv2 == 2 && h.sliceTcOffsetDiv2 == -1)
        #expect(h.headerBitSize == w.bitCount)
        #expect(h.stRpsBits == 0)
    }

    /// An inline RPS in the slice header: stRpsBits counts exactly its bits.
    @Test func inlineRPSBitCount() throws {
        var sps = Self.smallSPS()
        sps.longTermRefPicsPresentFlag = false
        sps.spsTemporalMvpEnabledFlag = false
        let pps = PictureParameterSet()
        var w = BitWriter()
        w.u(1, 0); w.u(6, 1); w.u(6, 0); w.u(3, 1)
        w.flag(true); w.ue(0); w.ue(1); w.u(8, 3)
        w.flag(false)                                 // inline st_ref_pic_set(1)
        let before = w.bitCount
        w.flag(true); w.ue(0); w.flag(false); w.ue(1) // predicted from set 0 (delta_idx_minus1 0), deltaRps = +2
        w.flag(true); w.flag(true); w.flag(true)      // j = 0…2 used
        let rpsBits = w.bitCount - before
        w.flag(false); w.ue(0); w.se(0)               // no override, five_minus…, slice_qp_delta
        w.trailingBits()
        var r = BitReader(w.bytes)
        let h = try SliceSegmentHeader.read(&r, sps: sps, pps: pps, previousIndependent: nil)
        #expect(h.stRpsBits == rpsBits)
        // Reference {−1, −2} shifted by +2: (7-61) keeps nothing negative; −2+2 = 0 is
        // dropped (neither < 0 nor > 0); (7-62) gives +1 and the deltaRps entry +2.
        #expect(h.shortTermRefPicSet.deltaPocS0 == [] && h.shortTermRefPicSet.deltaPocS1 == [1, 2])
        #expect(h.numPicTotalCurr == 2)
    }

    /// scaling_list_data(): explicit 4×4 intra luma, predicted copies, default fallbacks, DC.
    @Test func scalingListData() throws {
        var w = BitWriter()
        for sizeId in 0..<4 {
            var matrixId = 0
            while matrixId < 6 {
                if sizeId == 0 && matrixId == 0 {
                    w.flag(true)
                    for _ in 0..<16 { w.se(1) }              // 9, 10, …, 24
                } else if sizeId == 0 && matrixId == 1 {
                    w.flag(false); w.ue(1)                   // copy of matrix 0
                } else if sizeId == 2 && matrixId == 0 {
                    w.flag(true); w.se(12)                   // DC 20
                    for _ in 0..<64 { w.se(0) }              // nextCoef starts at the DC: all 20
                } else if sizeId == 3 && matrixId == 3 {
                    w.flag(false); w.ue(0)                   // default inter
                } else {
                    w.flag(false); w.ue(0)                   // default
                }
                matrixId += sizeId == 3 ? 3 : 1
            }
        }
        var r = BitReader(w.bytes)
        let sl = try ScalingList.read(&r)
        #expect(r.bitPosition == w.bitCount)
        #expect(sl.lists[0][0] == (9...24).map { UInt8($0) })
        #expect(sl.lists[0][1] == sl.lists[0][0])
        #expect(sl.lists[0][2] == [UInt8](repeating: 16, count: 16))
        #expect(sl.lists[2][0] == [UInt8](repeating: 20, count: 64) && sl.dcCoef[0][0] == 20)
        #expect(sl.lists[1][4] == ScalingList.defaultInter8x8 && sl.lists[3][0] == ScalingList.defaultIntra8x8)
        #expect(sl.dcCoef[1][3] == 16)
    }

    /// Tiles with explicit column widths: the last column and row take the remainder (6-4, 6-6).
    @Test func nonUniformTiles() throws {
        let sps = Self.smallSPS()  // 8×4 CTBs
        var w = BitWriter()
        w.u(1, 0); w.u(6, 34); w.u(6, 0); w.u(3, 1)
        w.ue(0); w.ue(0)                                   // pps id, sps id
        w.flag(false); w.flag(false); w.u(3, 0); w.flag(false); w.flag(false)
        w.ue(0); w.ue(0); w.se(0)                          // ref idx defaults, init_qp_minus26
        w.flag(false); w.flag(false); w.flag(false)        // constrained intra, tskip, cu_qp_delta
        w.se(0); w.se(0); w.flag(false)                    // cb/cr offsets, slice offsets present
        w.flag(false); w.flag(false); w.flag(false)        // weighted pred/bipred, transquant bypass
        w.flag(true); w.flag(false)                        // tiles on, WPP off
        w.ue(2); w.ue(1); w.flag(false)                    // 3 columns, 2 rows, explicit spacing
        w.ue(1); w.ue(3)                                   // column widths 2, 4 → last 2
        w.ue(0)                                            // row height 1 → last 3
        w.flag(true)                                       // loop_filter_across_tiles_enabled_flag
        w.flag(true); w.flag(false); w.flag(false); w.flag(false)  // slices LF, deblock ctl, scaling, lists mod
        w.ue(0); w.flag(false); w.flag(false)              // merge level, slice ext, pps ext
        w.trailingBits()
        var r = BitReader(w.bytes)
        let pps = try PictureParameterSet.read(&r, sps: sps)
        #expect(pps.colWidth == [2, 4, 2] && pps.rowHeight == [1, 3])
        #expect(r.bitsRemaining == 0)
    }

    /// A prefix SEI with a user-data message (skipped by size) then a recovery point (D.2.8).
    @Test func recoveryPointSEI() throws {
        var w = BitWriter()
        w.u(1, 0); w.u(6, 39); w.u(6, 0); w.u(3, 1)
        w.u(8, 5); w.u(8, 0xFF); w.u(8, 1)            // user_data_unregistered, size 256
        for _ in 0..<256 { w.u(8, 0xAA) }
        w.u(8, 6); w.u(8, 1)                           // recovery_point, size 1
        w.se(-3); w.flag(true); w.flag(false)          // 5 + 1 + 1 = 7 bits …
        w.u(1, 0)                                      // … padded to the payload byte
        w.trailingBits()
        var parser = HEVCParser(tracing: true)
        let unit = try parser.parseNALUnit(w.bytes)
        guard case .sei(let sei) = unit.payload else { Issue.record("not an SEI: \(unit.payload)"); return }
        #expect(sei.payloadTypes == [5, 6])
        #expect(sei.recoveryPoint == .init(recoveryPocCnt: -3, exactMatchFlag: true, brokenLinkFlag: false))
        #expect(unit.syntaxElements.contains { $0.name == "ff_byte" && $0.bitPosition == 24 })
    }

    /// A dependent slice segment inherits the independent header's fields (7.4.7.1) and only
    /// reads its address, entry points and alignment.
    @Test func dependentSliceSegment() throws {
        var sps = Self.smallSPS()
        sps.longTermRefPicsPresentFlag = false
        sps.spsTemporalMvpEnabledFlag = false
        var pps = PictureParameterSet()
        pps.dependentSliceSegmentsEnabledFlag = true
        var w = BitWriter()
        w.u(1, 0); w.u(6, 1); w.u(6, 0); w.u(3, 1)
        w.flag(true); w.ue(0); w.ue(2)                 // first slice, PPS 0, I slice
        w.u(8, 9); w.flag(true)                        // POC lsb 9, SPS RPS 0
        w.se(4); w.trailingBits()                      // slice_qp_delta
        var r = BitReader(w.bytes)
        let first = try SliceSegmentHeader.read(&r, sps: sps, pps: pps, previousIndependent: nil)
        var d = BitWriter()
        d.u(1, 0); d.u(6, 1); d.u(6, 0); d.u(3, 1)
        d.flag(false); d.ue(0); d.flag(true); d.u(5, 16)  // dependent, address 16
        d.trailingBits()
        var r2 = BitReader(d.bytes)
        let dep = try SliceSegmentHeader.read(&r2, sps: sps, pps: pps, previousIndependent: first)
        #expect(dep.dependentSliceSegmentFlag && dep.sliceSegmentAddress == 16)
        #expect(dep.sliceType == .i && dep.slicePicOrderCntLsb == 9 && dep.sliceQpDelta == 4)
        #expect(dep.headerBitSize == d.bitCount)
        var r3 = BitReader(d.bytes)
        #expect(throws: HEVCError.self) { try SliceSegmentHeader.read(&r3, sps: sps, pps: pps, previousIndependent: nil) }
    }

    /// (8-1)/(8-2): lsb wrap-around moves the msb; sub-layer non-reference pictures do not
    /// become prevTid0Pic; an IDR restarts at 0.
    @Test func pictureOrderCountWraps() {
        let sps = Self.smallSPS()  // MaxPicOrderCntLsb 256
        func slice(_ type: UInt8, _ lsb: UInt32) -> SliceSegmentHeader {
            var h = SliceSegmentHeader()
            h.header = NALUnitHeader(nalUnitType: type, nuhLayerId: 0, nuhTemporalIdPlus1: 1)
            h.slicePicOrderCntLsb = lsb
            return h
        }
        var poc = PictureOrderCount()
        #expect(poc.derive(slice(19, 0), sps: sps) == 0)
        #expect(poc.derive(slice(1, 100), sps: sps) == 100)
        #expect(poc.derive(slice(1, 200), sps: sps) == 200)
        #expect(poc.derive(slice(1, 3), sps: sps) == 259)      // wrapped forward
        #expect(poc.derive(slice(0, 255), sps: sps) == 255)    // TRAIL_N: earlier, not prevTid0Pic
        #expect(poc.derive(slice(1, 5), sps: sps) == 261)      // still relative to 259
        #expect(poc.derive(slice(21, 10), sps: sps) == 266)    // CRA mid-stream keeps the msb
        #expect(poc.derive(slice(20, 0), sps: sps) == 0)       // IDR_N_LP
        poc.endOfSequence()
        #expect(poc.derive(slice(21, 40), sps: sps) == 40)     // CRA after EOS: NoRaslOutputFlag
    }

    /// A slice header longer than the unescaped prefix (300 32-bit entry points) is parsed
    /// again from the whole unit; the slice data behind it is not needed.
    @Test func sliceHeaderLongerThanThePrefix() throws {
        var sps = Self.smallSPS()
        sps.picHeightInLumaSamples = 8192            // 512 CTB rows → up to 511 WPP entry points
        sps.longTermRefPicsPresentFlag = false
        sps.spsTemporalMvpEnabledFlag = false
        var pps = PictureParameterSet()
        pps.entropyCodingSyncEnabledFlag = true
        var parser = HEVCParser()
        parser.parameterSets.sps[0] = sps
        parser.parameterSets.pps[0] = pps
        var w = BitWriter()
        w.u(1, 0); w.u(6, 19); w.u(6, 0); w.u(3, 1)  // IDR_W_RADL
        w.flag(true); w.flag(false); w.ue(0); w.ue(2) // first, no_output_of_prior_pics, PPS 0, I
        w.se(0)                                       // slice_qp_delta
        w.ue(300); w.ue(31)                           // num_entry_point_offsets, offset_len_minus1
        for _ in 0..<300 { w.u(32, 0xFFFF_FFFE) }    // 1200 bytes of header
        w.trailingBits()
        let headerBits = w.bitCount
        let nal = w.bytes + [UInt8](repeating: 0x55, count: 3000)
        #expect(nal.count > HEVCParser.sliceHeaderPrefixBytes)
        let unit = try parser.parseNALUnit(nal)
        guard case .slice(let h) = unit.payload else { Issue.record("not a slice"); return }
        #expect(h.headerBitSize > 8 * HEVCParser.sliceHeaderPrefixBytes)
        #expect(h.numEntryPointOffsets == 300 && h.entryPointOffsetMinus1.allSatisfy { $0 == 0xFFFF_FFFE })
        #expect(h.headerBitSize == headerBits)
    }
}
