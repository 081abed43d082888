/// The display state found at start-up, for putting it back on every exit path.
///
/// Bookkeeping only (pure): the presenter calls `note` with each object's property values as
/// read before its first commit, for every property it is about to write; the first note of a
/// (object, property) pair wins, so later notes (after our own commits) never overwrite the
/// original. `restoreAssignments` lists what to write back, in first-touched order, except that
/// HDR properties (`HDR_OUTPUT_METADATA`, `Colorspace`) are restored to "off" (blob 0 /
/// `Default`), never to an inherited HDR state — a TV left in HDR is the worst failure mode.
public struct SavedState: Sendable, Equatable {
    public struct Assignment: Sendable, Equatable {
        public var object: UInt32
        public var property: UInt32
        public var name: String
        public var value: UInt64
    }

    private(set) var assignments: [Assignment] = []
    private var seen: Set<UInt64> = []

    public init() {}

    /// Records `object.property`'s original value unless it was recorded before.
    public mutating func note(object: UInt32, property: PropertyInfo) {
        guard !property.immutable else { return }  // never written, so never restored
        let key = UInt64(object) << 32 | UInt64(property.id)
        guard seen.insert(key).inserted else { return }
        var value = property.value
        if property.name == "HDR_OUTPUT_METADATA" { value = 0 }
        if property.name == "Colorspace" { value = property.enums["Default"] ?? 0 }
        assignments.append(Assignment(object: object, property: property.id, name: property.name, value: value))
    }

    /// Notes every listed property an object has (missing ones are skipped).
    public mutating func note(_ props: ObjectProperties, _ names: [String]) {
        for n in names { if let p = props[n] { note(object: props.object, property: p) } }
    }

    /// Replaces the value to restore for `object.property` (e.g. MODE_ID with a blob that outlives
    /// our modeset). No-op when the pair was never noted.
    public mutating func replaceValue(object: UInt32, property: UInt32, with value: UInt64) {
        if let i = assignments.firstIndex(where: { $0.object == object && $0.property == property }) {
            assignments[i].value = value
        }
    }

    public var isEmpty: Bool { assignments.isEmpty }

    /// What to write to restore the saved state, first-touched order.
    public var restoreAssignments: [Assignment] { assignments }

    /// Property names the presenter writes on planes, CRTCs and connectors (all of them are
    /// noted before the first commit).
    public static let planeProperties = ["FB_ID", "CRTC_ID", "SRC_X", "SRC_Y", "SRC_W", "SRC_H",
                                         "CRTC_X", "CRTC_Y", "CRTC_W", "CRTC_H", "zpos",
                                         "COLOR_ENCODING", "COLOR_RANGE"]
    public static let crtcProperties = ["MODE_ID", "ACTIVE"]
    public static let connectorProperties = ["CRTC_ID", "HDR_OUTPUT_METADATA", "Colorspace"]
}
