/// A plane for the stats overlay: which one, and the zpos to write on it (nil = leave it).
public struct OverlayPlanePlan: Sendable, Equatable {
    public var plane: UInt32
    public var zpos: UInt64?
    public init(plane: UInt32, zpos: UInt64? = nil) { self.plane = plane; self.zpos = zpos }
}

/// Choice of the overlay plane as a pure function of the planes and the video plan; the
/// presenter confirms a candidate with a TEST_ONLY commit together with the video state.
public enum OverlayPlaneChoice {
    /// Planes that can carry an ARGB8888 linear overlay above the video, best first (ascending id).
    ///
    /// A candidate is an overlay-type plane (never the cursor) usable on the CRTC, neither the
    /// video plane nor its background plane, offering AR24 with the linear modifier, that stacks
    /// above the video plane: the video's zpos is the plan's `zpos` when it sets one, else the
    /// plane's current value. Without zpos on either side the kernel's plane order (creation
    /// order = ascending id on every driver the harness knows) decides: above a primary video
    /// plane always, above an overlay video plane when the id is higher. With zpos, the rules of
    /// `PlaneAssignment.overlayStacking` apply.
    public static func candidates(planes: [PlaneDescription], crtcIndex: Int, video: PlanePlan) -> [OverlayPlanePlan] {
        guard crtcIndex >= 0, crtcIndex < 32 else { return [] }
        let bit = UInt32(1) << UInt32(crtcIndex)
        guard let videoPlane = planes.first(where: { $0.id == video.plane }) else { return [] }
        var videoZ = videoPlane.zpos
        if let z = video.zpos { videoZ?.value = z }
        var result: [OverlayPlanePlan] = []
        for o in planes.sorted(by: { $0.id < $1.id }) {
            guard o.kind == .overlay, o.possibleCRTCs & bit != 0, o.id != video.plane, o.id != video.backgroundPlane,
                  o.supports(.argb8888, modifier: FormatModifier.linear) else { continue }
            if o.zpos == nil || videoZ == nil {
                // Plane order decides (a zpos on one side only says nothing about the other).
                if video.kind == .primary || o.id > video.plane { result.append(OverlayPlanePlan(plane: o.id)) }
                continue
            }
            switch PlaneAssignment.overlayStacking(overlay: o.zpos, primary: videoZ) {
            case .keep?: result.append(OverlayPlanePlan(plane: o.id))
            case .set(let z)?: result.append(OverlayPlanePlan(plane: o.id, zpos: z))
            case nil: continue
            }
        }
        return result
    }
}
