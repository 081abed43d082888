/// The stateless-decode planner: turns the parsed NAL units of each access unit into a
/// `PicturePlan` (POC, RPS, reference lists, target surface, reference table) and the pictures
/// to output, doing what a stateful decoder would do internally:
///
/// - POC (H.265 8.3.1) with the prevTid0Pic rule (`PictureOrderCount`);
/// - NoRaslOutputFlag / HandleCraAsBlaFlag (8.1.3): the first picture, the first after an end of
///   sequence NAL unit and the first after `reset(reason:)` must be IRAP pictures and start a
///   coded video sequence; pictures before that are skipped, and so are the RASL pictures
///   associated with such an IRAP;
/// - the RPS and reference marking (8.3.2), missing references concealed (a substitute or a
///   generated picture, 8.3.3) and reported as warnings;
/// - RefPicList0/1 (8.3.4);
/// - DPB removal, bumping and output order (C.5.2.2, C.5.2.3, C.5.2.4);
/// - surface allocation from a pool of max DPB + 1 + headroom, and a new session format when an
///   activated SPS changes coded size, bit depth, chroma format or DPB size.
///
/// Never traps on any input: every problem is a `PlannerWarning` and a skip or a substitute.
///
/// Use: parse with `HEVCParser`, group with `AccessUnits.group`, call `plan(_:)` per access
/// unit, `reset(reason: .loss)` when the transport reports loss, `finish()` at the end of the
/// stream; hold the surfaces you show (`holdSurface` / `releaseSurface`).
public struct DecodePlanner: Sendable {
    /// Why the caller resets the planner.
    public enum ResetReason: Sendable, Equatable {
        /// Data was lost (a dropped packet, a decode error): wait for an IRAP picture.
        case loss
        /// The caller starts over (seek, stream switch).
        case restart
    }

    /// Surfaces beyond max DPB + 1 the caller may hold (on screen, queued for display).
    public let headroom: Int
    public private(set) var dpb = DecodedPictureBuffer()
    public private(set) var pool: SurfacePool?
    public private(set) var format: StreamFormat?
    /// True until an IRAP picture starts decoding (start, after `reset`).
    public private(set) var awaitingIRAP = true
    private var pictureOrderCount = PictureOrderCount()
    /// NoRaslOutputFlag of the IRAP picture the following pictures are associated with.
    private var associatedIrapNoRaslOutputFlag = false
    private var spsById: [UInt8: SequenceParameterSet] = [:]
    private var ppsById: [UInt8: PictureParameterSet] = [:]
    private var decodedCount = 0

    /// When true, every picture the planner outputs is held (`holdSurface`) as it is output, so
    /// its surface cannot become the decode target of the same or a later access unit before the
    /// caller releases it (`releaseSurface`). A stateless decoder that hands surfaces to a
    /// display needs this: a picture bumped and freed by C.5.2.2 would otherwise be the lowest
    /// free id for the picture planned right after it.
    public let holdsOutputPictures: Bool

    public init(headroom: Int = 8, holdsOutputPictures: Bool = false) {
        self.headroom = max(0, headroom)
        self.holdsOutputPictures = holdsOutputPictures
    }

    /// The caller holds `surface` (e.g. on screen): it is not reused until released.
    public mutating func holdSurface(_ surface: SurfaceID) { pool?.hold(surface) }
    public mutating func releaseSurface(_ surface: SurfaceID) { pool?.release(surface) }

    /// The decoder failed on the picture in `surface` (or knows it inexact): it and every
    /// picture decoded from it until the next IRAP picture are planned and output as `damaged`.
    public mutating func markDamaged(surface: SurfaceID) { dpb.markDamaged(surface: surface) }

    /// Waits for the next IRAP picture. Pictures already decoded and waiting for output are
    /// output now (in `outputAfterDecoding`); the DPB is emptied and its surfaces released.
    public mutating func reset(reason: ResetReason) -> AccessUnitPlan {
        var plan = flushAll()
        plan.releasedSurfaces += emptyDPB()
        awaitingIRAP = true
        pictureOrderCount.endOfSequence()
        return plan
    }

    /// End of stream: outputs every picture still waiting (C.5.2.4 bumping until empty).
    public mutating func finish() -> AccessUnitPlan { flushAll() }

