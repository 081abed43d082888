/// Scroll axis of input kinds 6 and 16 (`code`).
public enum ScrollAxis: UInt32, Sendable, CaseIterable {
    case vertical = 0
    case horizontal = 1
}

/// What produced a scroll distance; `flags` bits 0–7 of kind 16 (data-plane.md §6.2 "Scroll").
public enum ScrollSource: UInt8, Sendable, CaseIterable {
    /// Not reported; counted in v120 like a wheel.
    case unknown = 0
    /// Notched wheel, v120.
    case wheel = 1
    /// Finger on a touchpad, DIP.
    case finger = 2
    /// Continuous surface without finger tracking (dial, tilt wheel), DIP.
    case continuous = 3
    /// Touchscreen pan, DIP.
    case touch = 4
    /// Stick / gyro / touchpad emulation, DIP.
    case controller = 5

    /// Wheel sources count v120 (120 per detent) and carry no phase; the rest carry DIP.
    public var isWheel: Bool { self == .unknown || self == .wheel }
    /// Sources that can glide and so may send momentum phases.
    public var canGlide: Bool { self == .finger || self == .continuous || self == .touch }
}

/// Gesture boundary of a kind-16 scroll; `flags` bits 8–15.
public enum ScrollPhase: UInt8, Sendable, CaseIterable {
    case none = 0
    case begin = 1
    case update = 2
    case end = 3
    case cancel = 4
    case momentumBegin = 5
    case momentum = 6
    case momentumEnd = 7

    /// `end`, `cancel`, `momentumEnd`: a gesture close, always with delta 0.
    public var isStop: Bool { self == .end || self == .cancel || self == .momentumEnd }
    /// `begin`, `momentumBegin` or a stop: resets the quantizer residue and is sent even at
    /// zero distance.
    public var isBoundary: Bool { isStop || self == .begin || self == .momentumBegin }
    /// A client-computed kinetic phase.
    public var isMomentum: Bool { self == .momentumBegin || self == .momentum || self == .momentumEnd }
}

/// Normalized scroll, input kind 16 (`HOST_CAP2_SCROLL`; data-plane.md §6.2): `code` = axis,
/// `x` = signed Q24.8 delta (×256) in v120 for wheel sources or DIP (60 per detent) otherwise,
/// `y` = 0, `flags` = source | phase << 8. Positive = up / right.
public struct ScrollEvent: Hashable, Sendable {
    public var source: ScrollSource
    public var phase: ScrollPhase
    public var axis: ScrollAxis
    /// Q24.8 distance in the source's unit; 0 on a stop.
    public var delta: Int32

    /// Q24.8 scale of `delta`.
    public static let scale = 256.0
    /// DIP one wheel detent spans.
    public static let dipPerDetent = 60.0

    public init(source: ScrollSource, phase: ScrollPhase, axis: ScrollAxis, delta: Int32) {
        self.source = source
        self.phase = phase
        self.axis = axis
        self.delta = delta
    }

    /// The spec's pairing rules: a stop carries delta 0, a wheel source only phase `none`,
    /// momentum phases only from sources that glide.
    public var isValid: Bool {
        !(phase.isStop && delta != 0) && !(source.isWheel && phase != .none)
            && !(phase.isMomentum && !source.canGlide)
    }

    /// The kind-16 input event.
    public var event: InputEvent {
        InputEvent(kind: .scroll, code: axis.rawValue, x: delta, y: 0,
                   flags: UInt32(source.rawValue) | UInt32(phase.rawValue) << 8)
    }

    /// Validates a kind-16 event's body: axis ≤ 1, y = 0, flags < 2^16, known source and
    /// phase, and `isValid`.
    public init(_ event: InputEvent) throws(WireError) {
        guard event.kind == .scroll else { throw .malformed("not a scroll event") }
        guard let axis = ScrollAxis(rawValue: event.code), event.y == 0, event.flags < 0x1_0000,
              let source = ScrollSource(rawValue: UInt8(event.flags & 0xFF)),
              let phase = ScrollPhase(rawValue: UInt8(event.flags >> 8)) else {
            throw .malformed("scroll body code \(event.code) y \(event.y) flags 0x\(String(event.flags, radix: 16))")
        }
        self.init(source: source, phase: phase, axis: axis, delta: event.x)
        guard isValid else { throw .malformed("scroll \(source) with phase \(phase) and delta \(event.x)") }
    }
}
