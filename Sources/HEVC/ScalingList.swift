/// scaling_list_data(), H.265 7.3.4, with the semantics of 7.4.5 applied: every list holds its
/// final coefficients in coded (up-right diagonal) order, predicted and default lists resolved.
///
/// `lists[sizeId][matrixId]` has 16 entries for sizeId 0 and 64 otherwise. For sizeId 3 only
/// matrixId 0 and 3 are coded; 1, 2, 4, 5 are filled from the 16×16 lists (the ChromaArrayType 3
/// rule of 7.4.5, harmless otherwise). `dcCoef[sizeId − 2][matrixId]` is
/// scaling_list_dc_coef_minus8 + 8 (16 for default lists).
public struct ScalingList: Sendable, Equatable {
    public var lists: [[[UInt8]]]
    public var dcCoef: [[UInt8]]

    /// The default lists of Table 7-5 (4×4: flat 16) and Table 7-6 (8×8 and up), used when
    /// scaling_list_enabled_flag is 1 but sps_scaling_list_data_present_flag is 0.
    public static let `default` = ScalingList()

    /// Table 7-6, intra (matrixId 0…2) 8×8 default, coded order.
    static let defaultIntra8x8: [UInt8] = [
        16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 17, 16, 17, 16, 17, 18,
        17, 18, 18, 17, 18, 21, 19, 20, 21, 20, 19, 21, 24, 22, 22, 24,
        24, 22, 22, 24, 25, 25, 27, 30, 27, 25, 25, 29, 31, 35, 35, 31,
        29, 36, 41, 44, 41, 36, 47, 54, 54, 47, 65, 70, 65, 88, 88, 115,
    ]
    /// Table 7-6, inter (matrixId 3…5) 8×8 default, coded order.
    static let defaultInter8x8: [UInt8] = [
        16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 17, 17, 17, 17, 17, 18,
        18, 18, 18, 18, 18, 20, 20, 20, 20, 20, 20, 20, 24, 24, 24, 24,
        24, 24, 24, 24, 25, 25, 25, 25, 25, 25, 25, 28, 28, 28, 28, 28,
        28, 33, 33, 33, 33, 33, 41, 41, 41, 41, 54, 54, 54, 71, 71, 91,
    ]

    /// The default list for (sizeId, matrixId), Table 7-5 (4×4 flat 16) and Table 7-6.
    static func defaultList(sizeId: Int, matrixId: Int) -> [UInt8] {
        if sizeId == 0 { return [UInt8](repeating: 16, count: 16) }
        return matrixId < 3 ? defaultIntra8x8 : defaultInter8x8
    }

    public init() {
        lists = (0..<4).map { s in (0..<6).map { m in ScalingList.defaultList(sizeId: s, matrixId: m) } }
        dcCoef = [[UInt8]](repeating: [UInt8](repeating: 16, count: 6), count: 2)
    }

    /// The up-right diagonal scan of a `blockSize`×`blockSize` block (H.265 6.5.3): entry i is
    /// the raster position (y · blockSize + x) of the i-th coefficient in coded order.
    public static func upRightDiagonalScan(blockSize: Int) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(blockSize * blockSize)
        var x = 0, y = 0
        while out.count < blockSize * blockSize {
            while y >= 0 {
                if x < blockSize && y < blockSize { out.append(y * blockSize + x) }
                y -= 1
                x += 1
            }
            y = x
            x = 0
        }
        return out
    }

    static let scan4x4 = upRightDiagonalScan(blockSize: 4)
    static let scan8x8 = upRightDiagonalScan(blockSize: 8)

    /// List (sizeId, matrixId) in raster order (row by row): the coded-order coefficients put
    /// where the up-right diagonal scan places them — the order VAIQMatrixBufferHEVC and the
    /// V4L2 HEVC scaling matrix control want. 16 entries for sizeId 0, 64 (the 8×8 grid that
    /// is upsampled for 16×16 and 32×32) otherwise.
    public func raster(sizeId: Int, matrixId: Int) -> [UInt8] {
        let coded = lists[sizeId][matrixId]
        let scan = coded.count == 16 ? Self.scan4x4 : Self.scan8x8
        var out = [UInt8](repeating: 0, count: coded.count)
        for (i, position) in scan.enumerated() where i < coded.count && position < out.count { out[position] = coded[i] }
        return out
    }

    public static func read(_ r: inout BitReader) throws(HEVCError) -> ScalingList {
        var sl = ScalingList()
        for sizeId in 0..<4 {
            var matrixId = 0
            while matrixId < 6 {
                let predMode = try r.readFlag("scaling_list_pred_mode_flag[\(sizeId)][\(matrixId)]")
                if !predMode {
                    let maxDelta = UInt32(sizeId == 3 ? matrixId / 3 : matrixId)
                    let delta = Int(try r.readUE("scaling_list_pred_matrix_id_delta[\(sizeId)][\(matrixId)]",
                                                 in: 0...maxDelta))
                    if delta == 0 {  // 7.4.5: inferred from the default list
                        sl.lists[sizeId][matrixId] = defaultList(sizeId: sizeId, matrixId: matrixId)
                        if sizeId > 1 { sl.dcCoef[sizeId - 2][matrixId] = 16 }
                    } else {  // refMatrixId (7-42)
                        let ref = matrixId - delta * (sizeId == 3 ? 3 : 1)
                        sl.lists[sizeId][matrixId] = sl.lists[sizeId][ref]
                        if sizeId > 1 { sl.dcCoef[sizeId - 2][matrixId] = sl.dcCoef[sizeId - 2][ref] }
                    }
                } else {
                    var nextCoef = 8
                    let coefNum = min(64, 1 << (4 + (sizeId << 1)))
                    if sizeId > 1 {
                        let dc = try r.readSE("scaling_list_dc_coef_minus8[\(sizeId - 2)][\(matrixId)]", in: -7...247)
                        nextCoef = Int(dc) + 8
                        sl.dcCoef[sizeId - 2][matrixId] = UInt8(nextCoef)
                    }
                    var list = [UInt8](repeating: 0, count: coefNum)
                    for i in 0..<coefNum {
                        let delta = try r.readSE("scaling_list_delta_coeff[\(sizeId)][\(matrixId)][\(i)]",
                                                 in: -128...127)
                        nextCoef = (nextCoef + Int(delta) + 256) % 256
                        list[i] = UInt8(nextCoef)  // ScalingList[sizeId][matrixId][i] (7.4.5)
                    }
                    sl.lists[sizeId][matrixId] = list
                }
                matrixId += sizeId == 3 ? 3 : 1
            }
        }
        // ChromaArrayType == 3: 32×32 chroma factors come from the 16×16 lists (7.4.5).
        for m in [1, 2, 4, 5] {
            sl.lists[3][m] = sl.lists[2][m]
            sl.dcCoef[1][m] = sl.dcCoef[0][m]
        }
        return sl
    }
}