    /// Plans one access unit. Parameter sets in it are taken into account before its slices.
    public mutating func plan(_ units: [HEVCParser.ParsedNALUnit]) -> AccessUnitPlan {
        var result = AccessUnitPlan()
        var slices: [(index: Int, header: SliceSegmentHeader)] = []
        var endOfSequence = false
        for (index, unit) in units.enumerated() {
            switch unit.payload {
            case .sps(let sps): spsById[sps.spsSeqParameterSetId] = sps
            case .pps(let pps): ppsById[pps.ppsPicParameterSetId] = pps
            case .slice(let s): slices.append((index, s))
            case .other where unit.header.nalUnitType == NALUnitType.eos.rawValue: endOfSequence = true
            default: break
            }
        }
        if let first = slices.firstIndex(where: { $0.header.firstSliceSegmentInPicFlag }) {
            planPicture(Array(slices[first...]), into: &result)
        } else if !slices.isEmpty {
            result.warnings.append(.noFirstSliceSegment)
        }
        if endOfSequence {  // 7.4.3.6: the next picture is an IRAP with NoRaslOutputFlag = 1
            pictureOrderCount.endOfSequence()
            awaitingIRAP = true
            let flushed = flushAll()
            result.outputAfterDecoding += flushed.outputAfterDecoding
            result.releasedSurfaces += flushed.releasedSurfaces
        }
        return result
    }

    // MARK: - One picture

