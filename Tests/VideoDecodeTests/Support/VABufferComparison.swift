import CVA

/// Every named field of the HEVC VA-API buffers, as integer lists, for a field-by-field comparison
/// of two recordings. Identity fields (surface ids, indices into ReferenceFrames) are left out:
/// `VABufferComparison` resolves them to POCs through each side's own table.
enum VABufferFields {
    typealias Field<T> = (name: String, get: @Sendable (T) -> [Int64])

    static func ints<T, U: BinaryInteger>(_ value: T, _: U.Type) -> [Int64] {
        withUnsafeBytes(of: value) { Array($0.bindMemory(to: U.self)).map(Int64.init) }
    }

    static let picture: [Field<VAPictureParameterBufferHEVC>] = [
        ("pic_width_in_luma_samples", { [Int64($0.pic_width_in_luma_samples)] }),
        ("pic_height_in_luma_samples", { [Int64($0.pic_height_in_luma_samples)] }),
        ("chroma_format_idc", { [Int64($0.pic_fields.bits.chroma_format_idc)] }),
        ("separate_colour_plane_flag", { [Int64($0.pic_fields.bits.separate_colour_plane_flag)] }),
        ("pcm_enabled_flag", { [Int64($0.pic_fields.bits.pcm_enabled_flag)] }),
        ("scaling_list_enabled_flag", { [Int64($0.pic_fields.bits.scaling_list_enabled_flag)] }),
        ("transform_skip_enabled_flag", { [Int64($0.pic_fields.bits.transform_skip_enabled_flag)] }),
        ("amp_enabled_flag", { [Int64($0.pic_fields.bits.amp_enabled_flag)] }),
        ("strong_intra_smoothing_enabled_flag", { [Int64($0.pic_fields.bits.strong_intra_smoothing_enabled_flag)] }),
        ("sign_data_hiding_enabled_flag", { [Int64($0.pic_fields.bits.sign_data_hiding_enabled_flag)] }),
        ("constrained_intra_pred_flag", { [Int64($0.pic_fields.bits.constrained_intra_pred_flag)] }),
        ("cu_qp_delta_enabled_flag", { [Int64($0.pic_fields.bits.cu_qp_delta_enabled_flag)] }),
        ("weighted_pred_flag", { [Int64($0.pic_fields.bits.weighted_pred_flag)] }),
        ("weighted_bipred_flag", { [Int64($0.pic_fields.bits.weighted_bipred_flag)] }),
        ("transquant_bypass_enabled_flag", { [Int64($0.pic_fields.bits.transquant_bypass_enabled_flag)] }),
        ("tiles_enabled_flag", { [Int64($0.pic_fields.bits.tiles_enabled_flag)] }),
        ("entropy_coding_sync_enabled_flag", { [Int64($0.pic_fields.bits.entropy_coding_sync_enabled_flag)] }),
        ("pps_loop_filter_across_slices_enabled_flag", { [Int64($0.pic_fields.bits.pps_loop_filter_across_slices_enabled_flag)] }),
        ("loop_filter_across_tiles_enabled_flag", { [Int64($0.pic_fields.bits.loop_filter_across_tiles_enabled_flag)] }),
        ("pcm_loop_filter_disabled_flag", { [Int64($0.pic_fields.bits.pcm_loop_filter_disabled_flag)] }),
        ("NoPicReorderingFlag", { [Int64($0.pic_fields.bits.NoPicReorderingFlag)] }),
        ("NoBiPredFlag", { [Int64($0.pic_fields.bits.NoBiPredFlag)] }),
        ("pic_fields.ReservedBits", { [Int64($0.pic_fields.bits.ReservedBits)] }),
        ("sps_max_dec_pic_buffering_minus1", { [Int64($0.sps_max_dec_pic_buffering_minus1)] }),
        ("bit_depth_luma_minus8", { [Int64($0.bit_depth_luma_minus8)] }),
        ("bit_depth_chroma_minus8", { [Int64($0.bit_depth_chroma_minus8)] }),
        ("pcm_sample_bit_depth_luma_minus1", { [Int64($0.pcm_sample_bit_depth_luma_minus1)] }),
        ("pcm_sample_bit_depth_chroma_minus1", { [Int64($0.pcm_sample_bit_depth_chroma_minus1)] }),
        ("log2_min_luma_coding_block_size_minus3", { [Int64($0.log2_min_luma_coding_block_size_minus3)] }),
        ("log2_diff_max_min_luma_coding_block_size", { [Int64($0.log2_diff_max_min_luma_coding_block_size)] }),
        ("log2_min_transform_block_size_minus2", { [Int64($0.log2_min_transform_block_size_minus2)] }),
        ("log2_diff_max_min_transform_block_size", { [Int64($0.log2_diff_max_min_transform_block_size)] }),
        ("log2_min_pcm_luma_coding_block_size_minus3", { [Int64($0.log2_min_pcm_luma_coding_block_size_minus3)] }),
        ("log2_diff_max_min_pcm_luma_coding_block_size", { [Int64($0.log2_diff_max_min_pcm_luma_coding_block_size)] }),
        ("max_transform_hierarchy_depth_intra", { [Int64($0.max_transform_hierarchy_depth_intra)] }),
        ("max_transform_hierarchy_depth_inter", { [Int64($0.max_transform_hierarchy_depth_inter)] }),
        ("init_qp_minus26", { [Int64($0.init_qp_minus26)] }),
        ("diff_cu_qp_delta_depth", { [Int64($0.diff_cu_qp_delta_depth)] }),
        ("pps_cb_qp_offset", { [Int64($0.pps_cb_qp_offset)] }),
        ("pps_cr_qp_offset", { [Int64($0.pps_cr_qp_offset)] }),
        ("log2_parallel_merge_level_minus2", { [Int64($0.log2_parallel_merge_level_minus2)] }),
        ("num_tile_columns_minus1", { [Int64($0.num_tile_columns_minus1)] }),
        ("num_tile_rows_minus1", { [Int64($0.num_tile_rows_minus1)] }),
        ("column_width_minus1", { ints($0.column_width_minus1, UInt16.self) }),
        ("row_height_minus1", { ints($0.row_height_minus1, UInt16.self) }),
        ("lists_modification_present_flag", { [Int64($0.slice_parsing_fields.bits.lists_modification_present_flag)] }),
        ("long_term_ref_pics_present_flag", { [Int64($0.slice_parsing_fields.bits.long_term_ref_pics_present_flag)] }),
        ("sps_temporal_mvp_enabled_flag", { [Int64($0.slice_parsing_fields.bits.sps_temporal_mvp_enabled_flag)] }),
        ("cabac_init_present_flag", { [Int64($0.slice_parsing_fields.bits.cabac_init_present_flag)] }),
        ("output_flag_present_flag", { [Int64($0.slice_parsing_fields.bits.output_flag_present_flag)] }),
        ("dependent_slice_segments_enabled_flag", { [Int64($0.slice_parsing_fields.bits.dependent_slice_segments_enabled_flag)] }),
        ("pps_slice_chroma_qp_offsets_present_flag", { [Int64($0.slice_parsing_fields.bits.pps_slice_chroma_qp_offsets_present_flag)] }),
        ("sample_adaptive_offset_enabled_flag", { [Int64($0.slice_parsing_fields.bits.sample_adaptive_offset_enabled_flag)] }),
        ("deblocking_filter_override_enabled_flag", { [Int64($0.slice_parsing_fields.bits.deblocking_filter_override_enabled_flag)] }),
        ("pps_disable_deblocking_filter_flag", { [Int64($0.slice_parsing_fields.bits.pps_disable_deblocking_filter_flag)] }),
        ("slice_segment_header_extension_present_flag",
         { [Int64($0.slice_parsing_fields.bits.slice_segment_header_extension_present_flag)] }),
        ("RapPicFlag", { [Int64($0.slice_parsing_fields.bits.RapPicFlag)] }),
        ("IdrPicFlag", { [Int64($0.slice_parsing_fields.bits.IdrPicFlag)] }),
        ("IntraPicFlag", { [Int64($0.slice_parsing_fields.bits.IntraPicFlag)] }),
        ("slice_parsing_fields.ReservedBits", { [Int64($0.slice_parsing_fields.bits.ReservedBits)] }),
        ("log2_max_pic_order_cnt_lsb_minus4", { [Int64($0.log2_max_pic_order_cnt_lsb_minus4)] }),
        ("num_short_term_ref_pic_sets", { [Int64($0.num_short_term_ref_pic_sets)] }),
        ("num_long_term_ref_pic_sps", { [Int64($0.num_long_term_ref_pic_sps)] }),
        ("num_ref_idx_l0_default_active_minus1", { [Int64($0.num_ref_idx_l0_default_active_minus1)] }),
        ("num_ref_idx_l1_default_active_minus1", { [Int64($0.num_ref_idx_l1_default_active_minus1)] }),
        ("pps_beta_offset_div2", { [Int64($0.pps_beta_offset_div2)] }),
        ("pps_tc_offset_div2", { [Int64($0.pps_tc_offset_div2)] }),
        ("num_extra_slice_header_bits", { [Int64($0.num_extra_slice_header_bits)] }),
        ("st_rps_bits", { [Int64($0.st_rps_bits)] }),
        ("va_reserved", { ints($0.va_reserved, UInt32.self) }),
    ]

