/// Picture order count derivation, H.265 8.3.1, carried across pictures.
///
/// Feed it the first slice segment header of every picture in decoding order; it returns
/// PicOrderCntVal. The state is PrevTid0Pic's lsb and msb (8-1).
public struct PictureOrderCount: Sendable, Equatable {
    /// slice_pic_order_cnt_lsb and PicOrderCntMsb of prevTid0Pic.
    public private(set) var prevPicOrderCntLsb: Int32 = 0
    public private(set) var prevPicOrderCntMsb: Int32 = 0
    /// True until the first picture and after an end of sequence NAL unit: the next IRAP has
    /// NoRaslOutputFlag = 1 (8.1.3).
    public private(set) var atSequenceStart = true

    public init() {}

    /// Call on an EOS NAL unit (H.265 7.4.3.6): the next picture starts a new CVS.
    public mutating func endOfSequence() { atSequenceStart = true }

    /// NoRaslOutputFlag of an IRAP picture (8.1.3): IDR, BLA, or the first picture / first
    /// after EOS. (HandleCraAsBlaFlag is an external means the planner does not use.)
    public func noRaslOutputFlag(_ nal: NALUnitHeader) -> Bool {
        guard nal.isIRAP else { return false }
        return (16...20).contains(nal.nalUnitType) || atSequenceStart
    }

    /// PicOrderCntVal of the picture whose first slice segment header is `slice` (8-1, 8-2).
    public mutating func derive(_ slice: SliceSegmentHeader, sps: SequenceParameterSet) -> Int32 {
        let nal = slice.header
        let maxLsb = Int32(sps.maxPicOrderCntLsb)
        let lsb = Int32(slice.slicePicOrderCntLsb)
        let msb: Int32
        if nal.isIRAP && noRaslOutputFlag(nal) {
            msb = 0
        } else if lsb < prevPicOrderCntLsb && prevPicOrderCntLsb - lsb >= maxLsb / 2 {
            msb = prevPicOrderCntMsb &+ maxLsb  // (8-1)
        } else if lsb > prevPicOrderCntLsb && lsb - prevPicOrderCntLsb > maxLsb / 2 {
            msb = prevPicOrderCntMsb &- maxLsb
        } else {
            msb = prevPicOrderCntMsb
        }
        atSequenceStart = false
        // prevTid0Pic: TemporalId 0 and not a RASL, RADL or sub-layer non-reference picture (8.3.1).
        let type = nal.nalUnitType
        let isSubLayerNonReference = type <= 14 && type % 2 == 0
        let isRaslOrRadl = (6...9).contains(type)
        if nal.temporalId == 0 && !isRaslOrRadl && !isSubLayerNonReference {
            prevPicOrderCntLsb = lsb
            prevPicOrderCntMsb = msb
        }
        return msb &+ lsb  // (8-2)
    }
}