    private mutating func planPicture(_ slices: [(index: Int, header: SliceSegmentHeader)], into result: inout AccessUnitPlan) {
        let first = slices[0].header
        let nal = first.header
        guard let pps = ppsById[first.slicePicParameterSetId], let sps = spsById[pps.ppsSeqParameterSetId] else {
            result.warnings.append(.missingParameterSet(ppsId: first.slicePicParameterSetId))
            return
        }
        if awaitingIRAP {
            guard nal.isIRAP else {
                result.warnings.append(.awaitingIRAP(nalUnitType: nal.nalUnitType))
                return
            }
            // HandleCraAsBlaFlag = 1 (8.1.3): a CRA that starts decoding behaves like a BLA.
            pictureOrderCount.endOfSequence()
            awaitingIRAP = false
        }
        let noRaslOutputFlag = pictureOrderCount.noRaslOutputFlag(nal)
        if nal.isIRAP { associatedIrapNoRaslOutputFlag = noRaslOutputFlag }
        let isRASL = nal.nalUnitType == 8 || nal.nalUnitType == 9
        if isRASL && associatedIrapNoRaslOutputFlag {  // 8.1.3: not output, may not be decodable
            var poc = pictureOrderCount
            result.warnings.append(.raslSkipped(poc: poc.derive(first, sps: sps)))
            return
        }
        // SPS activation (7.4.2.4.2) happens at IRAPs starting a CVS; a new format then needs a new session.
        let newFormat = StreamFormat(sps)
        if newFormat != format {
            guard nal.isIRAP && noRaslOutputFlag else {
                result.warnings.append(.awaitingIRAP(nalUnitType: nal.nalUnitType))
                awaitingIRAP = true
                return
            }
        }
        let poc = pictureOrderCount.derive(first, sps: sps)  // (8-1), (8-2)
        let maxLsb = Int32(sps.maxPicOrderCntLsb)

        // 8.3.2: RPS derivation and marking.
        if nal.isIRAP && noRaslOutputFlag { dpb.markAllUnused() }
        var rps = ReferencePictureSet()
        let st = first.shortTermRefPicSet
        let isIDR = nal.nalUnitType == 19 || nal.nalUnitType == 20
        if !isIDR {
            for (d, used) in zip(st.deltaPocS0, st.usedByCurrPicS0) {
                if used { rps.pocStCurrBefore.append(poc &+ d) } else { rps.pocStFoll.append(poc &+ d) }
            }
            for (d, used) in zip(st.deltaPocS1, st.usedByCurrPicS1) {
                if used { rps.pocStCurrAfter.append(poc &+ d) } else { rps.pocStFoll.append(poc &+ d) }
            }
            // The parser keeps these arrays parallel; the bounds checks only guard edited headers.
            for i in first.derivedPocLsbLt.indices where i < first.derivedUsedByCurrPicLt.count {
                var pocLt = Int32(truncatingIfNeeded: first.derivedPocLsbLt[i])
                let msbPresent = i < first.deltaPocMsbPresentFlag.count && first.deltaPocMsbPresentFlag[i]
                if msbPresent {
                    let cycles = first.derivedDeltaPocMsbCycleLt
                    let cycle = i < cycles.count ? Int32(truncatingIfNeeded: cycles[i]) : 0
                    pocLt = pocLt &+ poc &- cycle &* maxLsb &- (poc & (maxLsb - 1))  // (8-5)
                }
                if first.derivedUsedByCurrPicLt[i] {
                    rps.pocLtCurr.append(pocLt); rps.currDeltaPocMsbPresentFlag.append(msbPresent)
                } else {
                    rps.pocLtFoll.append(pocLt); rps.follDeltaPocMsbPresentFlag.append(msbPresent)
                }
            }
        }
        // (8-6): long-term candidates among all reference pictures, then short-term ones.
        func findLongTerm(_ pocLt: Int32, _ msbPresent: Bool) -> Int? {
            dpb.pictures.indices.first { k in
                let p = dpb.pictures[k]
                return p.isReference && (msbPresent ? p.poc == pocLt : (p.poc & (maxLsb - 1)) == pocLt)
            }
        }
        func findShortTerm(_ target: Int32) -> Int? {
            dpb.pictures.indices.first { dpb.pictures[$0].marking == .shortTerm && dpb.pictures[$0].poc == target }
        }
        let ltCurr = zip(rps.pocLtCurr, rps.currDeltaPocMsbPresentFlag).map { findLongTerm($0, $1) }
        let ltFoll = zip(rps.pocLtFoll, rps.follDeltaPocMsbPresentFlag).map { findLongTerm($0, $1) }
        let stBefore = rps.pocStCurrBefore.map(findShortTerm)
        let stAfter = rps.pocStCurrAfter.map(findShortTerm)
        let stFoll = rps.pocStFoll.map(findShortTerm)
        let keep = Set((ltCurr + ltFoll + stBefore + stAfter + stFoll).compactMap { $0 })
        for k in dpb.pictures.indices where dpb.pictures[k].isReference && !keep.contains(k) {
            dpb.setMarking(.unused, at: k)
        }
        for k in (ltCurr + ltFoll).compactMap({ $0 }) { dpb.setMarking(.longTerm, at: k) }
        // Resolve by POC now: C.5.2.2 below removes pictures and shifts indices.
        func pocs(_ found: [Int?]) -> [Int32?] { found.map { $0.map { dpb.pictures[$0].poc } } }
        let resolved = (before: pocs(stBefore), after: pocs(stAfter), lt: pocs(ltCurr),
                        stFoll: pocs(stFoll), ltFoll: pocs(ltFoll))

        // C.5.2.2: output and removal of pictures before decoding the current one.
        if nal.isIRAP && noRaslOutputFlag && decodedCount > 0 {
            let noOutputOfPriorPicsFlag = nal.nalUnitType == NALUnitType.craNUT.rawValue || first.noOutputOfPriorPicsFlag
            if !noOutputOfPriorPicsFlag {
                // Every picture is unused for reference by now, so each bump frees its surface.
                while let (out, freed) = dpb.bump() {
                    result.outputBeforeDecoding.append(emit(out))
                    if let freed { release(freed, into: &result) }
                }
            }
            result.releasedSurfaces += emptyDPB()
        } else {
            result.releasedSurfaces += removeUnneeded()
            let reorder = Int(sps.spsMaxNumReorderPics.last ?? 0)
            let maxDec = sps.maxDecPicBuffering
            while dpb.numNeededForOutput > reorder || latencyExceeded(sps) || dpb.count >= maxDec {
                guard let (out, freed) = dpb.bump() else { break }
                result.outputBeforeDecoding.append(emit(out))
                if let freed { release(freed, into: &result) }
            }
        }
        if newFormat != format {
            result.isRebuild = format != nil
            result.sessionFormat = newFormat
            result.releasedSurfaces += emptyDPB()  // only already-output references remain
            format = newFormat
            pool = SurfacePool(capacity: newFormat.maxDecPicBuffering + 1 + headroom)
        }
        let crop = sps.conformanceWindow
        let cropWindow = CropWindow(x: crop.x, y: crop.y, width: crop.width, height: crop.height)

        // Missing "Curr" references: a substitute (closest POC among the references) or a
        // generated picture (8.3.3.2). Every RPS entry gets a surface, since a decoder's
        // reference table names them all; whether one is reported depends on whether a slice's
        // list uses it (below).
        var missing: [(poc: Int32, substitutePOC: Int32?)] = []
        func entries(_ wanted: [Int32], _ found: [Int32?], longTerm: Bool, conceal: Bool) -> [ReferenceEntry] {
            var out: [ReferenceEntry] = []
            for (target, hit) in zip(wanted, found) {
                if let hit, let p = dpb.pictures.first(where: { $0.poc == hit && $0.isReference }) {
                    out.append(ReferenceEntry(poc: target, picturePOC: p.poc, surface: p.surface, isLongTerm: longTerm, substituted: false))
                    continue
                }
                guard conceal else { continue }
                if let sub = dpb.pictures.filter(\.isReference).min(by: { abs(Int64($0.poc) - Int64(target)) < abs(Int64($1.poc) - Int64(target)) }) {
                    missing.append((target, sub.poc))
                    out.append(ReferenceEntry(poc: target, picturePOC: sub.poc, surface: sub.surface, isLongTerm: longTerm, substituted: true))
                } else if let surface = pool?.allocate() {
                    missing.append((target, nil))
                    dpb.insert(.init(poc: target, surface: surface, marking: longTerm ? .longTerm : .shortTerm,
                                     neededForOutput: false, picLatencyCount: 0, decodeIndex: -1, generated: true,
                                     cropWindow: cropWindow, damaged: true))
                    out.append(ReferenceEntry(poc: target, picturePOC: target, surface: surface, isLongTerm: longTerm, substituted: true))
                } else {
                    result.warnings.append(.surfacePoolExhausted(capacity: pool?.capacity ?? 0))
                }
            }
            return out
        }
        rps.stCurrBefore = entries(rps.pocStCurrBefore, resolved.before, longTerm: false, conceal: true)
        rps.stCurrAfter = entries(rps.pocStCurrAfter, resolved.after, longTerm: false, conceal: true)
        rps.ltCurr = entries(rps.pocLtCurr, resolved.lt, longTerm: true, conceal: true)
        rps.stFoll = entries(rps.pocStFoll, resolved.stFoll, longTerm: false, conceal: false)
        rps.ltFoll = entries(rps.pocLtFoll, resolved.ltFoll, longTerm: true, conceal: false)

        guard let surface = pool?.allocate() else {
            result.warnings.append(.surfacePoolExhausted(capacity: pool?.capacity ?? 0))
            return
        }
        let referenceFrames = dpb.pictures.filter(\.isReference).map { p in
            ReferenceFrame(poc: p.poc, surface: p.surface, isLongTerm: p.marking == .longTerm,
                           inStCurrBefore: rps.stCurrBefore.contains { $0.surface == p.surface },
                           inStCurrAfter: rps.stCurrAfter.contains { $0.surface == p.surface },
                           inLtCurr: rps.ltCurr.contains { $0.surface == p.surface })
        }
        let slicePlans = slices.map { s in
            let lists = ReferencePictureLists.build(s.header, rps: rps)
            return SlicePlan(header: s.header, nalIndex: s.index, refPicList0: lists.list0, refPicList1: lists.list1)
        }
        // 8.1.3: PicOutputFlag (RASL pictures of a NoRaslOutputFlag IRAP never get here).
        let picOutputFlag = first.picOutputFlag
        // Damage spreads only through the references a slice's RefPicList0/1 holds (8.3.4): a
        // Curr entry no list takes (every entry of an I slice, entries past
        // num_ref_idx_active) and every Foll entry are never read by this picture, so a missing
        // or damaged one neither damages it nor asks for a keyframe — an encoder's intra anchor
        // may still list the pictures it replaces. An RPS that could not be resolved in full
        // (no surface left to conceal with) leaves a P/B slice's lists misbuilt: damaged.
        let damagedSurfaces = Set(dpb.pictures.filter { $0.isReference && $0.damaged }.map(\.surface))
        let listed = slicePlans.flatMap { $0.refPicList0 + $0.refPicList1 }
        let unresolved = rps.stCurrBefore.count < rps.pocStCurrBefore.count || rps.stCurrAfter.count < rps.pocStCurrAfter.count
            || rps.ltCurr.count < rps.pocLtCurr.count
        let predicted = slicePlans.contains { $0.header.sliceType != .i }
        let damaged = listed.contains { $0.substituted || damagedSurfaces.contains($0.surface) } || (predicted && unresolved)
        let usedMissing = Set(listed.filter(\.substituted).map(\.poc))
        for m in missing {
            result.warnings.append(usedMissing.contains(m.poc) || (predicted && unresolved)
                ? .missingReference(poc: m.poc, substitutePOC: m.substitutePOC)
                : .unusedReferenceMissing(poc: m.poc))
        }
        result.picture = PicturePlan(poc: poc, surface: surface, nalUnitType: nal.nalUnitType, sps: sps, pps: pps,
                                     noRaslOutputFlag: nal.isIRAP && noRaslOutputFlag, picOutputFlag: picOutputFlag,
                                     rps: rps, referenceFrames: referenceFrames, slices: slicePlans,
                                     decodeIndex: decodedCount, damaged: damaged)

        // C.5.2.3: the current picture enters the DPB; "additional bumping".
        if picOutputFlag { dpb.countLatency(after: poc) }
        dpb.insert(.init(poc: poc, surface: surface, marking: .shortTerm, neededForOutput: picOutputFlag,
                         picLatencyCount: 0, decodeIndex: decodedCount, generated: false, cropWindow: cropWindow,
                         damaged: damaged))
        decodedCount += 1
        let reorder = Int(sps.spsMaxNumReorderPics.last ?? 0)
        while dpb.numNeededForOutput > reorder || latencyExceeded(sps) {
            guard let (out, freed) = dpb.bump() else { break }
            result.outputAfterDecoding.append(emit(out))
            if let freed { release(freed, into: &result) }
        }
    }

