import Screen

/// How a picture reaches its place on the CRTC.
public enum FitRoute: Sendable, Equatable, CustomStringConvertible {
    /// The picture is shown at its own size (it is the mode's size, or `native` scaling).
    case unscaled
    /// The plane's scaler (SRC_* ≠ CRTC_*), accepted by a TEST_ONLY commit.
    case plane
    /// The CPU conversion into the XRGB8888 primary draws it scaled.
    case cpu
    /// Fit was wanted but the picture is shown 1:1, centred: `why`.
    case oneToOne(why: String)

    /// The stats' word for it: `none`, `plane`, `cpu` or `1:1`.
    public var name: String {
        switch self {
        case .unscaled: "none"
        case .plane: "plane"
        case .cpu: "cpu"
        case .oneToOne: "1:1"
        }
    }

    public var description: String {
        if case .oneToOne(let why) = self { return "1:1 (\(why))" }
        return name
    }
}

/// One way to show a picture: a plane plan, where the picture lands on the CRTC (for an XRGB8888
/// plan: where the CPU conversion draws it inside the mode-sized buffer) and how it gets there.
public struct FitAttempt: Sendable, Equatable {
    public var plan: PlanePlan
    public var destination: PixelRect
    public var route: FitRoute
}

/// The order in which the presenter tries to show a picture at its place (`PlaneGeometry.place`),
/// each attempt confirmed by a TEST_ONLY commit. Pure.
///
/// When the place is the picture's own size, every plan shows it unscaled. Otherwise (issue 29;
/// docs/kiosk.md "What it does to the display"):
/// 1. a YUV plane that scales (`SRC_*` ≠ `CRTC_*`): the driver's TEST_ONLY decides — zero cost;
/// 2. the CPU conversion into the XRGB8888 primary, drawn scaled, while it stays within its
///    budget (`cpuFit`; only for pictures that go through the CPU anyway: never imported ones);
/// 3. 1:1 and centred on any plan, the reason kept for the stats.
/// The mode is never switched to the picture's size: the host is asked for the panel's mode, so
/// a mismatch is usually the first pictures of a stream, and a mode switch blanks a TV for
/// seconds twice (and lays the shell's panels out anew) for what a plane or the CPU fits in
/// place.
public enum FitAttempts {
    /// Why the CPU does not scale a picture.
    public enum CPUFit: Sendable, Equatable {
        case allowed
        /// The picture is imported (zero copy); reading it back to scale it costs more than the fit.
        case imported
        /// The measured conversion took `meanNs` per picture, over `budgetNs`.
        case overBudget(meanNs: UInt64, budgetNs: UInt64)
    }

    /// - Parameters:
    ///   - plans: `PlaneAssignment.plans` in preference order (YUV plans and XRGB8888 plans).
    ///   - picture: the visible picture's size.
    ///   - place: where the scaling rule puts it.
    ///   - oneToOne: where it goes unscaled (centred; `place` itself when that is unscaled).
    public static func attempts(plans: [PlanePlan], picture: (width: Int, height: Int), place: PixelRect,
                                oneToOne: PixelRect, cpuFit: CPUFit) -> [FitAttempt] {
        let scaled = place.width != picture.width || place.height != picture.height
        guard scaled else { return plans.map { FitAttempt(plan: $0, destination: place, route: .unscaled) } }
        let planes = plans.filter { $0.format != .xrgb8888 }, converted = plans.filter { $0.format == .xrgb8888 }
        var out = planes.map { FitAttempt(plan: $0, destination: place, route: .plane) }
        // A picture larger than the screen has no 1:1 to fall back to: the CPU scales it down
        // whatever it costs (as it always did).
        let larger = oneToOne == place
        if cpuFit == .allowed || (larger && cpuFit != .imported) {
            out += converted.map { FitAttempt(plan: $0, destination: place, route: .cpu) }
        }
        guard !larger else { return out }
        let why = reason(planes: planes, picture: picture, place: place, cpuFit: cpuFit, converted: !converted.isEmpty)
        out += plans.map { FitAttempt(plan: $0, destination: oneToOne, route: .oneToOne(why: why)) }
        return out
    }

    /// The sentence for a picture shown 1:1 although fit was wanted (valid once every attempt
    /// before the 1:1 ones was refused).
    static func reason(planes: [PlanePlan], picture: (width: Int, height: Int), place: PixelRect, cpuFit: CPUFit,
                       converted: Bool) -> String {
        let size = "\(picture.width)x\(picture.height) → \(place.width)x\(place.height)"
        let plane = planes.isEmpty ? "no plane takes the picture's format" : "no plane scales \(size)"
        switch cpuFit {
        case .imported:
            return "\(plane); imported pictures stay zero-copy rather than be read back and scaled on the CPU"
        case .overBudget(let mean, let budget):
            return "\(plane); the CPU scale took \(ms(mean)) ms a picture, over its budget of \(ms(budget)) ms"
        case .allowed:
            return converted ? "\(plane) and the XRGB8888 plane was refused" : "\(plane) and no XRGB8888 plane is usable"
        }
    }

    private static func ms(_ ns: UInt64) -> String {
        let tenths = (ns + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}

