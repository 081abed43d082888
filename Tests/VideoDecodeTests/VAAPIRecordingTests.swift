import CVA
import FFmpegOracle
import Foundation
import HEVC
import Testing
import VideoDecode

/// One picture as the recording driver saw it: the target, then the buffers of each
/// vaRenderPicture call, then vaEndPicture.
struct RecordedPicture {
    var target: UInt32
    var calls: [[VARecordingDriver.Entry]] = []
    var endStatus: UInt32?

    static func group(_ entries: [VARecordingDriver.Entry]) -> [RecordedPicture] {
        var out: [RecordedPicture] = []
        var current: RecordedPicture?
        for e in entries {
            switch e.kind {
            case .beginPicture: current = RecordedPicture(target: e.surface)
            case .renderCall: current?.calls.append([])
            case .render: if current != nil, !(current!.calls.isEmpty) { current!.calls[current!.calls.count - 1].append(e) }
            case .endPicture:
                if var c = current { c.endStatus = e.bufferType; out.append(c) }
                current = nil
            default: break
            }
        }
        return out
    }
}

/// Decodes x265 fixtures through the VA-API rung over the recording driver and compares every
/// recorded parameter buffer with values derived from ffmpeg's trace_headers.
@Suite("VA-API rung over the recording driver vs trace_headers", .serialized)
struct VAAPIRecordingTests {
    static let enabled = FFmpeg.isAvailable && VARecordingDriver.isAvailable

    /// Decodes `bytes` (pts = access unit index); returns the output pts in order and the record.
    static func decode(_ bytes: [UInt8], device: VARecordingDriver.Device, headroom: Int = 8) throws
        -> (pts: [Int64], frames: Int, warnings: [PlannerWarning], record: [VARecordingDriver.Entry]) {
        let decoder = try VAAPIDecoder(connection: device.connect(), headroom: headroom)
        var pts: [Int64] = []
        var warnings: [PlannerWarning] = []
        for (i, au) in AccessUnitSplitter.split(bytes).enumerated() {
            let out = try decoder.decode(accessUnit: au, pts: Int64(i))
            warnings += out.warnings
            for f in out.pictures {
                pts.append(f.pts)
                f.lease.release()
            }
        }
        let out = try decoder.flush()
        for f in out.pictures { pts.append(f.pts); f.lease.release() }
        return (pts, pts.count, warnings, try device.record())
    }

