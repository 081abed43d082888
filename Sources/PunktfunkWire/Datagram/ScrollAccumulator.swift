/// Quantizes floating-point capture deltas into kind-16 Q24.8 wire events
/// (data-plane.md §6.2 "Scroll"; pinned by `scroll-vectors.json`).
///
/// The unsent sub-unit fraction is kept per axis. A source switch on that axis or a gesture
/// boundary (`begin`, `momentumBegin`, a stop) clears it, so a wheel residue is never repriced
/// as DIP and a new gesture starts clean.
///
/// Invariant: `residue[a]` is in (−1, 1) Q24.8 units, the fraction truncation left behind.
/// An invalid call (bad axis, non-finite delta, illegal source/phase pair) changes no state; a
/// valid movement that quantizes to zero returns nil but keeps its fraction.
public struct ScrollAccumulator: Sendable {
    private var residue: [Double] = [0, 0]
    private var lastSource: [ScrollSource?] = [nil, nil]

    public init() {}

    /// The wire event for `delta` (in the source's own unit: v120 for wheel sources, DIP
    /// otherwise), or nil when nothing goes out: an axis other than 0/1, a non-finite delta, a
    /// stop with a non-zero delta, an invalid source/phase pair, or a movement that quantizes
    /// to zero. Boundary phases are sent even at zero distance so a gesture never loses its
    /// close. The total is clamped to the i32 range before the split (saturation, no residue).
    public mutating func event(source: ScrollSource, phase: ScrollPhase, axis rawAxis: UInt32,
                               delta: Double) -> ScrollEvent? {
        guard let axis = ScrollAxis(rawValue: rawAxis), delta.isFinite,
              !(phase.isStop && delta != 0),
              ScrollEvent(source: source, phase: phase, axis: axis, delta: 0).isValid else { return nil }
        let a = Int(axis.rawValue)
        if lastSource[a] != source || phase.isBoundary { residue[a] = 0 }
        lastSource[a] = source
        var q: Int32 = 0
        if !phase.isStop {
            let total = min(max(delta * ScrollEvent.scale + residue[a], Double(Int32.min)), Double(Int32.max))
            let whole = total.rounded(.towardZero)
            residue[a] = total - whole
            q = Int32(whole)
        }
        guard q != 0 || phase.isBoundary else { return nil }
        return ScrollEvent(source: source, phase: phase, axis: axis, delta: q)
    }
}
