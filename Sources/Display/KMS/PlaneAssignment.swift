/// What the presenter knows about one KMS plane, read once from the device.
public struct PlaneDescription: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable { case primary, overlay, cursor }

    /// `zpos` property: current value, range, and whether it is immutable.
    public struct ZPos: Sendable, Equatable {
        public var value: UInt64, min: UInt64, max: UInt64, immutable: Bool
        public init(value: UInt64, min: UInt64, max: UInt64, immutable: Bool) {
            self.value = value; self.min = min; self.max = max; self.immutable = immutable
        }
    }

    public var id: UInt32
    public var kind: Kind
    /// Bit i = the plane can be used on the CRTC with index i in the resources list.
    public var possibleCRTCs: UInt32
    /// Scan-out formats with their modifiers (from `IN_FORMATS`, or the legacy format list with
    /// `[linear]` when the plane has no `IN_FORMATS`).
    public var formats: [FourCC: [UInt64]]
    public var zpos: ZPos?
    /// Enum names of `COLOR_ENCODING` / `COLOR_RANGE` (empty when the plane lacks them).
    public var colorEncodings: [String]
    public var colorRanges: [String]

    public init(id: UInt32, kind: Kind, possibleCRTCs: UInt32, formats: [FourCC: [UInt64]],
                zpos: ZPos? = nil, colorEncodings: [String] = [], colorRanges: [String] = []) {
        self.id = id; self.kind = kind; self.possibleCRTCs = possibleCRTCs; self.formats = formats
        self.zpos = zpos; self.colorEncodings = colorEncodings; self.colorRanges = colorRanges
    }

    /// Whether the plane scans out `format` with `modifier` (linear also matches a plane that
    /// lists only "no explicit modifier").
    public func supports(_ format: FourCC, modifier: UInt64) -> Bool {
        guard let mods = formats[format] else { return false }
        return mods.contains(modifier) || (modifier == FormatModifier.linear && mods.contains(FormatModifier.invalid))
    }
}

/// One way to show the video: which plane, in which buffer format, and what else must change.
public struct PlanePlan: Sendable, Equatable {
    public var plane: UInt32
    public var kind: PlaneDescription.Kind
    public var format: FourCC
    public var modifier: UInt64
    /// The primary plane that must show a black full-CRTC buffer under an overlay video plane
    /// (nil when the video plane is the primary).
    public var backgroundPlane: UInt32?
    /// zpos to write on the video plane (nil = leave it).
    public var zpos: UInt64?

    public init(plane: UInt32, kind: PlaneDescription.Kind, format: FourCC, modifier: UInt64,
                backgroundPlane: UInt32? = nil, zpos: UInt64? = nil) {
        self.plane = plane; self.kind = kind; self.format = format; self.modifier = modifier
        self.backgroundPlane = backgroundPlane; self.zpos = zpos
    }
}

/// Plane choice as a pure function of the planes' formats/modifiers/zpos, the frame's buffer
/// formats and the CRTC. The presenter confirms the first plan with a TEST_ONLY commit and moves
/// down the list when the kernel refuses it (weston's trial assignment).
public enum PlaneAssignment {
    /// Every usable plan, best first.
    ///
    /// Order: the wanted formats in the caller's preference order; within one format the
    /// primary plane (no background needed), then overlays by ascending id. Cursor planes are
    /// never used. An overlay plan needs a primary plane on the CRTC offering XRGB8888 for the
    /// black background, and must stack above it: a zpos missing on either → plane order is
    /// trusted; an overlay zpos already above the primary's is kept; an immutable one that is not
    /// rejects the plan; a mutable one is raised to primary + 1 (at least its minimum; rejected
    /// when its maximum cannot reach that).
    ///
    /// - Parameters:
    ///   - wanted: (format, modifier) pairs the frame can be delivered in, preferred first.
    ///   - crtcIndex: index of the CRTC in the device's resource list (bit in `possibleCRTCs`).
    public static func plans(planes: [PlaneDescription], crtcIndex: Int,
                             wanted: [(format: FourCC, modifier: UInt64)]) -> [PlanePlan] {
        guard crtcIndex >= 0, crtcIndex < 32 else { return [] }
        let bit = UInt32(1) << UInt32(crtcIndex)
        let usable = planes.filter { $0.possibleCRTCs & bit != 0 && $0.kind != .cursor }
        let primary = usable.first { $0.kind == .primary }
        var result: [PlanePlan] = []
        for (format, modifier) in wanted {
            if let p = primary, p.supports(format, modifier: modifier) {
                result.append(PlanePlan(plane: p.id, kind: .primary, format: format, modifier: modifier))
            }
            for o in usable.filter({ $0.kind == .overlay }).sorted(by: { $0.id < $1.id })
            where o.supports(format, modifier: modifier) {
                guard let p = primary, p.supports(.xrgb8888, modifier: FormatModifier.linear) else { continue }
                guard let stacking = overlayStacking(overlay: o.zpos, primary: p.zpos) else { continue }
                var zpos: UInt64? = nil
                if case .set(let z) = stacking { zpos = z }
                result.append(PlanePlan(plane: o.id, kind: .overlay, format: format, modifier: modifier,
                                        backgroundPlane: p.id, zpos: zpos))
            }
        }
        return result
    }

    /// How an overlay gets above the primary.
    enum Stacking: Equatable { case keep, set(UInt64) }

    /// The zpos decision for an overlay above a primary; nil = it cannot stack above.
    static func overlayStacking(overlay: PlaneDescription.ZPos?, primary: PlaneDescription.ZPos?) -> Stacking? {
        guard let o = overlay else { return .keep }
        guard let p = primary else { return .keep }
        if o.value > p.value { return .keep }
        if o.immutable { return nil }
        let want = max(p.value + 1, o.min)
        return want <= o.max ? .set(want) : nil
    }

    /// `COLOR_ENCODING` / `COLOR_RANGE` enum names for a picture (kernel spellings,
    /// drm_color_mgmt.c). Returns only names the plane offers; nil entries = leave the property.
    public static func colorProperties(matrix: YCbCrMatrix, fullRange: Bool,
                                       plane: PlaneDescription) -> (encoding: String?, range: String?) {
        let encoding = switch matrix {
        case .bt601: "ITU-R BT.601 YCbCr"
        case .bt709: "ITU-R BT.709 YCbCr"
        case .bt2020: "ITU-R BT.2020 YCbCr"
        }
        let range = fullRange ? "YCbCr full range" : "YCbCr limited range"
        return (plane.colorEncodings.contains(encoding) ? encoding : nil,
                plane.colorRanges.contains(range) ? range : nil)
    }
}