    @Test(.enabled(if: enabled, "needs ffmpeg with libx265 and the VA recording driver (cc, libva-dev)"),
          arguments: VAFixture.all)
    func recordedBuffersMatchTheTrace(_ fixture: VAFixture) throws {
        let g = try fixture.load()
        let oracle = try TraceOracle(g.trace)
        #expect(g.trace.count == g.nalUnits.count, "trace units vs NAL units")
        let device = VARecordingDriver.Device()
        let run = try Self.decode(g.bytes, device: device)
        #expect(run.warnings.isEmpty, "\(run.warnings)")
        // Output order is ffmpeg's.
        #expect(run.pts == g.outputOrder.map(Int64.init), "output order")

        let pictures = RecordedPicture.group(run.record)
        try #require(pictures.count == oracle.pictures.count, "pictures recorded \(pictures.count), in stream \(oracle.pictures.count)")
        var mismatches: [String] = []
        var surfaceOfPOC: [Int64: UInt32] = [:]
        for (k, (rec, want)) in zip(pictures, oracle.pictures).enumerated() {
            func check(_ name: String, _ got: some BinaryInteger, _ expected: Int64) {
                if Int64(got) != expected { mismatches.append("picture \(k) \(name): \(got) ≠ \(expected)") }
            }
            if (16...23).contains(want.nalUnitType) && want.nalUnitType != 21 { surfaceOfPOC = [:] }
            check("vaEndPicture status", rec.endStatus ?? 99, 0)
            guard rec.calls.count == 2, let picEntry = rec.calls[0].first,
                  picEntry.bufferType == VAPictureParameterBufferType.rawValue,
                  let pic = picEntry.load(VAPictureParameterBufferHEVC.self) else {
                mismatches.append("picture \(k): submission is not [picture(+IQ)] then [slice params/data]")
                continue
            }
            // Picture parameters.
            check("CurrPic.picture_id", pic.CurrPic.picture_id, Int64(rec.target))
            check("CurrPic.pic_order_cnt", pic.CurrPic.pic_order_cnt, want.poc)
            check("CurrPic.flags", pic.CurrPic.flags, 0)
            let refs = withUnsafeBytes(of: pic.ReferenceFrames) { Array($0.bindMemory(to: VAPictureHEVC.self)) }
            let valid = refs.filter { $0.flags & UInt32(VA_PICTURE_HEVC_INVALID) == 0 }
            let wantRefs = Set(want.stCurrBefore + want.stCurrAfter + want.stFoll)
            if Set(valid.map { Int64($0.pic_order_cnt) }) != wantRefs {
                mismatches.append("picture \(k): ReferenceFrames POCs \(valid.map(\.pic_order_cnt)) ≠ \(wantRefs.sorted())")
            }
            for r in refs where r.flags & UInt32(VA_PICTURE_HEVC_INVALID) != 0 { check("invalid entry id", r.picture_id, 0xFFFF_FFFF) }
            for r in valid {
                let poc = Int64(r.pic_order_cnt)
                var flags: UInt32 = 0
                if want.stCurrBefore.contains(poc) { flags |= UInt32(VA_PICTURE_HEVC_RPS_ST_CURR_BEFORE) }
                if want.stCurrAfter.contains(poc) { flags |= UInt32(VA_PICTURE_HEVC_RPS_ST_CURR_AFTER) }
                check("ReferenceFrames[POC \(poc)].flags", r.flags, Int64(flags))
                check("ReferenceFrames[POC \(poc)].picture_id", r.picture_id, Int64(surfaceOfPOC[poc] ?? 0xDEAD))
                if r.picture_id == rec.target { mismatches.append("picture \(k): target surface is also a reference") }
            }
            surfaceOfPOC[want.poc] = rec.target
            let sps = want.sps, pps = want.pps
            func s(_ n: String) -> Int64 { sps[n] ?? 0 }
            func p(_ n: String) -> Int64 { pps[n] ?? 0 }
            check("pic_width", pic.pic_width_in_luma_samples, s("pic_width_in_luma_samples"))
            check("pic_height", pic.pic_height_in_luma_samples, s("pic_height_in_luma_samples"))
            let f = pic.pic_fields.bits
            check("chroma_format_idc", f.chroma_format_idc, s("chroma_format_idc"))
            check("pcm_enabled_flag", f.pcm_enabled_flag, s("pcm_enabled_flag"))
            check("scaling_list_enabled_flag", f.scaling_list_enabled_flag, s("scaling_list_enabled_flag"))
            check("transform_skip_enabled_flag", f.transform_skip_enabled_flag, p("transform_skip_enabled_flag"))
            check("amp_enabled_flag", f.amp_enabled_flag, s("amp_enabled_flag"))
            check("strong_intra_smoothing_enabled_flag", f.strong_intra_smoothing_enabled_flag, s("strong_intra_smoothing_enabled_flag"))
            check("sign_data_hiding_enabled_flag", f.sign_data_hiding_enabled_flag, p("sign_data_hiding_enabled_flag"))
            check("constrained_intra_pred_flag", f.constrained_intra_pred_flag, p("constrained_intra_pred_flag"))
            check("cu_qp_delta_enabled_flag", f.cu_qp_delta_enabled_flag, p("cu_qp_delta_enabled_flag"))
            check("weighted_pred_flag", f.weighted_pred_flag, p("weighted_pred_flag"))
            check("weighted_bipred_flag", f.weighted_bipred_flag, p("weighted_bipred_flag"))
            check("transquant_bypass_enabled_flag", f.transquant_bypass_enabled_flag, p("transquant_bypass_enabled_flag"))
            check("tiles_enabled_flag", f.tiles_enabled_flag, p("tiles_enabled_flag"))
            check("entropy_coding_sync_enabled_flag", f.entropy_coding_sync_enabled_flag, p("entropy_coding_sync_enabled_flag"))
            check("pps_loop_filter_across_slices_enabled_flag", f.pps_loop_filter_across_slices_enabled_flag,
                  p("pps_loop_filter_across_slices_enabled_flag"))
            // Hints sent as libavcodec sends them (0, no promise): VAAPIOracleTests.
            check("NoPicReorderingFlag", f.NoPicReorderingFlag, 0)
            check("NoBiPredFlag", f.NoBiPredFlag, 0)
            let maxDec = sps.elements.last { $0.name.hasPrefix("sps_max_dec_pic_buffering_minus1[") }?.value ?? -1
            check("sps_max_dec_pic_buffering_minus1", pic.sps_max_dec_pic_buffering_minus1, maxDec)
            check("bit_depth_luma_minus8", pic.bit_depth_luma_minus8, s("bit_depth_luma_minus8"))
            check("bit_depth_chroma_minus8", pic.bit_depth_chroma_minus8, s("bit_depth_chroma_minus8"))
            check("log2_min_luma_coding_block_size_minus3", pic.log2_min_luma_coding_block_size_minus3, s("log2_min_luma_coding_block_size_minus3"))
            check("log2_diff_max_min_luma_coding_block_size", pic.log2_diff_max_min_luma_coding_block_size,
                  s("log2_diff_max_min_luma_coding_block_size"))
            check("log2_min_transform_block_size_minus2", pic.log2_min_transform_block_size_minus2,
                  s("log2_min_luma_transform_block_size_minus2"))
            check("log2_diff_max_min_transform_block_size", pic.log2_diff_max_min_transform_block_size,
                  s("log2_diff_max_min_luma_transform_block_size"))
            check("max_transform_hierarchy_depth_intra", pic.max_transform_hierarchy_depth_intra, s("max_transform_hierarchy_depth_intra"))
            check("max_transform_hierarchy_depth_inter", pic.max_transform_hierarchy_depth_inter, s("max_transform_hierarchy_depth_inter"))
            check("init_qp_minus26", pic.init_qp_minus26, p("init_qp_minus26"))
            check("diff_cu_qp_delta_depth", pic.diff_cu_qp_delta_depth, p("diff_cu_qp_delta_depth"))
            check("pps_cb_qp_offset", pic.pps_cb_qp_offset, p("pps_cb_qp_offset"))
            check("pps_cr_qp_offset", pic.pps_cr_qp_offset, p("pps_cr_qp_offset"))
            check("log2_parallel_merge_level_minus2", pic.log2_parallel_merge_level_minus2, p("log2_parallel_merge_level_minus2"))
            let sf = pic.slice_parsing_fields.bits
            check("lists_modification_present_flag", sf.lists_modification_present_flag, p("lists_modification_present_flag"))
            check("long_term_ref_pics_present_flag", sf.long_term_ref_pics_present_flag, s("long_term_ref_pics_present_flag"))
            check("sps_temporal_mvp_enabled_flag", sf.sps_temporal_mvp_enabled_flag, s("sps_temporal_mvp_enabled_flag"))
            check("cabac_init_present_flag", sf.cabac_init_present_flag, p("cabac_init_present_flag"))
            check("output_flag_present_flag", sf.output_flag_present_flag, p("output_flag_present_flag"))
            check("dependent_slice_segments_enabled_flag", sf.dependent_slice_segments_enabled_flag, p("dependent_slice_segments_enabled_flag"))
            check("pps_slice_chroma_qp_offsets_present_flag", sf.pps_slice_chroma_qp_offsets_present_flag,
                  p("pps_slice_chroma_qp_offsets_present_flag"))
            check("sample_adaptive_offset_enabled_flag", sf.sample_adaptive_offset_enabled_flag, s("sample_adaptive_offset_enabled_flag"))
            check("deblocking_filter_override_enabled_flag", sf.deblocking_filter_override_enabled_flag,
                  p("deblocking_filter_override_enabled_flag"))
            check("pps_disable_deblocking_filter_flag", sf.pps_disable_deblocking_filter_flag, p("pps_deblocking_filter_disabled_flag"))
            check("RapPicFlag", sf.RapPicFlag, (16...23).contains(want.nalUnitType) ? 1 : 0)
            check("IdrPicFlag", sf.IdrPicFlag, want.nalUnitType == 19 || want.nalUnitType == 20 ? 1 : 0)
            check("IntraPicFlag", sf.IntraPicFlag, (16...23).contains(want.nalUnitType) ? 1 : 0)  // IRAP, as libavcodec
            check("log2_max_pic_order_cnt_lsb_minus4", pic.log2_max_pic_order_cnt_lsb_minus4, s("log2_max_pic_order_cnt_lsb_minus4"))
            check("num_short_term_ref_pic_sets", pic.num_short_term_ref_pic_sets, s("num_short_term_ref_pic_sets"))
            check("num_ref_idx_l0_default_active_minus1", pic.num_ref_idx_l0_default_active_minus1, p("num_ref_idx_l0_default_active_minus1"))
            check("num_ref_idx_l1_default_active_minus1", pic.num_ref_idx_l1_default_active_minus1, p("num_ref_idx_l1_default_active_minus1"))
            check("pps_beta_offset_div2", pic.pps_beta_offset_div2, p("pps_beta_offset_div2"))
            check("pps_tc_offset_div2", pic.pps_tc_offset_div2, p("pps_tc_offset_div2"))
            check("num_extra_slice_header_bits", pic.num_extra_slice_header_bits, p("num_extra_slice_header_bits"))
            check("st_rps_bits", pic.st_rps_bits, want.stRpsBits)

            // IQ matrix: present exactly when scaling lists are on; x265's "default" lists are
            // the Table 7-5 / 7-6 defaults (no scaling_list_data coded).
            let iq = rec.calls[0].dropFirst().first { $0.bufferType == VAIQMatrixBufferType.rawValue }
            check("IQ matrix buffers", rec.calls[0].count - 1, s("scaling_list_enabled_flag"))
            if s("scaling_list_enabled_flag") == 1 {
                #expect(s("sps_scaling_list_data_present_flag") == 0 && p("pps_scaling_list_data_present_flag") == 0,
                        "fixture codes explicit lists; the oracle knows only the defaults")
                if let m = iq?.load(VAIQMatrixBufferHEVC.self) { Self.checkDefaultLists(m, k, &mismatches) }
            }

            // Slices: parameter / data pairs in slice order.
            let call = rec.calls[1]
            check("slice buffers", call.count, Int64(2 * want.slices.count))
            for (j, ws) in want.slices.enumerated() where 2 * j + 1 < call.count {
                let paramEntry = call[2 * j], dataEntry = call[2 * j + 1]
                check("slice \(j) param type", paramEntry.bufferType, Int64(VASliceParameterBufferType.rawValue))
                check("slice \(j) data type", dataEntry.bufferType, Int64(VASliceDataBufferType.rawValue))
                guard let sl = paramEntry.load(VASliceParameterBufferHEVC.self) else { continue }
                let nal = g.nalUnits[ws.nalIndex]
                if dataEntry.payload != nal { mismatches.append("picture \(k) slice \(j): slice data ≠ the NAL unit") }
                check("slice \(j) slice_data_size", sl.slice_data_size, Int64(nal.count))
                check("slice \(j) slice_data_offset", sl.slice_data_offset, 0)
                check("slice \(j) slice_data_flag", sl.slice_data_flag, Int64(VA_SLICE_DATA_FLAG_ALL))
                check("slice \(j) slice_data_byte_offset", sl.slice_data_byte_offset, Int64(ws.headerBytes))
                check("slice \(j) slice_data_num_emu_prevn_bytes", sl.slice_data_num_emu_prevn_bytes,
                      Int64(Self.emulationPreventionBytes(nal, rbspBytes: ws.headerBytes)))
                check("slice \(j) slice_segment_address", sl.slice_segment_address, ws.v("slice_segment_address"))
                let lf = sl.LongSliceFlags.fields
                check("slice \(j) LastSliceOfPic", lf.LastSliceOfPic, j == want.slices.count - 1 ? 1 : 0)
                check("slice \(j) dependent_slice_segment_flag", lf.dependent_slice_segment_flag, ws.v("dependent_slice_segment_flag"))
                check("slice \(j) slice_type", lf.slice_type, ws.v("slice_type"))
                check("slice \(j) slice_sao_luma_flag", lf.slice_sao_luma_flag, ws.v("slice_sao_luma_flag"))
                check("slice \(j) slice_sao_chroma_flag", lf.slice_sao_chroma_flag, ws.v("slice_sao_chroma_flag"))
                check("slice \(j) mvd_l1_zero_flag", lf.mvd_l1_zero_flag, ws.v("mvd_l1_zero_flag"))
                check("slice \(j) cabac_init_flag", lf.cabac_init_flag, ws.v("cabac_init_flag"))
                let tmvp = ws.v("slice_temporal_mvp_enabled_flag")
                check("slice \(j) slice_temporal_mvp_enabled_flag", lf.slice_temporal_mvp_enabled_flag, tmvp)
                let deblockOff = ws.unit["slice_deblocking_filter_disabled_flag"] ?? p("pps_deblocking_filter_disabled_flag")
                check("slice \(j) slice_deblocking_filter_disabled_flag", lf.slice_deblocking_filter_disabled_flag, deblockOff)
                check("slice \(j) collocated_from_l0_flag", lf.collocated_from_l0_flag, ws.unit["collocated_from_l0_flag"] ?? 1)
                check("slice \(j) slice_loop_filter_across_slices_enabled_flag", lf.slice_loop_filter_across_slices_enabled_flag,
                      ws.unit["slice_loop_filter_across_slices_enabled_flag"] ?? p("pps_loop_filter_across_slices_enabled_flag"))
                check("slice \(j) collocated_ref_idx", sl.collocated_ref_idx, tmvp == 1 ? ws.v("collocated_ref_idx") : 0xFF)
                check("slice \(j) num_ref_idx_l0_active_minus1", sl.num_ref_idx_l0_active_minus1, Int64(max(0, ws.list0.count - 1)))
                check("slice \(j) num_ref_idx_l1_active_minus1", sl.num_ref_idx_l1_active_minus1, Int64(max(0, ws.list1.count - 1)))
                check("slice \(j) slice_qp_delta", sl.slice_qp_delta, ws.v("slice_qp_delta"))
                check("slice \(j) slice_cb_qp_offset", sl.slice_cb_qp_offset, ws.v("slice_cb_qp_offset"))
                check("slice \(j) slice_cr_qp_offset", sl.slice_cr_qp_offset, ws.v("slice_cr_qp_offset"))
                check("slice \(j) slice_beta_offset_div2", sl.slice_beta_offset_div2, ws.unit["slice_beta_offset_div2"] ?? p("pps_beta_offset_div2"))
                check("slice \(j) slice_tc_offset_div2", sl.slice_tc_offset_div2, ws.unit["slice_tc_offset_div2"] ?? p("pps_tc_offset_div2"))
                check("slice \(j) five_minus_max_num_merge_cand", sl.five_minus_max_num_merge_cand, ws.v("five_minus_max_num_merge_cand"))
                check("slice \(j) num_entry_point_offsets", sl.num_entry_point_offsets, 0)  // no entry point data is sent
                // Reference lists: indices into ReferenceFrames naming the oracle's POCs; 0xFF after.
                let lists = withUnsafeBytes(of: sl.RefPicList) { Array($0) }
                for (l, wantList) in [ws.list0, ws.list1].enumerated() {
                    let got = lists[(15 * l)..<(15 * l + 15)]
                    let pocs = got.prefix(wantList.count).map { $0 < 15 ? Int64(refs[Int($0)].pic_order_cnt) : -999 }
                    if pocs != wantList { mismatches.append("picture \(k) slice \(j): RefPicList\(l) POCs \(pocs) ≠ \(wantList)") }
                    if got.dropFirst(wantList.count).contains(where: { $0 != 0xFF }) {
                        mismatches.append("picture \(k) slice \(j): RefPicList\(l) unused entries not 0xFF")
                    }
                }
                // Weighted prediction tables, when the slice codes one.
                if ws.unit["luma_log2_weight_denom"] != nil {
                    Self.checkWeights(sl, ws, sps: sps, picture: k, slice: j, &mismatches)
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches: \(mismatches.prefix(25).joined(separator: "; "))")
        Self.checkSessionAndLifetime(run.record, fixture: fixture, g: g, oracle: oracle)
    }

    /// Config, surfaces, exports and buffer lifetime.
    static func checkSessionAndLifetime(_ record: [VARecordingDriver.Entry], fixture: VAFixture, g: VAFixture.Generated,
                                        oracle: TraceOracle) {
        let tenBit = fixture.pixelFormat.contains("10")
        let configs = record.filter { $0.kind == .createConfig }
        #expect(configs.count == fixture.sizes.count, "one config per session")
        for c in configs {
            #expect(c.elementSize == UInt32(bitPattern: (tenBit ? VAProfileHEVCMain10 : VAProfileHEVCMain).rawValue))
            #expect(c.numElements == VAEntrypointVLD.rawValue)
            let attrib = c.load(VAConfigAttrib.self)
            #expect(attrib?.type == VAConfigAttribRTFormat)
            #expect(attrib?.value == UInt32(tenBit ? VA_RT_FORMAT_YUV420_10 : VA_RT_FORMAT_YUV420), "explicit RT format")
        }
        let pools = record.filter { $0.kind == .createSurfaces }
        #expect(pools.count == fixture.sizes.count)
        for (pool, size) in zip(pools, fixture.sizes) {
            let wh = size.split(separator: "x").compactMap { Int($0) }
            // Coded size: x265 pads to a multiple of 8 (MinCbSizeY).
            #expect(Int(pool.elementSize) == (wh[0] + 7) / 8 * 8 && Int(pool.numElements) == (wh[1] + 7) / 8 * 8)
            let sps = oracle.pictures.first { $0.sps["pic_width_in_luma_samples"] == Int64(pool.elementSize) }?.sps
            let maxDec = Int(sps?.elements.last { $0.name.hasPrefix("sps_max_dec_pic_buffering_minus1[") }?.value ?? -9)
            let count = pool.payload.count - MemoryLayout<VASurfaceAttrib>.size
            #expect(count == (maxDec + 1 + 1 + 8) * 4, "pool of max DPB + 1 + headroom 8 surfaces")
            let attribBytes = Array(pool.payload.suffix(MemoryLayout<VASurfaceAttrib>.size))
            let attrib = attribBytes.withUnsafeBytes { $0.loadUnaligned(as: VASurfaceAttrib.self) }
            #expect(attrib.type == VASurfaceAttribPixelFormat)
            #expect(UInt32(bitPattern: attrib.value.value.i) == (tenBit ? PF_VA_FOURCC_P010 : PF_VA_FOURCC_NV12))
        }
        let exports = record.filter { $0.kind == .export }
        #expect(exports.count == oracle.pictures.count, "every picture exported once")
        for e in exports {
            #expect(e.bufferType == UInt32(VA_SURFACE_ATTRIB_MEM_TYPE_DRM_PRIME_2))
            #expect(e.elementSize == UInt32(VA_EXPORT_SURFACE_SEPARATE_LAYERS | VA_EXPORT_SURFACE_READ_ONLY))
        }
        // memfd objects have no EXPORT_SYNC_FILE: the fence falls back to vaSyncSurface per export.
        #expect(record.filter { $0.kind == .syncSurface }.count == exports.count)
        let created = record.filter { $0.kind == .createBuffer }.map(\.elementSize)
        let destroyed = record.filter { $0.kind == .destroyBuffer }.map(\.elementSize)
        #expect(created.count == destroyed.count && Set(created) == Set(destroyed), "every buffer destroyed")
        // Each buffer is destroyed after its picture's vaEndPicture.
        var open = Set<UInt32>()
        var inPicture = false
        for e in record {
            switch e.kind {
            case .createBuffer: open.insert(e.elementSize)
            case .beginPicture: inPicture = true
            case .endPicture: inPicture = false
            case .destroyBuffer:
                #expect(!inPicture, "buffer destroyed before vaEndPicture")
                open.remove(e.elementSize)
            default: break
            }
        }
        #expect(open.isEmpty)
    }

    /// Emulation prevention bytes in the escaped NAL unit before RBSP byte `rbspBytes`.
    static func emulationPreventionBytes(_ nal: [UInt8], rbspBytes: Int) -> Int {
        var zeros = 0, out = 0, removed = 0
        for b in nal {
            if out >= rbspBytes { break }
            if zeros >= 2 && b == 3 { removed += 1; zeros = 0; continue }
            out += 1
            zeros = b == 0 ? zeros + 1 : 0
        }
        return removed
    }

    /// H.265 Table 7-6 default 8×8 lists in raster order (intra, inter), as the IQ matrix wants
    /// them — the matrices as x265 3.5 prints them (common/scalinglist.cpp, quantIntraDefault8x8
    /// / quantInterDefault8x8); Table 7-5: 4×4 flat 16.
    static let defaultIntra: [UInt8] = [16, 16, 16, 16, 17, 18, 21, 24, 16, 16, 16, 16, 17, 19, 22, 25, 16, 16, 17, 18, 20, 22,
                                        25, 29, 16, 16, 18, 21, 24, 27, 31, 36, 17, 17, 20, 24, 30, 35, 41, 47, 18, 19, 22, 27,
                                        35, 44, 54, 65, 21, 22, 25, 31, 41, 54, 70, 88, 24, 25, 29, 36, 47, 65, 88, 115]
    static let defaultInter: [UInt8] = [16, 16, 16, 16, 17, 18, 20, 24, 16, 16, 16, 17, 18, 20, 24, 25, 16, 16, 17, 18, 20, 24,
                                        25, 28, 16, 17, 18, 20, 24, 25, 28, 33, 17, 18, 20, 24, 25, 28, 33, 41, 18, 20, 24, 25,
                                        28, 33, 41, 54, 20, 24, 25, 28, 33, 41, 54, 71, 24, 25, 28, 33, 41, 54, 71, 91]

    static func checkDefaultLists(_ m: VAIQMatrixBufferHEVC, _ k: Int, _ mismatches: inout [String]) {
        let l4 = withUnsafeBytes(of: m.ScalingList4x4) { Array($0) }
        let l8 = withUnsafeBytes(of: m.ScalingList8x8) { Array($0) }
        let l16 = withUnsafeBytes(of: m.ScalingList16x16) { Array($0) }
        let l32 = withUnsafeBytes(of: m.ScalingList32x32) { Array($0) }
        let dc16 = withUnsafeBytes(of: m.ScalingListDC16x16) { Array($0) }
        let dc32 = withUnsafeBytes(of: m.ScalingListDC32x32) { Array($0) }
        if l4 != [UInt8](repeating: 16, count: 96) { mismatches.append("picture \(k): ScalingList4x4") }
        let six = (0..<6).flatMap { $0 < 3 ? defaultIntra : defaultInter }
        if l8 != six { mismatches.append("picture \(k): ScalingList8x8") }
        if l16 != six { mismatches.append("picture \(k): ScalingList16x16") }
        if l32 != defaultIntra + defaultInter { mismatches.append("picture \(k): ScalingList32x32") }
        if dc16 != [UInt8](repeating: 16, count: 6) || dc32 != [16, 16] { mismatches.append("picture \(k): DC coefficients") }
    }

    /// Luma/chroma weights as coded, ChromaOffsetLX derived (7-56), for the lists the slice uses.
    static func checkWeights(_ sl: VASliceParameterBufferHEVC, _ ws: TraceOracle.Slice, sps: HeaderTrace.Unit,
                             picture k: Int, slice j: Int, _ mismatches: inout [String]) {
        func expectEqual(_ name: String, _ got: Int64, _ want: Int64) {
            if got != want { mismatches.append("picture \(k) slice \(j) \(name): \(got) ≠ \(want)") }
        }
        expectEqual("luma_log2_weight_denom", Int64(sl.luma_log2_weight_denom), ws.v("luma_log2_weight_denom"))
        expectEqual("delta_chroma_log2_weight_denom", Int64(sl.delta_chroma_log2_weight_denom), ws.v("delta_chroma_log2_weight_denom"))
        let chromaDenom = ws.v("luma_log2_weight_denom") + ws.v("delta_chroma_log2_weight_denom")
        let half: Int64 = 128  // WpOffsetHalfRangeC without high_precision_offsets
        let tables: [(Int, [[Int8]])] = [
            (0, [withUnsafeBytes(of: sl.delta_luma_weight_l0) { $0.map { Int8(bitPattern: $0) } },
                 withUnsafeBytes(of: sl.luma_offset_l0) { $0.map { Int8(bitPattern: $0) } },
                 withUnsafeBytes(of: sl.delta_chroma_weight_l0) { $0.map { Int8(bitPattern: $0) } },
                 withUnsafeBytes(of: sl.ChromaOffsetL0) { $0.map { Int8(bitPattern: $0) } }]),
            (1, [withUnsafeBytes(of: sl.delta_luma_weight_l1) { $0.map { Int8(bitPattern: $0) } },
                 withUnsafeBytes(of: sl.luma_offset_l1) { $0.map { Int8(bitPattern: $0) } },
                 withUnsafeBytes(of: sl.delta_chroma_weight_l1) { $0.map { Int8(bitPattern: $0) } },
                 withUnsafeBytes(of: sl.ChromaOffsetL1) { $0.map { Int8(bitPattern: $0) } }]),
        ]
        for (l, t) in tables {
            let n = l == 0 ? ws.list0.count : ws.list1.count
            for i in 0..<n {
                expectEqual("delta_luma_weight_l\(l)[\(i)]", Int64(t[0][i]), ws.v("delta_luma_weight_l\(l)[\(i)]"))
                expectEqual("luma_offset_l\(l)[\(i)]", Int64(t[1][i]), ws.v("luma_offset_l\(l)[\(i)]"))
                for c in 0..<2 {
                    let dw = ws.v("delta_chroma_weight_l\(l)[\(i)][\(c)]")
                    expectEqual("delta_chroma_weight_l\(l)[\(i)][\(c)]", Int64(t[2][2 * i + c]), dw)
                    let weight = (Int64(1) << chromaDenom) + dw
                    let coded = ws.v("chroma_offset_l\(l)[\(i)][\(c)]")
                    let derived = ws.unit["chroma_weight_l\(l)_flag[\(i)]"] == 1
                        ? min(max(half + coded - ((half * weight) >> chromaDenom), -half), half - 1) : 0
                    expectEqual("ChromaOffsetL\(l)[\(i)][\(c)]", Int64(t[3][2 * i + c]), derived)
                }
            }
        }
    }
}
