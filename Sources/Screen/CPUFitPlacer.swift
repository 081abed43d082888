import Foundation

/// Where a CPU conversion draws a picture in a window-sized buffer when the window system scales
/// nothing itself (Wayland without `wp_viewporter`, X11): `PlaneGeometry.place` under the scaling
/// rule, or 1:1 once the CPU scale of that picture size in that buffer size went over
/// `CPUFitBudget` (half a refresh a picture). Pure: the caller times each conversion and `record`s it.
public struct CPUFitPlacer: Sendable {
    /// What the stats say of the newest placement: the picture's size, its place in the buffer and
    /// what scales it — `cpu`, `none` (shown at its size) or `1:1` with `why`.
    public struct Placement: Sendable, Equatable {
        public var picture: String
        public var place: PixelRect
        public var scaler: String
        public var why: String?
        public init(picture: String, place: PixelRect, scaler: String, why: String?) {
            self.picture = picture; self.place = place; self.scaler = scaler; self.why = why
        }
    }

    private struct Key: Hashable, Sendable { var width: Int, height: Int, bufferWidth: Int, bufferHeight: Int }

    /// Said after the budget in `why` and in the stderr sentence (e.g. why the window system does not scale).
    private let whySuffix: String, sentenceSuffix: String
    private var budget = CPUFitBudget(budgetNs: 0)
    /// The placement being judged (a new one starts a new budget).
    private var judging: (key: Key, place: PixelRect)?
    /// Layouts whose CPU scale went over budget, and its mean, ns.
    private var refusals: [Key: UInt64] = [:]
    public private(set) var placement: Placement?

    public init(whySuffix: String = "", sentenceSuffix: String = "") {
        self.whySuffix = whySuffix; self.sentenceSuffix = sentenceSuffix
    }

    /// The place of a `width` × `height` picture in a `bufferWidth` × `bufferHeight` buffer (nil for
    /// empty sizes), and the newest `placement`.
    public mutating func place(width: Int, height: Int, bufferWidth: Int, bufferHeight: Int, scaling: PictureScaling,
                               refreshIntervalNs: UInt64) -> PixelRect? {
        let key = Key(width: width, height: height, bufferWidth: bufferWidth, bufferHeight: bufferHeight)
        let budgetNs = refreshIntervalNs / 2
        if let mean = refusals[key] {
            let r = PlaneGeometry.place(width: width, height: height, screenWidth: bufferWidth, screenHeight: bufferHeight,
                                        scaling: .native)
            let why = String(format: "the CPU scale took %.1f ms a picture, over its budget of %.1f ms", Double(mean) / 1e6,
                             Double(budgetNs) / 1e6) + whySuffix
            if let r { placement = Placement(picture: "\(width)x\(height)", place: r, scaler: "1:1", why: why) }
            return r
        }
        guard let r = PlaneGeometry.place(width: width, height: height, screenWidth: bufferWidth, screenHeight: bufferHeight,
                                          scaling: scaling) else { return nil }
        if judging.map({ $0.key != key || $0.place != r }) ?? true {
            judging = (key, r)
            budget = CPUFitBudget(budgetNs: budgetNs)
        }
        placement = Placement(picture: "\(width)x\(height)", place: r,
                              scaler: r.width != width || r.height != height ? "cpu" : "none", why: nil)
        return r
    }

    /// One conversion into the newest placement took `ns`. - Returns: the sentence for stderr when
    /// that put its layout over budget (from the next picture on it is shown 1:1), once.
    public mutating func record(ns: UInt64) -> String? {
        guard let p = placement, p.scaler == "cpu", let j = judging, let mean = budget.record(ns) else { return nil }
        refusals[j.key] = mean
        return String(format: "punktfunk-kiosk: pictures of %dx%d are shown 1:1: the CPU scale took %.1f ms a picture, "
                      + "over its budget of %.1f ms", j.key.width, j.key.height, Double(mean) / 1e6, Double(budget.budgetNs) / 1e6)
            + sentenceSuffix + "\n"
    }
}
