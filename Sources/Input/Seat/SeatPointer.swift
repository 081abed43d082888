/// The pointer of a compositor's seat as the host and the shell may see it. Pure: no I/O, no
/// clock.
///
/// - Absolute motion (`wl_pointer.motion`, surface-local logical units) becomes a position in
///   panel pixels (scaled by panel ÷ surface, clamped to the panel) — ignored while the pointer
///   is locked (the compositor freezes it there anyway).
/// - Relative motion (`zwp_relative_pointer_v1`, unaccelerated) counts only while locked; the
///   fractions are carried over, so slow motion is not lost.
/// - Buttons keep their evdev codes (`BTN_LEFT` …); a press of a button down already and a
///   release of one not down are dropped; `leave` ends every button down.
/// - Scrolling: per frame the finest truth wins — `axis_value120` (120 per detent), else
///   `axis_discrete` × 120, else the continuous value at `pixelsPerDetent` per detent — as evdev
///   hi-res wheel units (`REL_WHEEL_HI_RES`: + = up, so wl_pointer's + = down is negated;
///   `REL_HWHEEL_HI_RES`: + = right, as wl_pointer). Fractions are carried over.
public struct SeatPointer: Sendable, Equatable {
    /// Continuous scroll distance of one wheel detent (wlroots/libinput report 15 per click).
    public static let pixelsPerDetent = 15.0

    public private(set) var surfaceWidth = 0, surfaceHeight = 0
    public private(set) var panelWidth = 0, panelHeight = 0
    /// The stream's picture on the panel, while one is on glass.
    public var videoArea: SeatVideoArea?
    /// The pointer is locked (relative motion only).
    public private(set) var locked = false
    /// The surface has pointer focus.
    public private(set) var focused = false
    /// The last position in panel pixels.
    public private(set) var x: Int32 = 0, y: Int32 = 0
    /// Evdev button codes down now.
    public private(set) var buttons: Set<UInt16> = []

    private var remainderX = 0.0, remainderY = 0.0
    /// This frame's scroll: continuous, discrete and value120 per axis (0 vertical, 1 horizontal).
    private var continuous = [0.0, 0.0], discrete: [Int32?] = [nil, nil], value120: [Int32?] = [nil, nil]
    private var scrollRemainder = [0.0, 0.0]

    public init() {}

    /// The surface's logical size and the panel's pixel size.
    public mutating func setGeometry(surfaceWidth: Int, surfaceHeight: Int, panelWidth: Int, panelHeight: Int) {
        self.surfaceWidth = max(0, surfaceWidth); self.surfaceHeight = max(0, surfaceHeight)
        self.panelWidth = max(0, panelWidth); self.panelHeight = max(0, panelHeight)
    }

    /// Surface-local (sx, sy) in panel pixels, clamped to the panel.
    public func panelPosition(_ sx: Double, _ sy: Double) -> (x: Int32, y: Int32) {
        func map(_ v: Double, _ surface: Int, _ panel: Int) -> Int32 {
            let scaled = surface > 0 && panel > 0 ? v * Double(panel) / Double(surface) : v
            let top = panel > 0 ? Double(panel - 1) : Double(Int32.max)
            guard scaled.isFinite else { return 0 }
            return Int32(min(max(0, scaled.rounded(.down)), top))
        }
        return (map(sx, surfaceWidth, panelWidth), map(sy, surfaceHeight, panelHeight))
    }

    /// `wl_pointer.enter`. - Returns: the position in panel pixels.
    public mutating func enter(x sx: Double, y sy: Double) -> (x: Int32, y: Int32) {
        focused = true
        (x, y) = panelPosition(sx, sy)
        return (x, y)
    }

    /// `wl_pointer.motion`. - Returns: the new position in panel pixels, nil while locked,
    /// outside focus, or when it did not change.
    public mutating func motion(x sx: Double, y sy: Double) -> (x: Int32, y: Int32)? {
        guard focused, !locked else { return nil }
        let p = panelPosition(sx, sy)
        guard p != (x, y) else { return nil }
        (x, y) = p
        return p
    }

    /// `relative_motion`'s unaccelerated deltas. - Returns: whole counts to move by, nil when
    /// not locked or when less than one count has built up.
    public mutating func relative(dx: Double, dy: Double) -> (dx: Int32, dy: Int32)? {
        guard locked, dx.isFinite, dy.isFinite else { return nil }
        remainderX += dx; remainderY += dy
        let wx = remainderX.rounded(.towardZero), wy = remainderY.rounded(.towardZero)
        remainderX -= wx; remainderY -= wy
        guard wx != 0 || wy != 0 else { return nil }
        return (Int32(clamping: Int64(max(-1e9, min(1e9, wx)))), Int32(clamping: Int64(max(-1e9, min(1e9, wy)))))
    }

    /// `zwp_locked_pointer_v1.locked` / `.unlocked`.
    public mutating func setLocked(_ on: Bool) {
        locked = on
        remainderX = 0; remainderY = 0
    }

    /// `wl_pointer.button`. - Returns: the edge to forward, nil for a duplicate, outside focus,
    /// or a code past 65535.
    public mutating func button(code: UInt32, pressed: Bool) -> (code: UInt16, down: Bool)? {
        guard focused, let c = UInt16(exactly: code) else { return nil }
        if pressed { return buttons.insert(c).inserted ? (c, true) : nil }
        return buttons.remove(c) != nil ? (c, false) : nil
    }

    public mutating func axis(horizontal: Bool, value: Double) {
        guard focused, value.isFinite else { return }
        continuous[horizontal ? 1 : 0] += value
    }

    public mutating func axisDiscrete(horizontal: Bool, steps: Int32) {
        guard focused else { return }
        discrete[horizontal ? 1 : 0] = (discrete[horizontal ? 1 : 0] ?? 0) &+ steps
    }

    public mutating func axisValue120(horizontal: Bool, value120 v: Int32) {
        guard focused else { return }
        value120[horizontal ? 1 : 0] = (value120[horizontal ? 1 : 0] ?? 0) &+ v
    }

    /// `wl_pointer.frame`. - Returns: this frame's scroll in evdev hi-res wheel units
    /// (vertical: + = up; horizontal: + = right), 0 where none.
    public mutating func frame() -> (vertical: Int32, horizontal: Int32) {
        var out: [Int32] = [0, 0]
        for i in 0..<2 {
            let units: Double
            if let v = value120[i] { units = Double(v) }
            else if let d = discrete[i] { units = Double(d) * 120 }
            else { units = continuous[i] * 120 / Self.pixelsPerDetent }
            let total = units + (value120[i] == nil && discrete[i] == nil ? scrollRemainder[i] : 0)
            let whole = total.rounded(.towardZero)
            scrollRemainder[i] = value120[i] == nil && discrete[i] == nil ? total - whole : 0
            let signed = i == 0 ? -whole : whole
            out[i] = Int32(clamping: Int64(max(-1e9, min(1e9, signed))))
            continuous[i] = 0; discrete[i] = nil; value120[i] = nil
        }
        return (out[0], out[1])
    }

    /// `wl_pointer.leave`. - Returns: the buttons that were down, ascending (the caller releases
    /// on the host whatever of them it holds).
    public mutating func leave() -> [UInt16] {
        focused = false
        continuous = [0, 0]; discrete = [nil, nil]; value120 = [nil, nil]; scrollRemainder = [0, 0]
        defer { buttons.removeAll() }
        return buttons.sorted()
    }
}
