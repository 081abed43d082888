import Testing
@testable import HEVC

/// Planner behaviour on the committed fixture (no ffmpeg needed), with parsed headers edited
/// to reach the paths x265 does not emit: pic_output_flag 0, end of sequence, long-term
/// references, no_output_of_prior_pics_flag.
///
/// The committed stream: 4 pictures, POC 0 (IDR) then P pictures 1…3, each referring to the
/// previous two (x265 `ref=2:bframes=0`); checked by hand against its trace_headers dump.
@Suite struct PlannerSyntheticTests {
    static func accessUnits() throws -> [[HEVCParser.ParsedNALUnit]] {
        parsedAccessUnits(try CommittedFixtureTests.load().bytes)
    }

    /// Applies `edit` to every slice segment header of access unit `index`.
    static func editSlices(_ aus: inout [[HEVCParser.ParsedNALUnit]], _ index: Int,
                           _ edit: (inout SliceSegmentHeader) -> Void) {
        for k in aus[index].indices {
            if case .slice(var s) = aus[index][k].payload {
                edit(&s)
                aus[index][k].payload = .slice(s)
            }
        }
    }

    @Test func committedStreamPlan() throws {
        let result = planParsed(try Self.accessUnits())
        let pictures = result.plans.compactMap(\.picture)
        #expect(pictures.map(\.poc) == [0, 1, 2, 3])
        #expect(result.output.map(\.poc) == [0, 1, 2, 3])
        #expect(result.warnings.isEmpty)
        #expect(result.plans.first?.sessionFormat?.codedWidth == 64)
        // Low delay, no reordering: each picture is output right after it is decoded (C.5.2.3).
        for plan in result.plans.dropLast() { #expect(plan.outputAfterDecoding.map(\.poc) == [plan.picture!.poc]) }
        // RefPicList0 by hand: nearest first, from the previous two pictures.
        #expect(pictures[1].slices[0].refPicList0.map(\.poc).first == 0)
        #expect(pictures[2].rps.pocStCurrBefore == [1, 0])
        #expect(pictures[3].rps.pocStCurrBefore == [2, 1])
        #expect(pictures[3].slices[0].refPicList0.map(\.poc).first == 2)
        #expect(pictures[3].referenceFrames.map(\.poc).sorted() == [1, 2])
    }

    @Test func picOutputFlagZeroIsNotOutput() throws {
        var aus = try Self.accessUnits()
        Self.editSlices(&aus, 2) { $0.picOutputFlag = false }
        let result = planParsed(aus)
        #expect(result.output.map(\.poc) == [0, 1, 3])
        // …but stays a reference for POC 3.
        #expect(result.plans[3].picture?.referenceFrames.contains { $0.poc == 2 } == true)
    }

    @Test func endOfSequenceFlushesAndWaitsForIRAP() throws {
        var aus = try Self.accessUnits()
        var eos = aus[1][aus[1].count - 1]
        eos.header = NALUnitHeader(nalUnitType: 36, nuhLayerId: 0, nuhTemporalIdPlus1: 1)
        eos.payload = .other
        aus[1].append(eos)
        let result = planParsed(aus)
        #expect(result.plans[1].output.map(\.poc) == [1])
        #expect(result.plans[2].picture == nil && result.plans[3].picture == nil)
        #expect(result.warnings == [.awaitingIRAP(nalUnitType: 1), .awaitingIRAP(nalUnitType: 1)])
    }

    /// POC 0 kept as a long-term reference by POC 3 (8.3.2, (8-5)/(8-6)), with and without
    /// delta_poc_msb_present_flag; it is appended to RefPicList0 after the short-term ones (8-8).
    @Test(arguments: [false, true])
    func longTermReference(_ msbPresent: Bool) throws {
        var aus = try Self.accessUnits()
        Self.editSlices(&aus, 3) { s in
            s.numLongTermPics = 1
            s.derivedPocLsbLt = [0]
            s.derivedUsedByCurrPicLt = [true]
            s.deltaPocMsbPresentFlag = [msbPresent]
            s.derivedDeltaPocMsbCycleLt = [0]
            s.numPicTotalCurr += 1
            s.numRefIdxL0ActiveMinus1 = 2
        }
        let result = planParsed(aus)
        let p = try #require(result.plans[3].picture)
        #expect(p.rps.pocLtCurr == [0] && p.rps.currDeltaPocMsbPresentFlag == [msbPresent])
        #expect(p.slices[0].refPicList0.map(\.poc) == [2, 1, 0])
        #expect(p.slices[0].refPicList0.map(\.isLongTerm) == [false, false, true])
        #expect(p.referenceFrames.first { $0.poc == 0 }?.isLongTerm == true)
        #expect(p.referenceFrames.first { $0.poc == 0 }?.inLtCurr == true)
        #expect(result.warnings.isEmpty)
    }

    /// ref_pic_lists_modification (8-8): list_entry_l0 picks from RefPicListTemp0.
    @Test func listModification() throws {
        var aus = try Self.accessUnits()
        Self.editSlices(&aus, 3) { s in
            s.numRefIdxL0ActiveMinus1 = 2
            s.refPicListModificationFlagL0 = true
            s.listEntryL0 = [1, 0, 1]
        }
        let p = try #require(planParsed(aus).plans[3].picture)
        #expect(p.slices[0].refPicList0.map(\.poc) == [1, 2, 1])
    }

    /// An IDR in the middle with no_output_of_prior_pics_flag: pictures still waiting for
    /// output are discarded (C.5.2.2). With reordering none wait here, so hold one back by
    /// making its output depend on a later bump: pic_output_flag is set but sps reorder is 0,
    /// so instead check the flag on an IDR that follows a picture waiting for output.
    @Test func noOutputOfPriorPicsDiscardsWaitingPictures() throws {
        var aus = try Self.accessUnits()
        // Let POC 1 wait: pretend the SPS allows one reordered picture.
        for k in aus[0].indices {
            if case .sps(var sps) = aus[0][k].payload {
                sps.spsMaxNumReorderPics = sps.spsMaxNumReorderPics.map { _ in 1 }
                sps.spsMaxDecPicBufferingMinus1 = sps.spsMaxDecPicBufferingMinus1.map { max($0, 2) }
                aus[0][k].payload = .sps(sps)
            }
        }
        // The IDR again after POC 1, with no_output_of_prior_pics_flag = 1.
        var idr = aus[0]
        for k in idr.indices {
            if case .slice(var s) = idr[k].payload { s.noOutputOfPriorPicsFlag = true; idr[k].payload = .slice(s) }
        }
        let result = planParsed([aus[0], aus[1], idr])
        #expect(result.output.map(\.poc) == [0, 0])  // POC 1 discarded; the second IDR flushed at the end
        #expect(result.plans[2].picture?.noRaslOutputFlag == true)
        // And without the flag, POC 1 is output before the second IDR decodes.
        let kept = planParsed([aus[0], aus[1], aus[0]])
        #expect(kept.plans[2].outputBeforeDecoding.map(\.poc) == [1])
        #expect(kept.output.map(\.poc) == [0, 1, 0])
    }

    /// The IDR lost and nothing in the DPB: the first picture (relabelled CRA so decoding may
    /// start there, but keeping its P slices and RPS, which name the lost POC 0) gets a
    /// generated picture (8.3.3.2) on a surface of its own, never output.
    @Test func missingReferenceWithEmptyDPBIsGenerated() throws {
        var aus = try Self.accessUnits()
        let headers = aus[0].filter { if case .slice = $0.payload { false } else { true } }
        aus.removeFirst()
        aus[0] = headers + aus[0]
        for k in aus[0].indices {
            guard case .slice(var s) = aus[0][k].payload else { continue }
            s.header.nalUnitType = NALUnitType.craNUT.rawValue
            aus[0][k].header = s.header
            aus[0][k].payload = .slice(s)
        }
        let result = planParsed(aus)
        #expect(result.warnings.first == .missingReference(poc: 0, substitutePOC: nil))
        let p = try #require(result.plans[0].picture)
        let generated = try #require(p.slices[0].refPicList0.first)
        #expect(generated.poc == 0 && generated.substituted && generated.surface != p.surface)
        #expect(p.referenceFrames.map(\.poc) == [0])
        #expect(result.output.map(\.poc) == [1, 2, 3])
    }

    /// Surfaces: never more than the pool, the target never a reference, and a held surface
    /// is not reused until released.
    @Test func heldSurfaceIsNotReused() throws {
        let aus = try Self.accessUnits()
        var planner = DecodePlanner(headroom: 0)
        let first = try #require(planner.plan(aus[0]).picture)
        planner.holdSurface(first.surface)
        var targets: [SurfaceID] = []
        for _ in 0..<3 { for au in aus.dropFirst() { if let p = planner.plan(au).picture { targets.append(p.surface) } } }
        #expect(!targets.contains(first.surface))
        planner.releaseSurface(first.surface)
        #expect(planner.pool?.isFree(first.surface) == true)
    }
}
