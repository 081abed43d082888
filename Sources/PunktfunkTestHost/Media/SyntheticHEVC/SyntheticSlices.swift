/// One entry of a slice's short-term RPS (st_ref_pic_set, 7.3.7): a picture before the current
/// one that the DPB keeps.
struct ShortTermReference: Equatable {
    /// POC of the picture minus the current POC; negative (no positive pictures here).
    var deltaPoc: Int32
    /// used_by_curr_pic_s0_flag: in RefPicList0 of the current picture.
    var usedByCurrPic: Bool
}

/// Writes the one slice segment of a synthetic picture (H.265 7.3.6 header, 7.3.8 data) as an
/// Annex-B NAL unit. Every CTB is one 16x16 CU:
/// - IDR (IDR_W_RADL, I slice): every CU is PCM (`split_cu_flag` 0, `pcm_flag` 1), so the
///   samples are coded raw and the picture is exactly `SyntheticPicture`.
/// - P (TRAIL_R, P slice, one active L0 reference): the first CU is AMVP with mvd = the motion
///   vector (its predictor candidates are all unavailable, so the predictor is zero) and no
///   residual; every other CU is skipped, and its single merge candidate (MaxNumMergeCand 1) is
///   the left or above CU's motion, so the whole picture is the reference moved by one vector.
enum SyntheticSlices {
    /// initValues (9.3.2.2) of the contexts used here, for initType 1 (P, cabac_init_flag 0)
    /// unless indexed by initType (0: I).
    private static let splitCuFlagInit: [[UInt8]] = [[139, 141, 157], [107, 139, 126]]
    private static let cuSkipFlagInit: [UInt8] = [197, 185, 201]   // initType 1
    private static let predModeFlagInit: UInt8 = 149
    private static let partModeInit: UInt8 = 154                    // bin 0, initType 1
    private static let mergeFlagInit: UInt8 = 110
    private static let absMvdGreater0Init: UInt8 = 140
    private static let absMvdGreater1Init: UInt8 = 198
    private static let mvpFlagInit: UInt8 = 168
    private static let rqtRootCbfInit: UInt8 = 79

    private static let ctbSize = 1 << SyntheticParameterSets.log2CtbSize

    /// The IDR slice NAL unit carrying `picture` as PCM.
    static func idr(_ picture: SyntheticPicture) -> [UInt8] {
        var w = RBSPWriter()
        w.writeFlag(true)                         // first_slice_segment_in_pic_flag
        w.writeFlag(false)                        // no_output_of_prior_pics_flag
        w.writeUE(0)                              // slice_pic_parameter_set_id
        w.writeUE(2)                              // slice_type (I)
        w.writeSE(0)                              // slice_qp_delta
        w.writeByteAlignment()

        let qp = SyntheticParameterSets.sliceQpY
        var split = splitCuFlagInit[0].map { CABACContext(initValue: $0, sliceQpY: qp) }
        var cabac = CABACWriter(bits: w)
        let columns = picture.width / ctbSize, rows = picture.height / ctbSize
        for row in 0..<rows {
            for column in 0..<columns {
                // Neighbour depths equal ours (0), so split_cu_flag's ctxInc is 0 (9.3.4.2.2).
                cabac.encode(false, context: &split[0])
                cabac.encodeTerminate(true)       // pcm_flag (flushes the engine)
                cabac.bits.alignWithZeros()       // pcm_alignment_zero_bit
                cabac.bits.writeBytes(picture.pcmSamples(ctbColumn: column, ctbRow: row, size: ctbSize))
                cabac.start()                     // 9.3.2.5: re-init after pcm_sample()
                cabac.encodeTerminate(row == rows - 1 && column == columns - 1)   // end_of_slice_segment_flag
            }
        }
        cabac.bits.alignWithZeros()               // after the flush's stop bit
        return NALUnitWriter.annexB(.idrWRADL, rbsp: cabac.bits.bytes)
    }

