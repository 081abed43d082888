@testable import HEVC

/// Runs an Annex-B stream through parser, access unit grouping and `DecodePlanner`, recording
/// everything the tests compare.
struct PlannerRun {
    var plans: [AccessUnitPlan] = []
    /// Access units in decoding order (as grouped), parallel to `plans`.
    var accessUnitCount = 0
    /// decodeIndex of each output picture → index of its access unit in the stream.
    var accessUnitOfDecodeIndex: [Int: Int] = [:]
    var output: [OutputPicture] = []
    var warnings: [PlannerWarning] = []
    var rebuilds = 0
    var sessionStarts = 0

    /// - Parameter firstAccessUnit: drop the access units before this one (a mid-stream start);
    ///   their parameter sets are still parsed, as a receiver that joins late would have them
    ///   from the repeated headers anyway.
    init(_ bytes: [UInt8], firstAccessUnit: Int = 0, planner: DecodePlanner = DecodePlanner(),
         each: ((Int, inout DecodePlanner) -> Void)? = nil) {
        var parser = HEVCParser()
        let units = parser.parseAnnexB(bytes).compactMap { try? $0.get() }
        let aus = AccessUnits.group(units)
        var planner = planner
        accessUnitCount = aus.count
        for (k, au) in aus.enumerated() where k >= firstAccessUnit {
            each?(k, &planner)
            let plan = planner.plan(au)
            record(plan)
            if let p = plan.picture { accessUnitOfDecodeIndex[p.decodeIndex] = k }
        }
        record(planner.finish())
    }

    mutating func record(_ plan: AccessUnitPlan) {
        plans.append(plan)
        output += plan.output
        warnings += plan.warnings
        if plan.sessionFormat != nil { if plan.isRebuild { rebuilds += 1 } else { sessionStarts += 1 } }
    }

    /// Output order as access unit indices (comparable with `FFmpeg.outputOrder`).
    var outputAccessUnits: [Int] { output.map { accessUnitOfDecodeIndex[$0.decodeIndex] ?? -1 } }
    var pictures: [PicturePlan] { plans.compactMap(\.picture) }
}

/// The access units of an Annex-B stream as separate Annex-B byte strings (4-byte start codes),
/// so tests can drop, reorder or cut whole access units and hand the result to ffmpeg too.
func annexBAccessUnits(_ bytes: [UInt8]) -> [[UInt8]] {
    var parser = HEVCParser()
    let nals = AnnexB.nalUnits(in: bytes)
    var kept: [[UInt8]] = []
    var units: [HEVCParser.ParsedNALUnit] = []
    for nal in nals {
        guard let u = try? parser.parseNALUnit(nal) else { continue }
        kept.append(nal)
        units.append(u)
    }
    return AccessUnits.boundaries(units).map { range in range.flatMap { [0, 0, 0, 1] + kept[$0] } }
}

/// The parsed NAL units of a stream grouped into access units.
func parsedAccessUnits(_ bytes: [UInt8]) -> [[HEVCParser.ParsedNALUnit]] {
    var parser = HEVCParser()
    return AccessUnits.group(parser.parseAnnexB(bytes).compactMap { try? $0.get() })
}

/// Plans already-parsed access units (possibly edited by a test) and collects the output.
func planParsed(_ aus: [[HEVCParser.ParsedNALUnit]], planner: DecodePlanner = DecodePlanner())
    -> (plans: [AccessUnitPlan], output: [OutputPicture], warnings: [PlannerWarning]) {
    var planner = planner
    var plans = aus.map { planner.plan($0) }
    plans.append(planner.finish())
    return (plans, plans.flatMap(\.output), plans.flatMap(\.warnings))
}
