/// HEVC NAL unit types (H.265 Table 7-1) — the planner grows around this.
public enum NALUnitType: UInt8, Sendable {
    case trailN = 0, trailR = 1, tsaN = 2, tsaR = 3, stsaN = 4, stsaR = 5, radlN = 6, radlR = 7
    case raslN = 8, raslR = 9
    case blaWLP = 16, blaWRADL = 17, blaNLP = 18, idrWRADL = 19, idrNLP = 20, craNUT = 21
    case vps = 32, sps = 33, pps = 34, aud = 35, eos = 36, eob = 37, fd = 38, prefixSEI = 39, suffixSEI = 40

    /// IRAP pictures: BLA, IDR, CRA (H.265 3.73).
    public var isIRAP: Bool { (16...23).contains(rawValue) }
}