    static let slice: [Field<VASliceParameterBufferHEVC>] = [
        ("slice_data_size", { [Int64($0.slice_data_size)] }),
        ("slice_data_offset", { [Int64($0.slice_data_offset)] }),
        ("slice_data_flag", { [Int64($0.slice_data_flag)] }),
        ("slice_data_byte_offset", { [Int64($0.slice_data_byte_offset)] }),
        ("slice_segment_address", { [Int64($0.slice_segment_address)] }),
        ("LastSliceOfPic", { [Int64($0.LongSliceFlags.fields.LastSliceOfPic)] }),
        ("dependent_slice_segment_flag", { [Int64($0.LongSliceFlags.fields.dependent_slice_segment_flag)] }),
        ("slice_type", { [Int64($0.LongSliceFlags.fields.slice_type)] }),
        ("color_plane_id", { [Int64($0.LongSliceFlags.fields.color_plane_id)] }),
        ("slice_sao_luma_flag", { [Int64($0.LongSliceFlags.fields.slice_sao_luma_flag)] }),
        ("slice_sao_chroma_flag", { [Int64($0.LongSliceFlags.fields.slice_sao_chroma_flag)] }),
        ("mvd_l1_zero_flag", { [Int64($0.LongSliceFlags.fields.mvd_l1_zero_flag)] }),
        ("cabac_init_flag", { [Int64($0.LongSliceFlags.fields.cabac_init_flag)] }),
        ("slice_temporal_mvp_enabled_flag", { [Int64($0.LongSliceFlags.fields.slice_temporal_mvp_enabled_flag)] }),
        ("slice_deblocking_filter_disabled_flag", { [Int64($0.LongSliceFlags.fields.slice_deblocking_filter_disabled_flag)] }),
        ("collocated_from_l0_flag", { [Int64($0.LongSliceFlags.fields.collocated_from_l0_flag)] }),
        ("slice_loop_filter_across_slices_enabled_flag",
         { [Int64($0.LongSliceFlags.fields.slice_loop_filter_across_slices_enabled_flag)] }),
        ("LongSliceFlags.reserved", { [Int64($0.LongSliceFlags.fields.reserved)] }),
        ("collocated_ref_idx", { [Int64($0.collocated_ref_idx)] }),
        ("num_ref_idx_l0_active_minus1", { [Int64($0.num_ref_idx_l0_active_minus1)] }),
        ("num_ref_idx_l1_active_minus1", { [Int64($0.num_ref_idx_l1_active_minus1)] }),
        ("slice_qp_delta", { [Int64($0.slice_qp_delta)] }),
        ("slice_cb_qp_offset", { [Int64($0.slice_cb_qp_offset)] }),
        ("slice_cr_qp_offset", { [Int64($0.slice_cr_qp_offset)] }),
        ("slice_beta_offset_div2", { [Int64($0.slice_beta_offset_div2)] }),
        ("slice_tc_offset_div2", { [Int64($0.slice_tc_offset_div2)] }),
        ("luma_log2_weight_denom", { [Int64($0.luma_log2_weight_denom)] }),
        ("delta_chroma_log2_weight_denom", { [Int64($0.delta_chroma_log2_weight_denom)] }),
        ("delta_luma_weight_l0", { ints($0.delta_luma_weight_l0, Int8.self) }),
        ("luma_offset_l0", { ints($0.luma_offset_l0, Int8.self) }),
        ("delta_chroma_weight_l0", { ints($0.delta_chroma_weight_l0, Int8.self) }),
        ("ChromaOffsetL0", { ints($0.ChromaOffsetL0, Int8.self) }),
        ("delta_luma_weight_l1", { ints($0.delta_luma_weight_l1, Int8.self) }),
        ("luma_offset_l1", { ints($0.luma_offset_l1, Int8.self) }),
        ("delta_chroma_weight_l1", { ints($0.delta_chroma_weight_l1, Int8.self) }),
        ("ChromaOffsetL1", { ints($0.ChromaOffsetL1, Int8.self) }),
        ("five_minus_max_num_merge_cand", { [Int64($0.five_minus_max_num_merge_cand)] }),
        ("num_entry_point_offsets", { [Int64($0.num_entry_point_offsets)] }),
        ("entry_offset_to_subset_array", { [Int64($0.entry_offset_to_subset_array)] }),
        ("slice_data_num_emu_prevn_bytes", { [Int64($0.slice_data_num_emu_prevn_bytes)] }),
        ("va_reserved", { ints($0.va_reserved, UInt32.self) }),
    ]

