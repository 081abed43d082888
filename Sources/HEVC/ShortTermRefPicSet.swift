/// st_ref_pic_set(stRpsIdx), H.265 7.3.7, with the derived lists of 7.4.8.
///
/// Whether coded explicitly or predicted from another set (inter_ref_pic_set_prediction_flag),
/// the result is stored in derived form: `deltaPocS0` (negative, decreasing) and `deltaPocS1`
/// (positive, increasing) with their used-by-current flags.
public struct ShortTermRefPicSet: Sendable, Equatable {
    public var interRefPicSetPredictionFlag = false
    public var deltaIdxMinus1: UInt32 = 0
    public var deltaRpsSign = false
    public var absDeltaRpsMinus1: UInt32 = 0
    /// DeltaPocS0[i] (7-61 when predicted, 7-67 otherwise).
    public var deltaPocS0: [Int32] = []
    /// UsedByCurrPicS0[i].
    public var usedByCurrPicS0: [Bool] = []
    /// DeltaPocS1[i] (7-62 when predicted, 7-68 otherwise).
    public var deltaPocS1: [Int32] = []
    public var usedByCurrPicS1: [Bool] = []

    public init() {}

    /// NumNegativePics.
    public var numNegativePics: Int { deltaPocS0.count }
    /// NumPositivePics.
    public var numPositivePics: Int { deltaPocS1.count }
    /// NumDeltaPocs (7-69).
    public var numDeltaPocs: Int { deltaPocS0.count + deltaPocS1.count }

    /// Reads st_ref_pic_set(stRpsIdx).
    /// - Parameters:
    ///   - previous: the SPS's sets 0..<num_short_term_ref_pic_sets read so far (candidates
    ///     for RefRpsIdx).
    ///   - numShortTermRefPicSets: num_short_term_ref_pic_sets (stRpsIdx equals it in a slice header).
    ///   - maxDecPicBufferingMinus1: sps_max_dec_pic_buffering_minus1[sps_max_sub_layers_minus1],
    ///     the bound on the number of pictures in a set (7.4.8).
    public static func read(_ r: inout BitReader, stRpsIdx: Int, previous: [ShortTermRefPicSet],
                            numShortTermRefPicSets: Int,
                            maxDecPicBufferingMinus1: Int) throws(HEVCError) -> ShortTermRefPicSet {
        var s = ShortTermRefPicSet()
        if stRpsIdx != 0 {
            s.interRefPicSetPredictionFlag = try r.readFlag("inter_ref_pic_set_prediction_flag")
        }
        let maxPics = UInt32(min(maxDecPicBufferingMinus1, 15))
        if s.interRefPicSetPredictionFlag {
            if stRpsIdx == numShortTermRefPicSets {
                s.deltaIdxMinus1 = try r.readUE("delta_idx_minus1", in: 0...UInt32(stRpsIdx - 1))
            }
            let refRpsIdx = stRpsIdx - (Int(s.deltaIdxMinus1) + 1)  // (7-59)
            guard refRpsIdx >= 0, refRpsIdx < previous.count else {
                throw .inconsistent(element: "delta_idx_minus1", reason: "RefRpsIdx \(refRpsIdx) not yet defined")
            }
            let ref = previous[refRpsIdx]
            s.deltaRpsSign = try r.readFlag("delta_rps_sign")
            s.absDeltaRpsMinus1 = try r.readUE("abs_delta_rps_minus1", in: 0...32767)
            let deltaRps = Int32((1 - 2 * (s.deltaRpsSign ? 1 : 0)) * (Int(s.absDeltaRpsMinus1) + 1))  // (7-60)
            var usedByCurrPicFlag: [Bool] = []
            var useDeltaFlag: [Bool] = []
            for j in 0...ref.numDeltaPocs {
                let used = try r.readFlag("used_by_curr_pic_flag[\(j)]")
                usedByCurrPicFlag.append(used)
                var useDelta = true  // inferred 1 when absent (7.4.8)
                if !used { useDelta = try r.readFlag("use_delta_flag[\(j)]") }
                useDeltaFlag.append(useDelta)
            }
            let nNeg = ref.numNegativePics, nPos = ref.numPositivePics, n = ref.numDeltaPocs
            // (7-61)
            for j in stride(from: nPos - 1, through: 0, by: -1) {
                let dPoc = ref.deltaPocS1[j] + deltaRps
                if dPoc < 0 && useDeltaFlag[nNeg + j] {
                    s.deltaPocS0.append(dPoc); s.usedByCurrPicS0.append(usedByCurrPicFlag[nNeg + j])
                }
            }
            if deltaRps < 0 && useDeltaFlag[n] {
                s.deltaPocS0.append(deltaRps); s.usedByCurrPicS0.append(usedByCurrPicFlag[n])
            }
            for j in 0..<nNeg {
                let dPoc = ref.deltaPocS0[j] + deltaRps
                if dPoc < 0 && useDeltaFlag[j] {
                    s.deltaPocS0.append(dPoc); s.usedByCurrPicS0.append(usedByCurrPicFlag[j])
                }
            }
            // (7-62)
            for j in stride(from: nNeg - 1, through: 0, by: -1) {
                let dPoc = ref.deltaPocS0[j] + deltaRps
                if dPoc > 0 && useDeltaFlag[j] {
                    s.deltaPocS1.append(dPoc); s.usedByCurrPicS1.append(usedByCurrPicFlag[j])
                }
            }
            if deltaRps > 0 && useDeltaFlag[n] {
                s.deltaPocS1.append(deltaRps); s.usedByCurrPicS1.append(usedByCurrPicFlag[n])
            }
            for j in 0..<nPos {
                let dPoc = ref.deltaPocS1[j] + deltaRps
                if dPoc > 0 && useDeltaFlag[nNeg + j] {
                    s.deltaPocS1.append(dPoc); s.usedByCurrPicS1.append(usedByCurrPicFlag[nNeg + j])
                }
            }
            if s.numDeltaPocs > Int(maxPics) {
                throw .outOfRange(element: "NumDeltaPocs", value: Int64(s.numDeltaPocs),
                                  allowed: 0...Int64(maxPics))
            }
        } else {
            let numNegative = try r.readUE("num_negative_pics", in: 0...maxPics)
            let numPositive = try r.readUE("num_positive_pics", in: 0...(maxPics - numNegative))
            var poc: Int32 = 0
            for i in 0..<Int(numNegative) {
                let d = try r.readUE("delta_poc_s0_minus1[\(i)]", in: 0...32767)
                poc -= Int32(d) + 1  // (7-67)
                s.deltaPocS0.append(poc)
                s.usedByCurrPicS0.append(try r.readFlag("used_by_curr_pic_s0_flag[\(i)]"))
            }
            poc = 0
            for i in 0..<Int(numPositive) {
                let d = try r.readUE("delta_poc_s1_minus1[\(i)]", in: 0...32767)
                poc += Int32(d) + 1  // (7-68)
                s.deltaPocS1.append(poc)
                s.usedByCurrPicS1.append(try r.readFlag("used_by_curr_pic_s1_flag[\(i)]"))
            }
        }
        return s
    }
}
