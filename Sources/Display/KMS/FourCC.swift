/// A DRM pixel format code (drm_fourcc.h: four ASCII bytes, little-endian).
public struct FourCC: Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// - Precondition: `code` is four ASCII characters.
    public init(_ code: StaticString) {
        let p = code.utf8Start
        rawValue = UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | UInt32(p[3]) << 24
    }

    public static let xrgb8888 = FourCC("XR24")
    public static let argb8888 = FourCC("AR24")
    public static let nv12 = FourCC("NV12")
    public static let p010 = FourCC("P010")

    /// The four characters, or hex when they are not printable.
    public var description: String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (8 * $0)) }
        guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return "0x" + String(rawValue, radix: 16) }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: " ")
    }
}

private extension String {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.last == set { s.removeLast() }
        return String(s)
    }
}

/// Format modifiers (drm_fourcc.h).
public enum FormatModifier {
    /// `DRM_FORMAT_MOD_LINEAR`: row-major, what dumb buffers are.
    public static let linear: UInt64 = 0
    /// `DRM_FORMAT_MOD_INVALID`: "no explicit modifier" (implicit layout).
    public static let invalid: UInt64 = 0x00FF_FFFF_FFFF_FFFF
}
