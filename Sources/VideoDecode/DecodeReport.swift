import VideoFrames

/// What the ladder made of one access unit (`DecoderLadder.decodeReporting`).
public struct DecodeReport {
    /// Pictures ready for display, in output order (the same as `decode(accessUnit:pts:)` returns).
    public var pictures: [DecodedPicture] = []
    /// Parallel to `pictures` (same count): true for a picture known to be inexact. libavcodec
    /// flagged it (AVFrame decode_error_flags, AV_FRAME_FLAG_CORRUPT), or the planner found it
    /// decoded from a reference the decoder did not hold (a stateless rung's concealed reference,
    /// `PlannerWarning.missingReference`; libavcodec's silent grey substitute, found by
    /// `ReferenceDamage`), or from a picture that was, until the next IRAP picture.
    public var damaged: [Bool] = []
    /// The rung threw for this access unit (the error also went to onWarning/onKeyframeRequest
    /// as before).
    public var failed = false
    /// The rung took no picture from this access unit on purpose (awaiting an IRAP picture,
    /// RASL skipped, …): not a decoder failure.
    public var skipped = false

    /// Some picture of this call is damaged.
    public var anyDamaged: Bool { damaged.contains(true) }

    /// Whether `pictures[index]` is known to be inexact (false for an index out of range).
    public func isDamaged(_ index: Int) -> Bool { damaged.indices.contains(index) && damaged[index] }

    public init() {}
}