    static let iqMatrix: [Field<VAIQMatrixBufferHEVC>] = [
        ("ScalingList4x4", { ints($0.ScalingList4x4, UInt8.self) }),
        ("ScalingList8x8", { ints($0.ScalingList8x8, UInt8.self) }),
        ("ScalingList16x16", { ints($0.ScalingList16x16, UInt8.self) }),
        ("ScalingList32x32", { ints($0.ScalingList32x32, UInt8.self) }),
        ("ScalingListDC16x16", { ints($0.ScalingListDC16x16, UInt8.self) }),
        ("ScalingListDC32x32", { ints($0.ScalingListDC32x32, UInt8.self) }),
        ("va_reserved", { ints($0.va_reserved, UInt32.self) }),
    ]
}

/// The kiosk's recording against libavcodec's, picture by picture in decoding order: sessions
/// (profile, RT format, surface and context sizes), every picture-parameter field, the IQ matrix,
/// every slice-parameter field and the slice data. Surfaces are never compared by id: CurrPic must
/// be each side's own target, `ReferenceFrames` is compared as a set of (POC, flags) whose
/// surfaces must hold those POCs on that side, and `RefPicList` entries are compared as the POCs
/// they name through each side's own `ReferenceFrames`.
struct VABufferComparison {
    struct Difference: CustomStringConvertible {
        /// "picture 3", "picture 3 slice 1", "session 0", "stream".
        var location: String
        var field: String
        var kiosk: String
        var libavcodec: String
        var description: String { "\(location) \(field): kiosk \(kiosk), libavcodec \(libavcodec)" }
    }

