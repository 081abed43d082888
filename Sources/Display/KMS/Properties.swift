internal import CDRM

/// One KMS property of one object, read once: id, value at read time, and its type details.
public struct PropertyInfo: Sendable, Equatable {
    public var id: UInt32
    public var name: String
    /// Value when the object was read (for blob properties, the blob id; 0 = none).
    public var value: UInt64
    /// Enum name → value (empty for non-enum properties).
    public var enums: [String: UInt64]
    /// Inclusive range for range properties (nil otherwise).
    public var range: ClosedRange<UInt64>?
    public var immutable: Bool
    public var isBlob: Bool

    public init(id: UInt32, name: String, value: UInt64, enums: [String: UInt64] = [:],
                range: ClosedRange<UInt64>? = nil, immutable: Bool = false, isBlob: Bool = false) {
        self.id = id; self.name = name; self.value = value; self.enums = enums
        self.range = range; self.immutable = immutable; self.isBlob = isBlob
    }
}

/// All properties of one KMS object by name (resolved once; later writes go by name, a property
/// the driver lacks is simply absent).
public struct ObjectProperties: Sendable, Equatable {
    public var object: UInt32
    public var byName: [String: PropertyInfo]

    public init(object: UInt32, byName: [String: PropertyInfo]) {
        self.object = object; self.byName = byName
    }

    public subscript(_ name: String) -> PropertyInfo? { byName[name] }
}

extension DRMDevice {
    /// Reads every property of an object (`DRM_MODE_OBJECT_*` type).
    func properties(of object: UInt32, type: UInt32) -> ObjectProperties {
        var result: [String: PropertyInfo] = [:]
        guard let props = drmModeObjectGetProperties(fd, object, type) else {
            return ObjectProperties(object: object, byName: [:])
        }
        defer { drmModeFreeObjectProperties(props) }
        for i in 0..<Int(props.pointee.count_props) {
            let propId = props.pointee.props[i], value = props.pointee.prop_values[i]
            guard let p = drmModeGetProperty(fd, propId) else { continue }
            defer { drmModeFreeProperty(p) }
            let name = withUnsafeBytes(of: p.pointee.name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            let flags = p.pointee.flags
            var enums: [String: UInt64] = [:]
            if flags & UInt32(DRM_MODE_PROP_ENUM) != 0 || flags & UInt32(DRM_MODE_PROP_BITMASK) != 0 {
                for e in 0..<Int(p.pointee.count_enums) {
                    let en = p.pointee.enums[e]
                    let n = withUnsafeBytes(of: en.name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
                    enums[n] = en.value
                }
            }
            var range: ClosedRange<UInt64>?
            if flags & UInt32(DRM_MODE_PROP_RANGE) != 0, p.pointee.count_values >= 2 {
                let lo = p.pointee.values[0], hi = p.pointee.values[1]
                range = lo <= hi ? lo...hi : nil
            }
            result[name] = PropertyInfo(id: propId, name: name, value: value, enums: enums, range: range,
                                        immutable: flags & UInt32(DRM_MODE_PROP_IMMUTABLE) != 0,
                                        isBlob: flags & UInt32(DRM_MODE_PROP_BLOB) != 0)
        }
        return ObjectProperties(object: object, byName: result)
    }

    /// The bytes of a property blob (nil when the blob id is 0 or gone).
    func blob(_ id: UInt64) -> [UInt8]? {
        guard id != 0, id <= UInt64(UInt32.max), let b = drmModeGetPropertyBlob(fd, UInt32(id)) else { return nil }
        defer { drmModeFreePropertyBlob(b) }
        guard let data = b.pointee.data else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: data, count: Int(b.pointee.length)))
    }
}
