import HEVC

/// Finds the pictures libavcodec decodes from references it never received, which it does not
/// report: libavcodec 5.1 (Debian 12) logs "Could not find ref with POC n", generates a grey
/// picture in its place and returns the result as clean (decode_error_flags 0, no
/// AV_FRAME_FLAG_CORRUPT, avcodec_send_packet 0 — also with err_recognition=explode,
/// AV_CODEC_FLAG2_SHOW_ALL or AV_CODEC_FLAG_OUTPUT_CORRUPT).
///
/// Runs the stateless rungs' `DecodePlanner` beside libavcodec on the same access units: it keeps
/// the DPB libavcodec keeps (8.3.2, C.5.2), so a "Curr" RPS entry it lacks is one libavcodec lacks,
/// and its `damaged` spreads through the pictures that use a damaged one until an IRAP picture.
/// Surfaces here are bookkeeping ids only (no decoder memory behind them).
struct ReferenceDamage {
    /// What the planner made of one access unit.
    enum Outcome: Equatable {
        /// The access unit's picture; `damaged` as `PicturePlan.damaged`.
        case picture(damaged: Bool)
        /// No picture: the planner's reason (nil: a slice did not parse).
        case skipped(PlannerWarning?)
    }

    private var parser = HEVCParser()
    private var planner = DecodePlanner(headroom: 1)
    /// The planner's surface of the last picture planned (for `markLastDamaged`).
    private var lastSurface: SurfaceID?

    /// Plans one access unit (Annex-B bytes, as given to libavcodec).
    mutating func observe(_ accessUnit: [UInt8]) -> Outcome {
        var failure: (type: UInt8, error: HEVCError)?
        guard let parsed = ParsedAccessUnit.parse(accessUnit, with: &parser, failure: &failure) else {
            lastSurface = nil
            return .skipped(nil)
        }
        let plan = planner.plan(parsed.units)
        guard let picture = plan.picture else {
            lastSurface = nil
            return .skipped(plan.warnings.first)
        }
        lastSurface = picture.surface
        return .picture(damaged: picture.damaged)
    }

    /// libavcodec failed on the last access unit's picture: it, and what is decoded from it,
    /// is damaged.
    mutating func markLastDamaged() {
        if let s = lastSurface { planner.markDamaged(surface: s) }
    }

    /// libavcodec was flushed: wait for an IRAP picture, as it does.
    mutating func reset() {
        _ = planner.reset(reason: .loss)
        lastSurface = nil
    }
}
