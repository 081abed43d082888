/// Construction of RefPicList0 and RefPicList1, H.265 8.3.4.
enum ReferencePictureLists {
    /// Builds the lists of one P or B slice from the current RPS.
    /// - Returns: empty lists for I slices, or when the RPS has no current entries (the parser
    ///   refuses such P/B slices, NumPicTotalCurr > 0 is required by 7.4.7.2).
    static func build(_ s: SliceSegmentHeader, rps: ReferencePictureSet) -> (list0: [ReferenceEntry], list1: [ReferenceEntry]) {
        guard s.sliceType != .i else { return ([], []) }
        let before = rps.stCurrBefore, after = rps.stCurrAfter, lt = rps.ltCurr
        let numPicTotalCurr = before.count + after.count + lt.count  // (7-55), as resolved
        guard numPicTotalCurr > 0 else { return ([], []) }
        let list0 = makeList(active: Int(s.numRefIdxL0ActiveMinus1) + 1, total: numPicTotalCurr,
                             order: before + after + lt,
                             modification: s.refPicListModificationFlagL0 ? s.listEntryL0 : nil)  // (8-8)
        guard s.sliceType == .b else { return (list0, []) }
        let list1 = makeList(active: Int(s.numRefIdxL1ActiveMinus1) + 1, total: numPicTotalCurr,
                             order: after + before + lt,
                             modification: s.refPicListModificationFlagL1 ? s.listEntryL1 : nil)  // (8-10)
        return (list0, list1)
    }

    /// RefPicListTemp (8-7 / 8-9): the candidates repeated cyclically to NumRpsCurrTempList =
    /// Max(num_ref_idx_active, NumPicTotalCurr); then the list, reordered by list_entry when
    /// ref_pic_list_modification_flag is 1. Out-of-range entries (impossible after parsing, but
    /// the RPS may have fewer resolved entries than the header's count) wrap instead of trapping.
    private static func makeList(active: Int, total: Int, order: [ReferenceEntry],
                                 modification: [UInt8]?) -> [ReferenceEntry] {
        let numRpsCurrTempList = max(active, total)
        let temp = (0..<numRpsCurrTempList).map { order[$0 % order.count] }
        return (0..<active).map { rIdx in
            guard let entries = modification, rIdx < entries.count else { return temp[rIdx] }
            return temp[Int(entries[rIdx]) % temp.count]
        }
    }
}
