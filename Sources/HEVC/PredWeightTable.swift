/// pred_weight_table(), H.265 7.3.6.3, with the derived weights and offsets of 7.4.7.3
/// (LumaWeightLX, ChromaWeightLX, ChromaOffsetLX — what VA-API wants, not the coded deltas).
public struct PredWeightTable: Sendable, Equatable {
    public var lumaLog2WeightDenom: UInt8 = 0
    /// Inferred 0 when ChromaArrayType is 0.
    public var deltaChromaLog2WeightDenom: Int8 = 0
    /// Index 0 is list 0, index 1 list 1 (empty for P slices).
    public var lumaWeightFlag: [[Bool]] = [[], []]
    public var chromaWeightFlag: [[Bool]] = [[], []]
    public var deltaLumaWeight: [[Int16]] = [[], []]
    public var lumaOffset: [[Int32]] = [[], []]
    /// [list][i][j], j = 0 Cb, 1 Cr.
    public var deltaChromaWeight: [[[Int16]]] = [[], []]
    public var deltaChromaOffset: [[[Int32]]] = [[], []]

    public init() {}

    /// ChromaLog2WeightDenom (7-55).
    public var chromaLog2WeightDenom: Int { Int(lumaLog2WeightDenom) + Int(deltaChromaLog2WeightDenom) }
    /// LumaWeightLX[i] (7-56).
    public func lumaWeight(list: Int, _ i: Int) -> Int { (1 << Int(lumaLog2WeightDenom)) + Int(deltaLumaWeight[list][i]) }
    /// ChromaWeightLX[i][j] (7-57).
    public func chromaWeight(list: Int, _ i: Int, _ j: Int) -> Int {
        (1 << chromaLog2WeightDenom) + Int(deltaChromaWeight[list][i][j])
    }
    /// ChromaOffsetLX[i][j] (7-58), given WpOffsetHalfRangeC of the SPS.
    public func chromaOffset(list: Int, _ i: Int, _ j: Int, wpOffsetHalfRangeC: Int) -> Int {
        let v = wpOffsetHalfRangeC + Int(deltaChromaOffset[list][i][j])
            - ((wpOffsetHalfRangeC * chromaWeight(list: list, i, j)) >> chromaLog2WeightDenom)
        return min(max(v, -wpOffsetHalfRangeC), wpOffsetHalfRangeC - 1)
    }

    /// Reads pred_weight_table() for `numRefIdxActiveMinus1[0/1]` (list 1 only for B slices).
    /// Entries naming the current picture (pps_curr_pic_ref, SCC) do not occur: SCC is refused.
    public static func read(_ r: inout BitReader, sps: SequenceParameterSet, isB: Bool,
                            numRefIdxActiveMinus1: (Int, Int)) throws(HEVCError) -> PredWeightTable {
        var t = PredWeightTable()
        t.lumaLog2WeightDenom = UInt8(try r.readUE("luma_log2_weight_denom", in: 0...7))
        let chroma = sps.chromaArrayType != 0
        if chroma {
            let l = Int32(t.lumaLog2WeightDenom)
            t.deltaChromaLog2WeightDenom = Int8(try r.readSE("delta_chroma_log2_weight_denom", in: (-l)...(7 - l)))
        }
        // WpOffsetHalfRangeY / C (7-33, 7-34 in the range extension semantics).
        let halfY = 1 << (sps.highPrecisionOffsetsEnabledFlag ? sps.bitDepthY - 1 : 7)
        let halfC = 1 << (sps.highPrecisionOffsetsEnabledFlag ? sps.bitDepthC - 1 : 7)
        for list in 0..<(isB ? 2 : 1) {
            let n = (list == 0 ? numRefIdxActiveMinus1.0 : numRefIdxActiveMinus1.1) + 1
            for i in 0..<n { t.lumaWeightFlag[list].append(try r.readFlag("luma_weight_l\(list)_flag[\(i)]")) }
            for i in 0..<n {
                var f = false
                if chroma { f = try r.readFlag("chroma_weight_l\(list)_flag[\(i)]") }
                t.chromaWeightFlag[list].append(f)
            }
            for i in 0..<n {
                var dw: Int16 = 0, off: Int32 = 0
                if t.lumaWeightFlag[list][i] {
                    dw = Int16(try r.readSE("delta_luma_weight_l\(list)[\(i)]", in: -128...127))
                    off = try r.readSE("luma_offset_l\(list)[\(i)]", in: Int32(-halfY)...Int32(halfY - 1))
                }
                t.deltaLumaWeight[list].append(dw)
                t.lumaOffset[list].append(off)
                var cw: [Int16] = [0, 0], co: [Int32] = [0, 0]
                if t.chromaWeightFlag[list][i] {
                    for j in 0..<2 {
                        cw[j] = Int16(try r.readSE("delta_chroma_weight_l\(list)[\(i)][\(j)]", in: -128...127))
                        co[j] = try r.readSE("chroma_offset_l\(list)[\(i)][\(j)]",
                                             in: Int32(-4 * halfC)...Int32(4 * halfC - 1))
                    }
                }
                t.deltaChromaWeight[list].append(cw)
                t.deltaChromaOffset[list].append(co)
            }
        }
        return t
    }
}