    /// Where a field is compared: the picture's index and both sides' buffers.
    struct SliceSite {
        var picture: Int
        var slice: Int
        var kiosk: VARecording.Slice
        var libavcodec: VARecording.Slice
        var kioskPicture: VARecording.Picture
    }

    /// A slice field where libavcodec 5.1 does not send the bitstream's value: instead of the
    /// comparison, `check` judges the kiosk's value (nil = right).
    struct SliceException: Sendable {
        var field: String
        var reason: String
        /// For which slices (elsewhere the field is compared as usual).
        var applies: @Sendable (_ site: SliceSite) -> Bool = { _ in true }
        var check: @Sendable (_ kiosk: [Int64], _ site: SliceSite) -> String?
    }

    /// The same for a picture-parameter or IQ-matrix field ("IQ <name>"); `applies` says for which
    /// pictures (the kiosk's parameters given), elsewhere the field is compared as usual.
    struct PictureException: Sendable {
        var field: String
        var reason: String
        var applies: @Sendable (_ kiosk: VAPictureParameterBufferHEVC) -> Bool
        var check: @Sendable (_ kiosk: [Int64]) -> String?
    }

    var differences: [Difference] = []
    /// Exceptions that were taken (field → times), for the report.
    var exceptionsTaken: [String: Int] = [:]

