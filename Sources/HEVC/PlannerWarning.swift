/// Concealment and skip notices of the `DecodePlanner`. None of them stops the planner: each says
/// what it did instead (substitute, skip, wait), so the caller can log it and, for the ones that
/// `requestsKeyframe`, ask the host for an IRAP picture.
public enum PlannerWarning: Sendable, Equatable, CustomStringConvertible {
    /// An RPS entry the current picture uses (PocStCurrBefore/After or PocLtCurr, H.265 8.3.2) is
    /// not in the DPB. `substitutePOC` is the picture used in its place, or nil when a blank
    /// picture was generated (8.3.3 "generation of unavailable reference pictures").
    case missingReference(poc: Int32, substitutePOC: Int32?)
    /// A Curr RPS entry is not in the DPB, but no slice's RefPicList0/1 holds it (an intra
    /// picture that still lists the pictures it replaces): concealed for the decoder's reference
    /// table, harmless to this picture.
    case unusedReferenceMissing(poc: Int32)
    /// A picture arrived while waiting for an IRAP picture (start, `reset(reason:)`); it was skipped.
    case awaitingIRAP(nalUnitType: UInt8)
    /// A RASL picture associated with an IRAP with NoRaslOutputFlag = 1 was skipped (8.1.3):
    /// healthy, its references precede the random access point.
    case raslSkipped(poc: Int32)
    /// The slice refers to a PPS/SPS the planner has not received; the picture was skipped.
    case missingParameterSet(ppsId: UInt8)
    /// The access unit had VCL NAL units but no first slice segment of a picture (lost start);
    /// nothing was decoded.
    case noFirstSliceSegment
    /// Every surface is a reference, waiting for output or held by the caller; the picture was
    /// skipped. Indicates a caller that never releases surfaces, or a corrupt stream.
    case surfacePoolExhausted(capacity: Int)

    /// True for the warnings after which the picture is not exact and a keyframe helps.
    public var requestsKeyframe: Bool {
        switch self {
        case .raslSkipped, .awaitingIRAP, .unusedReferenceMissing: false
        default: true
        }
    }

    public var description: String {
        switch self {
        case .missingReference(let poc, let s):
            "missing reference POC \(poc) → " + (s.map { "substitute POC \($0)" } ?? "generated blank picture")
        case .unusedReferenceMissing(let poc): "missing reference POC \(poc), used by no slice (concealed)"
        case .awaitingIRAP(let t): "skipped picture (nal_unit_type \(t)) while waiting for an IRAP picture"
        case .raslSkipped(let poc): "skipped RASL picture POC \(poc)"
        case .missingParameterSet(let id): "skipped picture: PPS \(id) or its SPS not received"
        case .noFirstSliceSegment: "access unit without a first slice segment"
        case .surfacePoolExhausted(let c): "surface pool of \(c) exhausted; picture skipped"
        }
    }
}