    /// SpsMaxLatencyPictures (7-9) reached by a picture waiting for output (C.5.2.2, C.5.2.3).
    private func latencyExceeded(_ sps: SequenceParameterSet) -> Bool {
        let plus1 = Int(sps.spsMaxLatencyIncreasePlus1.last ?? 0)
        guard plus1 != 0 else { return false }
        let spsMaxLatencyPictures = Int(sps.spsMaxNumReorderPics.last ?? 0) + plus1 - 1
        return dpb.pictures.contains { $0.neededForOutput && $0.picLatencyCount >= spsMaxLatencyPictures }
    }

    /// An output picture, held for the caller when `holdsOutputPictures`.
    private mutating func emit(_ p: DecodedPictureBuffer.Picture) -> OutputPicture {
        if holdsOutputPictures { pool?.hold(p.surface) }
        return Self.output(p)
    }

    private static func output(_ p: DecodedPictureBuffer.Picture) -> OutputPicture {
        OutputPicture(poc: p.poc, surface: p.surface, decodeIndex: p.decodeIndex, cropWindow: p.cropWindow, generated: p.generated,
                      damaged: p.damaged)
    }

    private mutating func release(_ surface: SurfaceID, into result: inout AccessUnitPlan) {
        pool?.leaveDPB(surface)
        result.releasedSurfaces.append(surface)
    }

    private mutating func removeUnneeded() -> [SurfaceID] {
        let gone = dpb.removeUnneeded()
        for s in gone { pool?.leaveDPB(s) }
        return gone
    }

    private mutating func emptyDPB() -> [SurfaceID] {
        let gone = dpb.removeAll()
        for s in gone { pool?.leaveDPB(s) }
        return gone
    }

    /// Bumps every picture waiting for output (C.5.2.4 until none is left).
    private mutating func flushAll() -> AccessUnitPlan {
        var plan = AccessUnitPlan()
        while let (out, freed) = dpb.bump() {
            plan.outputAfterDecoding.append(emit(out))
            if let freed { release(freed, into: &plan) }
        }
        return plan
    }
}