    init(kiosk: VARecording, libavcodec: VARecording, pictureExceptions: [PictureException] = [],
         sliceExceptions: [SliceException] = [],
         sliceDataException: (@Sendable (_ site: SliceSite) -> String?)? = nil) {
        func differ(_ location: String, _ field: String, _ k: Any, _ l: Any) {
            differences.append(Difference(location: location, field: field, kiosk: "\(k)", libavcodec: "\(l)"))
        }
        for m in kiosk.malformed { differ("stream", "submission shape", m, "") }
        for m in libavcodec.malformed { differ("stream", "submission shape", "", m) }
        if kiosk.sessions != libavcodec.sessions {
            differ("stream", "sessions", kiosk.sessions, libavcodec.sessions)
        }
        if kiosk.pictures.count != libavcodec.pictures.count {
            differ("stream", "pictures", kiosk.pictures.count, libavcodec.pictures.count)
        }
        var kioskPOC: [UInt32: Int32] = [:], libavPOC: [UInt32: Int32] = [:]
        for (k, (a, b)) in zip(kiosk.pictures, libavcodec.pictures).enumerated() {
            let at = "picture \(k) (POC \(b.parameters.CurrPic.pic_order_cnt))"
            if a.endStatus != 0 || b.endStatus != 0 { differ(at, "vaEndPicture status", a.endStatus, b.endStatus) }
            let pa = a.parameters, pb = b.parameters
            if pa.CurrPic.picture_id != a.target { differ(at, "CurrPic.picture_id is the target", false, pb.CurrPic.picture_id == b.target) }
            if pb.CurrPic.picture_id != b.target { differ(at, "CurrPic.picture_id is the target", pa.CurrPic.picture_id == a.target, false) }
            if pa.CurrPic.pic_order_cnt != pb.CurrPic.pic_order_cnt { differ(at, "CurrPic.pic_order_cnt", pa.CurrPic.pic_order_cnt, pb.CurrPic.pic_order_cnt) }
            if pa.CurrPic.flags != pb.CurrPic.flags { differ(at, "CurrPic.flags", pa.CurrPic.flags, pb.CurrPic.flags) }
            let refsA = Self.references(pa), refsB = Self.references(pb)
            let setA = refsA.valid.map { "\($0.pic_order_cnt):\($0.flags)" }.sorted()
            let setB = refsB.valid.map { "\($0.pic_order_cnt):\($0.flags)" }.sorted()
            if setA != setB { differ(at, "ReferenceFrames (POC:flags)", setA, setB) }
            for r in refsA.valid where kioskPOC[r.picture_id] != r.pic_order_cnt {
                differ(at, "ReferenceFrames surface holds its POC", "surface \(r.picture_id) holds \(kioskPOC[r.picture_id].map(String.init) ?? "nothing"), entry says \(r.pic_order_cnt)", "")
            }
            for r in refsB.valid where libavPOC[r.picture_id] != r.pic_order_cnt {
                differ(at, "ReferenceFrames surface holds its POC", "", "surface \(r.picture_id) holds \(libavPOC[r.picture_id].map(String.init) ?? "nothing"), entry says \(r.pic_order_cnt)")
            }
            for (side, refs) in [("kiosk", refsA), ("libavcodec", refsB)] where !refs.invalidWellFormed {
                differ(at, "ReferenceFrames unused entries (VA_INVALID_ID, INVALID flag, POC 0)", side == "kiosk" ? "malformed" : "", side == "kiosk" ? "" : "malformed")
            }
            // A field under an exception is judged by its check; anything else must be equal.
            func excepted(_ name: String, _ va: [Int64], _ vb: [Int64]) -> Bool {
                guard let e = pictureExceptions.first(where: { $0.field == name && $0.applies(pa) }) else { return false }
                if va != vb { exceptionsTaken[name, default: 0] += 1 }
                if let bad = e.check(va) { differ(at, name, "\(va) (\(bad))", "\(vb) [exception: \(e.reason)]") }
                return true
            }
            for f in VABufferFields.picture {
                let va = f.get(pa), vb = f.get(pb)
                if !excepted(f.name, va, vb) && va != vb { differ(at, f.name, va, vb) }
            }
            switch (a.iqMatrix, b.iqMatrix) {
            case (nil, nil): break
            case let (ma?, mb?):
                for f in VABufferFields.iqMatrix {
                    let va = f.get(ma), vb = f.get(mb)
                    guard !excepted("IQ \(f.name)", va, vb), va != vb else { continue }
                    let i = Array(zip(va, vb)).firstIndex { $0 != $1 } ?? 0
                    differ(at, "IQ \(f.name)", "[\(i)] = \(va[i]) (of \(va.count))", "[\(i)] = \(vb[i])")
                }
            default: differ(at, "IQ matrix buffer", a.iqMatrix != nil, b.iqMatrix != nil)
            }
            if a.slices.count != b.slices.count { differ(at, "slices", a.slices.count, b.slices.count) }
            for (j, (sa, sb)) in zip(a.slices, b.slices).enumerated() {
                let sat = "\(at) slice \(j)"
                let site = SliceSite(picture: k, slice: j, kiosk: sa, libavcodec: sb, kioskPicture: a)
                for f in VABufferFields.slice {
                    let va = f.get(sa.parameters), vb = f.get(sb.parameters)
                    if let e = sliceExceptions.first(where: { $0.field == f.name && $0.applies(site) }) {
                        if va != vb { exceptionsTaken[f.name, default: 0] += 1 }
                        if let bad = e.check(va, site) { differ(sat, f.name, "\(va) (\(bad))", "\(vb) [exception: \(e.reason)]") }
                    } else if va != vb {
                        differ(sat, f.name, va, vb)
                    }
                }
                for l in 0..<2 {
                    let pocA = Self.refPicList(sa.parameters, l, pa), pocB = Self.refPicList(sb.parameters, l, pb)
                    if pocA != pocB { differ(sat, "RefPicList[\(l)] as POCs", pocA, pocB) }
                }
                if sa.data != sb.data {
                    if let check = sliceDataException {
                        exceptionsTaken["slice data", default: 0] += 1
                        if let bad = check(site) { differ(sat, "slice data", bad, "\(sb.data.count) bytes") }
                    } else {
                        differ(sat, "slice data", "\(sa.data.count) bytes", "\(sb.data.count) bytes")
                    }
                }
            }
            kioskPOC[a.target] = pa.CurrPic.pic_order_cnt
            libavPOC[b.target] = pb.CurrPic.pic_order_cnt
        }
    }