    /// A P slice NAL unit: POC lsb `pocLsb`, short-term RPS `references` (sorted nearest first,
    /// exactly one used), the whole picture predicted from the used reference displaced by
    /// `motion` (whole luma samples, even, so chroma stays integer too).
    static func predicted(width: Int, height: Int, pocLsb: UInt16, references: [ShortTermReference],
                          motion: MotionVector) -> [UInt8] {
        precondition(references.count(where: \.usedByCurrPic) == 1, "SyntheticSlices: one used reference")
        precondition(motion.x % 2 == 0 && motion.y % 2 == 0, "SyntheticSlices: even luma motion only")
        var w = RBSPWriter()
        w.writeFlag(true)                         // first_slice_segment_in_pic_flag
        w.writeUE(0)                              // slice_pic_parameter_set_id
        w.writeUE(1)                              // slice_type (P)
        w.writeBits(UInt64(pocLsb), count: SyntheticParameterSets.log2MaxPicOrderCntLsb)
        w.writeFlag(false)                        // short_term_ref_pic_set_sps_flag
        writeShortTermRefPicSet(references, into: &w)
        w.writeFlag(false)                        // num_ref_idx_active_override_flag
        w.writeUE(4)                              // five_minus_max_num_merge_cand: MaxNumMergeCand 1
        w.writeSE(0)                              // slice_qp_delta
        w.writeByteAlignment()

        let qp = SyntheticParameterSets.sliceQpY
        func context(_ v: UInt8) -> CABACContext { CABACContext(initValue: v, sliceQpY: qp) }
        var split = splitCuFlagInit[1].map(context)
        var skip = cuSkipFlagInit.map(context)
        var predMode = context(predModeFlagInit), partMode = context(partModeInit)
        var mergeFlag = context(mergeFlagInit), mvpFlag = context(mvpFlagInit), rootCbf = context(rqtRootCbfInit)
        var greater0 = context(absMvdGreater0Init), greater1 = context(absMvdGreater1Init)

        var cabac = CABACWriter(bits: w)
        let columns = width / ctbSize, rows = height / ctbSize
        for row in 0..<rows {
            for column in 0..<columns {
                cabac.encode(false, context: &split[0])    // split_cu_flag, ctxInc 0 (depths equal)
                // cu_skip_flag ctxInc (9.3.4.2.2): the left and above CUs inside the picture
                // that are skipped; every CU but the first (0, 0) is.
                let leftSkipped = column > 0 && !(row == 0 && column == 1)
                let aboveSkipped = row > 0 && !(row == 1 && column == 0)
                let ctxInc = (leftSkipped ? 1 : 0) + (aboveSkipped ? 1 : 0)
                if row == 0 && column == 0 {
                    cabac.encode(false, context: &skip[ctxInc])
                    cabac.encode(false, context: &predMode)        // pred_mode_flag: MODE_INTER
                    cabac.encode(true, context: &partMode)         // part_mode: PART_2Nx2N
                    cabac.encode(false, context: &mergeFlag)       // merge_flag
                    writeMvd(x: motion.x * 4, y: motion.y * 4, cabac: &cabac, greater0: &greater0, greater1: &greater1)
                    cabac.encode(false, context: &mvpFlag)         // mvp_l0_flag
                    cabac.encode(false, context: &rootCbf)         // rqt_root_cbf: no residual
                } else {
                    cabac.encode(true, context: &skip[ctxInc])
                }
                cabac.encodeTerminate(row == rows - 1 && column == columns - 1)   // end_of_slice_segment_flag
            }
        }
        cabac.bits.alignWithZeros()
        return NALUnitWriter.annexB(.trailR, rbsp: cabac.bits.bytes)
    }

    /// st_ref_pic_set(num_short_term_ref_pic_sets = 0) (7.3.7): no inter-RPS prediction; negative
    /// pictures as POC steps from the previous entry, minus one.
    private static func writeShortTermRefPicSet(_ references: [ShortTermReference], into w: inout RBSPWriter) {
        w.writeUE(UInt32(references.count))      // num_negative_pics
        w.writeUE(0)                              // num_positive_pics
        var previous: Int32 = 0
        for r in references {
            precondition(r.deltaPoc < previous, "SyntheticSlices: RPS must be sorted nearest first")
            w.writeUE(UInt32(previous - r.deltaPoc - 1))   // delta_poc_s0_minus1
            w.writeFlag(r.usedByCurrPic)                    // used_by_curr_pic_s0_flag
            previous = r.deltaPoc
        }
    }

    /// mvd_coding(x0, y0, 0) (7.3.8.9) for an mvd in quarter samples.
    private static func writeMvd(x: Int, y: Int, cabac: inout CABACWriter,
                                 greater0: inout CABACContext, greater1: inout CABACContext) {
        let ax = x.magnitude, ay = y.magnitude
        cabac.encode(ax > 0, context: &greater0)   // abs_mvd_greater0_flag[0]
        cabac.encode(ay > 0, context: &greater0)   // abs_mvd_greater0_flag[1]
        if ax > 0 { cabac.encode(ax > 1, context: &greater1) }
        if ay > 0 { cabac.encode(ay > 1, context: &greater1) }
        for (a, negative) in [(ax, x < 0), (ay, y < 0)] where a > 0 {
            if a > 1 { writeExpGolombBypass(UInt32(a - 2), k: 1, cabac: &cabac) }   // abs_mvd_minus2
            cabac.encodeBypass(negative)                                            // mvd_sign_flag
        }
    }

    /// k-th order Exp-Golomb bins (EGk, 9.3.3.3), all bypass-coded.
    private static func writeExpGolombBypass(_ value: UInt32, k: Int, cabac: inout CABACWriter) {
        var absV = value, k = k
        while absV >= 1 << k {
            cabac.encodeBypass(true)
            absV -= 1 << k
            k += 1
        }
        cabac.encodeBypass(false)
        cabac.encodeBypassBits(absV, count: k)
    }
}

