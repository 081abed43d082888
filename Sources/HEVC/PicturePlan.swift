/// A reference the current picture names, resolved to a DPB picture.
public struct ReferenceEntry: Sendable, Equatable {
    /// The POC the RPS asks for (PocStCurrBefore[i] etc., 8-5).
    public var poc: Int32
    /// The picture actually used: the one with that POC, or a substitute (see `substituted`).
    public var picturePOC: Int32
    public var surface: SurfaceID
    public var isLongTerm: Bool
    /// True when `poc` was missing and a substitute or generated picture stands in (a warning
    /// was reported).
    public var substituted: Bool
}

/// The five RPS lists of the current picture (H.265 8.3.2, (8-5)), resolved against the DPB.
/// Foll entries that are missing are simply absent (they are not used by the current picture).
public struct ReferencePictureSet: Sendable, Equatable {
    public var stCurrBefore: [ReferenceEntry] = []
    public var stCurrAfter: [ReferenceEntry] = []
    public var stFoll: [ReferenceEntry] = []
    public var ltCurr: [ReferenceEntry] = []
    public var ltFoll: [ReferenceEntry] = []
    /// PocStCurrBefore, PocStCurrAfter, PocStFoll, PocLtCurr, PocLtFoll as derived by (8-5).
    public var pocStCurrBefore: [Int32] = []
    public var pocStCurrAfter: [Int32] = []
    public var pocStFoll: [Int32] = []
    public var pocLtCurr: [Int32] = []
    public var pocLtFoll: [Int32] = []
    /// CurrDeltaPocMsbPresentFlag and FollDeltaPocMsbPresentFlag (8-5).
    public var currDeltaPocMsbPresentFlag: [Bool] = []
    public var follDeltaPocMsbPresentFlag: [Bool] = []
    public init() {}
}

/// A picture of the DPB that is still a reference while the current picture decodes — the
/// VA-API ReferenceFrames table. A superset of the RPS "Curr" lists: Foll pictures are listed too.
public struct ReferenceFrame: Sendable, Equatable {
    public var poc: Int32
    public var surface: SurfaceID
    public var isLongTerm: Bool
    public var inStCurrBefore: Bool
    public var inStCurrAfter: Bool
    public var inLtCurr: Bool
}

/// The reference picture lists of one slice segment (H.265 8.3.4).
public struct SlicePlan: Sendable {
    /// The slice segment header (dependent segments carry the fields of their independent one).
    public var header: SliceSegmentHeader
    /// Index of the slice's NAL unit in the access unit passed to the planner.
    public var nalIndex: Int
    /// RefPicList0 / RefPicList1 (8-8, 8-10); sizes num_ref_idx_l0/l1_active_minus1 + 1 for P/B
    /// (list 1 empty for P, both empty for I).
    public var refPicList0: [ReferenceEntry]
    public var refPicList1: [ReferenceEntry]
}

/// Everything the VA-API rung needs to decode one picture.
public struct PicturePlan: Sendable {
    /// PicOrderCntVal (8-2).
    public var poc: Int32
    /// The surface to decode into; never one of `referenceFrames`' surfaces.
    public var surface: SurfaceID
    public var nalUnitType: UInt8
    public var sps: SequenceParameterSet
    public var pps: PictureParameterSet
    /// NoRaslOutputFlag (8.1.3), for IRAP pictures; false otherwise.
    public var noRaslOutputFlag: Bool
    /// PicOutputFlag (8.1.3).
    public var picOutputFlag: Bool
    public var rps: ReferencePictureSet
    /// Every picture marked as reference after the RPS marking (the ReferenceFrames table).
    public var referenceFrames: [ReferenceFrame]
    public var slices: [SlicePlan]
    /// Position in decoding order among the pictures the planner decoded.
    public var decodeIndex: Int
    /// The picture is known to be inexact: a "Curr" reference was missing (substituted or
    /// generated, 8.3.3) or is itself damaged. Damage ends at an IRAP picture.
    public var damaged = false
}

/// A picture leaving the DPB for display, in output order (C.5.2.4).
public struct OutputPicture: Sendable, Equatable {
    public var poc: Int32
    public var surface: SurfaceID
    public var decodeIndex: Int
    public var cropWindow: CropWindow
    /// A picture generated for a missing reference is never output; kept for completeness.
    public var generated: Bool
    /// Known to be inexact (`PicturePlan.damaged` of the picture, or `markDamaged(surface:)`).
    public var damaged = false
}

/// The stream format a decode session is built for; a change rebuilds the session.
public struct StreamFormat: Sendable, Equatable {
    public var codedWidth: Int
    public var codedHeight: Int
    public var bitDepthLuma: Int
    public var bitDepthChroma: Int
    public var chromaFormatIdc: Int
    /// sps_max_dec_pic_buffering_minus1[HighestTid] + 1.
    public var maxDecPicBuffering: Int

    public init(_ sps: SequenceParameterSet) {
        codedWidth = Int(sps.picWidthInLumaSamples)
        codedHeight = Int(sps.picHeightInLumaSamples)
        bitDepthLuma = sps.bitDepthY
        bitDepthChroma = sps.bitDepthC
        chromaFormatIdc = Int(sps.chromaFormatIdc)
        maxDecPicBuffering = min(sps.maxDecPicBuffering, 16)
    }
}

/// What the planner made of one access unit.
public struct AccessUnitPlan: Sendable {
    /// Set when the access unit activates an SPS whose format differs from the session's (or the
    /// first SPS): build (or rebuild) the decode session before decoding `picture`. Pictures in
    /// `outputBeforeDecoding` belong to the old session and are shown first.
    public var sessionFormat: StreamFormat?
    /// True when `sessionFormat` replaces an earlier, different format (a rebuild, not the start).
    public var isRebuild = false
    /// Pictures output by C.5.2.2 before the current picture decodes.
    public var outputBeforeDecoding: [OutputPicture] = []
    /// The picture to decode, nil when the access unit was skipped.
    public var picture: PicturePlan?
    /// Pictures output by C.5.2.3 after the current picture decodes (may include it).
    public var outputAfterDecoding: [OutputPicture] = []
    public var warnings: [PlannerWarning] = []
    /// Surfaces no longer used by the DPB after this access unit (free unless the caller holds them).
    public var releasedSurfaces: [SurfaceID] = []

    public var output: [OutputPicture] { outputBeforeDecoding + outputAfterDecoding }
    /// Some warning means the picture is not exact: ask the host for a keyframe.
    public var requestsKeyframe: Bool { warnings.contains { $0.requestsKeyframe } }
    public init() {}
}