    static func references(_ p: VAPictureParameterBufferHEVC) -> (all: [VAPictureHEVC], valid: [VAPictureHEVC], invalidWellFormed: Bool) {
        let all = withUnsafeBytes(of: p.ReferenceFrames) { Array($0.bindMemory(to: VAPictureHEVC.self)) }
        let invalidFlag = UInt32(VA_PICTURE_HEVC_INVALID)
        let valid = all.filter { $0.flags & invalidFlag == 0 }
        let wellFormed = all.filter { $0.flags & invalidFlag != 0 }
            .allSatisfy { $0.picture_id == 0xFFFF_FFFF && $0.flags == invalidFlag && $0.pic_order_cnt == 0 }
        return (all, valid, wellFormed)
    }

    /// RefPicList[l] as the POCs its entries name in `p.ReferenceFrames` (nil for 0xFF, -999 for
    /// an index naming an unused entry).
    static func refPicList(_ s: VASliceParameterBufferHEVC, _ l: Int, _ p: VAPictureParameterBufferHEVC) -> [Int32?] {
        let all = references(p).all
        let raw = withUnsafeBytes(of: s.RefPicList) { Array($0) }
        return raw[(15 * l)..<(15 * l + 15)].map { i -> Int32? in
            guard i != 0xFF else { return nil }
            guard Int(i) < all.count, all[Int(i)].flags & UInt32(VA_PICTURE_HEVC_INVALID) == 0 else { return -999 }
            return all[Int(i)].pic_order_cnt
        }
    }
}
