import FFmpegOracle

/// The VA-API parameter values each picture of a stream must be decoded with, derived from
/// ffmpeg's trace_headers alone (none of the planner's code): POC (H.265 8.3.1), the RPS lists
/// (8.3.2, explicit st_ref_pic_set in the slice header — what x265 writes), the reference lists
/// without modification (8.3.4), the slice header's byte length, and the parameter-set fields.
struct TraceOracle {
    struct Slice {
        var unit: HeaderTrace.Unit
        /// Index of the NAL unit in the file.
        var nalIndex: Int
        /// POCs of RefPicList0/1 in order.
        var list0: [Int64], list1: [Int64]
        /// Bytes of the slice header (NAL header through byte_alignment()), RBSP.
        var headerBytes: Int
        func v(_ name: String) -> Int64 { unit[name] ?? 0 }
    }

    struct Picture {
        var poc: Int64
        var nalUnitType: Int
        var sps: HeaderTrace.Unit
        var pps: HeaderTrace.Unit
        var stCurrBefore: [Int64] = [], stCurrAfter: [Int64] = [], stFoll: [Int64] = []
        var stRpsBits: Int64 = 0
        var slices: [Slice] = []
    }

    struct OracleError: Error, CustomStringConvertible { var description: String }

    var pictures: [Picture] = []

    init(_ trace: [HeaderTrace.Unit]) throws {
        var sps: [Int64: HeaderTrace.Unit] = [:], pps: [Int64: HeaderTrace.Unit] = [:]
        var prevTid0Poc: Int64 = 0
        var firstPicture = true
        for (index, unit) in trace.enumerated() {
            let type = unit.nalUnitType
            if type == 33 { sps[unit["sps_seq_parameter_set_id"] ?? 0] = unit; continue }
            if type == 34 { pps[unit["pps_pic_parameter_set_id"] ?? 0] = unit; continue }
            guard type < 32 else { continue }
            guard let p = pps[unit["slice_pic_parameter_set_id"] ?? 0], let s = sps[p["pps_seq_parameter_set_id"] ?? 0] else {
                throw OracleError(description: "unit \(index): parameter sets missing")
            }
            if unit["first_slice_segment_in_pic_flag"] == 1 {
                let isIRAP = (16...23).contains(type), isIDR = type == 19 || type == 20
                let maxLsb = Int64(1) << ((s["log2_max_pic_order_cnt_lsb_minus4"] ?? 0) + 4)
                let lsb = unit["slice_pic_order_cnt_lsb"] ?? 0
                var msb: Int64 = 0  // 0 for an IRAP with NoRaslOutputFlag = 1 (IDR, BLA, the first CRA)
                if !(isIRAP && (type != 21 || firstPicture)) {  // (8-44) from prevTid0Pic
                    let prevLsb = prevTid0Poc & (maxLsb - 1), prevMsb = prevTid0Poc - prevLsb
                    if lsb < prevLsb && prevLsb - lsb >= maxLsb / 2 { msb = prevMsb + maxLsb }
                    else if lsb > prevLsb && lsb - prevLsb > maxLsb / 2 { msb = prevMsb - maxLsb }
                    else { msb = prevMsb }
                }
                let poc = msb + (isIDR ? 0 : lsb)
                firstPicture = false
                let tid = (unit["nuh_temporal_id_plus1"] ?? 1) - 1
                let subLayerNonRef = type <= 14 && type % 2 == 0
                if tid == 0 && !(6...9).contains(type) && !subLayerNonRef { prevTid0Poc = poc }
                var pic = Picture(poc: poc, nalUnitType: type, sps: s, pps: p)
                if !isIDR {
                    guard unit["short_term_ref_pic_set_sps_flag"] == 0, (unit["inter_ref_pic_set_prediction_flag"] ?? 0) == 0,
                          (s["long_term_ref_pics_present_flag"] ?? 0) == 0 else {
                        throw OracleError(description: "unit \(index): RPS not coded explicitly in the slice header")
                    }
                    var d: Int64 = 0
                    for i in 0..<Int(unit["num_negative_pics"] ?? 0) {
                        d -= (unit["delta_poc_s0_minus1[\(i)]"] ?? 0) + 1
                        if unit["used_by_curr_pic_s0_flag[\(i)]"] == 1 { pic.stCurrBefore.append(poc + d) } else { pic.stFoll.append(poc + d) }
                    }
                    d = 0
                    for i in 0..<Int(unit["num_positive_pics"] ?? 0) {
                        d += (unit["delta_poc_s1_minus1[\(i)]"] ?? 0) + 1
                        if unit["used_by_curr_pic_s1_flag[\(i)]"] == 1 { pic.stCurrAfter.append(poc + d) } else { pic.stFoll.append(poc + d) }
                    }
                    if let start = unit.element("num_negative_pics"),
                       let next = unit.elements.first(where: { $0.position > start.position && !Self.isRPSElement($0.name) }) {
                        pic.stRpsBits = Int64(next.position - start.position)
                    }
                }
                pictures.append(pic)
            }
            guard var pic = pictures.popLast() else { throw OracleError(description: "unit \(index): slice before a picture") }
            guard let last = unit.elements.last, last.name.hasPrefix("alignment_bit") else {
                throw OracleError(description: "unit \(index): slice header does not end in byte_alignment()")
            }
            let headerBytes = (last.position + 1) / 8
            let sliceType = unit["slice_type"] ?? 2
            let total = pic.stCurrBefore + pic.stCurrAfter
            func list(_ order: [Int64], active: Int64) -> [Int64] {
                guard !order.isEmpty else { return [] }
                return (0..<Int(active)).map { order[$0 % order.count] }
            }
            let override = unit["num_ref_idx_active_override_flag"] == 1
            let n0 = (override ? unit["num_ref_idx_l0_active_minus1"] ?? 0 : p["num_ref_idx_l0_default_active_minus1"] ?? 0) + 1
            let n1 = (override ? unit["num_ref_idx_l1_active_minus1"] ?? 0 : p["num_ref_idx_l1_default_active_minus1"] ?? 0) + 1
            let l0 = sliceType == 2 ? [] : list(total.isEmpty ? [] : pic.stCurrBefore + pic.stCurrAfter, active: n0)
            let l1 = sliceType == 0 ? list(pic.stCurrAfter + pic.stCurrBefore, active: n1) : []
            pic.slices.append(Slice(unit: unit, nalIndex: index, list0: l0, list1: l1, headerBytes: headerBytes))
            pictures.append(pic)
        }
    }

    static func isRPSElement(_ name: String) -> Bool {
        name == "num_negative_pics" || name == "num_positive_pics" || name.hasPrefix("delta_poc_s")
            || name.hasPrefix("used_by_curr_pic_s")
    }
}
